/** The integration API's error handling: the shared handlers of core/http, logging to stderr. */
import { makeOnError } from "../../../core/http/errors.js";

export { errorResponse, notFound, validationHook } from "../../../core/http/errors.js";
export const onError = makeOnError();
