/** Shared pieces of the read routes' OpenAPI definitions. */
import { ErrorEnvelope } from "../../../core/schemas/reads.js";
import { indexedBlock } from "./indexedBlock.js";

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorEnvelope } } });

export const readErrors = {
  400: error("VALIDATION_ERROR: a malformed parameter (the message names it)"),
  503: error("SERVICE_UNAVAILABLE: ?minBlock not indexed within 5 s"),
} as const;
export const notFound = (codes: string) => ({ 404: error(codes) }) as const;

export const readHeaders = {
  "X-Indexed-Block": { description: "The latest indexed block; the answer describes the state as of this block", schema: { type: "integer" as const } },
  "X-Cache": { description: "From the read service: HIT when the answer was held from an earlier read of the same indexed block (send Cache-Control: no-cache for a fresh read), else MISS", schema: { type: "string" as const } },
};

/** Every read route runs behind these: `?minBlock`, `X-Indexed-Block`, `c.var.indexed`. */
export const readMiddleware: [typeof indexedBlock] = [indexedBlock];
