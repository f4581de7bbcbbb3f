/**
 * A response schema of the integration API (camelCase: core/schemas/reads.ts, history.ts) as the
 * gateway documents it: the same schema with snake_case keys (core/case.ts), descriptions kept.
 * The gateway's OpenAPI document derives its read schemas from here, so a field added to an
 * answer is documented on both surfaces at once (test/e2e/reads-golden.test.ts checks that the
 * document describes every /v1 answer).
 */
import { z } from "@hono/zod-openapi";
import { toSnakeCase } from "../case.js";

type Def = { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; innerType?: z.ZodType; options?: z.ZodType[] };

export function snakeSchema(s: z.ZodType, name?: string): z.ZodType {
  const def = (s as unknown as { _zod: { def: Def } })._zod.def;
  let out: z.ZodType = s;
  if (def.type === "object") {
    const shape = (s as z.ZodObject).shape as Record<string, z.ZodType>;
    out = z.object(Object.fromEntries(Object.entries(shape).map(([k, v]) => [toSnakeCase(k), snakeSchema(v)])));
  } else if (def.type === "array") out = z.array(snakeSchema(def.element!));
  else if (def.type === "nullable") out = snakeSchema(def.innerType!).nullable();
  else if (def.type === "optional") out = snakeSchema(def.innerType!).optional();
  else if (def.type === "union") out = z.union(def.options!.map((o) => snakeSchema(o)) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return name ? out.openapi(name) : out;
}
