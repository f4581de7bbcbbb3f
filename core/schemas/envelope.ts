/**
 * The error envelope's schema (core/envelope.ts `fail`), for every OpenAPI document: the
 * integration API's (`ErrorEnvelope`), the gateway's (`Error`, its keys are the same in
 * snake_case) and the keeper's (`KeeperError`) name the same shape.
 */
import { z } from "@hono/zod-openapi";

export const errorEnvelope = (name: string, example = { code: "VALIDATION_ERROR", message: "accountId: must be a positive integer" }) =>
  z
    .object({
      success: z.literal(false),
      error: z.object({
        code: z.string().openapi({ example: example.code }),
        message: z.string().openapi({ example: example.message }),
      }),
    })
    .openapi(name);

/** The integration API's error envelope (reads, writes, sign-in). */
export const ErrorEnvelope = errorEnvelope("ErrorEnvelope");
