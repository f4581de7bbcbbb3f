/** Success responses: the envelope, built in one place. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ok } from "../../../core/envelope.js";

export function jsonOk<T, S extends ContentfulStatusCode = 200>(c: Context, data: T, status?: S) {
  return c.json(ok(data), (status ?? 200) as S);
}
