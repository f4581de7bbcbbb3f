/** The keeper's error handling: the shared handlers of core/http (every failure as the envelope). */
export { errorResponse, makeOnError, notFound, validationHook } from "../../../core/http/errors.js";
