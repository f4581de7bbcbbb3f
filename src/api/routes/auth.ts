/**
 * Sign-in with Ethereum for the integration API (core/auth/siwe.ts):
 *   GET  /auth/nonce    a signed, short-lived nonce for the EIP-4361 message
 *   POST /auth/login    { message, signature } → a bearer token (JWT, JWT_SECRET); each nonce once
 *   GET  /auth/session  who the bearer token is
 * The message's domain and URI must be the configured ones (SIWE_DOMAINS, SIWE_URI_ORIGINS).
 */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { issueNonce, login, siweConfig } from "../../../core/auth/siwe.js";
import { nonceStoreFromEnv, type NonceStore } from "../../../core/auth/nonce-store.js";
import { bearerAuth, type BearerVariables } from "../../../core/auth/bearer.js";
import { secret } from "../../../core/profiles.js";
import { ok } from "../../../core/envelope.js";
import { validationError } from "../../../core/schemas/validation.js";
import { errorResponse, onError } from "../lib/errors.js";
import { ErrorEnvelope } from "../../../core/schemas/envelope.js";
import { LoginBody, SessionToken, SiweNonce } from "../../../core/schemas/auth.js";

const jwtSecret = () => secret("JWT_SECRET");
// checked at start by ponder.config.ts (required outside local); cheap to read per request
const siwe = () => siweConfig();
let nonces: NonceStore | undefined;
const nonceStore = () => (nonces ??= nonceStoreFromEnv());

export const authRoutes = new OpenAPIHono<{ Variables: BearerVariables }>({
  defaultHook: (result, c) => (result.success ? undefined : errorResponse(c, validationError(result.error))),
});
authRoutes.onError(onError);

const Envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });
const err = (description: string) => ({ description, content: { "application/json": { schema: ErrorEnvelope } } });


authRoutes.openapi(
  createRoute({
    method: "get",
    path: "/auth/nonce",
    tags: ["auth"],
    summary: "A nonce for a Sign-In with Ethereum message",
    responses: { 200: { description: "nonce", content: { "application/json": { schema: Envelope(SiweNonce) } } } },
  }),
  (c) => {
    const now = Math.floor(Date.now() / 1000);
    const { nonce, expiresAt } = issueNonce(jwtSecret(), now);
    return c.json(
      ok({
        nonce,
        issuedAtISO: new Date(now * 1000).toISOString(),
        expiresAtISO: new Date(expiresAt * 1000).toISOString(),
        domain: siwe().domains[0] ?? null,
        uri: siwe().origins[0] ?? null,
        chainId: siwe().chainId,
        version: "1" as const,
      }),
      200,
    );
  },
);



authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/auth/login",
    tags: ["auth"],
    summary: "Exchange a signed SIWE message for a bearer token",
    request: { body: { required: true, content: { "application/json": { schema: LoginBody } } } },
    responses: {
      200: { description: "token", content: { "application/json": { schema: Envelope(SessionToken) } } },
      400: err("VALIDATION_ERROR"),
      401: err("UNAUTHENTICATED: bad, expired or already used nonce, wrong domain, URI or chain, bad signature"),
    },
  }),
  async (c) => {
    const { message, signature } = c.req.valid("json");
    const t = await login(message, signature as Hex, { ...siwe(), secret: jwtSecret(), nonces: nonceStore() });
    return c.json(
      ok({ token: t.token, tokenType: "Bearer" as const, address: t.address, expiresAt: t.expiresAt, expiresAtISO: new Date(t.expiresAt * 1000).toISOString(), expiresIn: t.expiresIn }),
      200,
    );
  },
);

authRoutes.openapi(
  createRoute({
    method: "get",
    path: "/auth/session",
    tags: ["auth"],
    summary: "The wallet of the bearer token",
    security: [{ bearerAuth: [] }],
    middleware: [bearerAuth({ secret: jwtSecret })] as const,
    responses: {
      200: { description: "session", content: { "application/json": { schema: Envelope(z.object({ address: z.string() })) } } },
      401: err("UNAUTHENTICATED"),
    },
  }),
  (c) => c.json(ok({ address: c.get("wallet") }), 200),
);

authRoutes.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "GET /auth/nonce, sign an EIP-4361 message, POST /auth/login",
});
