/** Sign-In with Ethereum: the nonce, the login body and the session token (GET /auth/nonce, POST /auth/login). */
import { z } from "@hono/zod-openapi";
import { NONCE_TTL_SECONDS, TOKEN_TTL_SECONDS } from "../auth/siwe.js";

export const SiweNonce = z
  .object({
    nonce: z.string().openapi({ description: "put it in the EIP-4361 message's Nonce field" }),
    issuedAtISO: z.string(),
    expiresAtISO: z.string().openapi({ description: `the nonce is valid ${NONCE_TTL_SECONDS} s` }),
    domain: z.string().nullable().openapi({ description: "a message domain this API accepts (SIWE_DOMAINS); null: any loopback host (local profile)" }),
    uri: z.string().nullable().openapi({ description: "a URI origin this API accepts (SIWE_URI_ORIGINS); null: any loopback origin (local profile)" }),
    chainId: z.int(),
    version: z.literal("1"),
  })
  .openapi("SiweNonce");

export const LoginBody = z
  .object({
    message: z.string().min(1).max(4096).openapi({ description: "the EIP-4361 message (viem/siwe createSiweMessage)" }),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, { message: "must be a 65-byte hex signature" }),
  })
  .openapi("LoginRequest");

export const SessionToken = z
  .object({
    token: z.string(),
    tokenType: z.literal("Bearer"),
    address: z.string(),
    expiresAt: z.int().openapi({ description: "seconds" }),
    expiresAtISO: z.string(),
    expiresIn: z.int().openapi({ description: `seconds (${TOKEN_TTL_SECONDS})` }),
  })
  .openapi("SessionToken");
