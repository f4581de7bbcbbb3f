/** Factory of every integration-API sub-app: zod failures answer the envelope (VALIDATION_ERROR). */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { validationHook } from "./errors.js";

export function createApiApp<E extends Env = Env>() {
  return new OpenAPIHono<E>({ defaultHook: validationHook as never });
}
