/**
 * Key administration (loopback only, `X-Admin-Token`): create, list, revoke. Under an
 * invite-only profile a key is only made for a wallet in the relayer's registry. Not in the
 * public OpenAPI document; `npm run keys` is the client.
 */
import { z } from "@hono/zod-openapi";
import type { Address } from "viem";
import { snakeKeys } from "../../../core/case.js";
import { ApiError } from "../../../core/errors.js";
import type { GatewayApp, GatewayDeps } from "../context.js";
import { CreateKeyBody, KeyIdParam, validationError } from "../schemas.js";

export function registerAdminRoutes(app: GatewayApp, deps: GatewayDeps) {
  const { keys, config } = deps;

  app.post("/admin/keys", async (c) => {
    const raw = await c.req.json().catch(() => {
      throw new ApiError("VALIDATION_ERROR", "body: expected JSON { wallet, label? }");
    });
    const parsed = CreateKeyBody.safeParse(raw);
    if (!parsed.success) throw validationError(parsed.error, "json");
    const wallet = parsed.data.wallet as Address;
    if (config.profile.accessPolicy === "invite-only") await assertRegistered(deps, wallet);
    const { key, record } = await keys.create(wallet, parsed.data.label);
    deps.log.info({ keyId: record.keyId, wallet }, "api key created");
    return c.json({ success: true, data: snakeKeys({ ...record, key }) }, 201);
  });

  app.get("/admin/keys", async (c) => {
    const wallet = c.req.query("wallet");
    if (wallet !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(wallet)) {
      throw new ApiError("VALIDATION_ERROR", "wallet: expected a 0x-prefixed 20-byte address");
    }
    const list = await keys.list(wallet as Address | undefined);
    return c.json({ success: true, data: snakeKeys({ keys: list }) });
  });

  app.delete("/admin/keys/:key_id", async (c) => {
    const parsed = KeyIdParam.safeParse({ key_id: c.req.param("key_id") });
    if (!parsed.success) throw validationError(parsed.error, "param");
    const record = await keys.revoke(parsed.data.key_id);
    if (!record) throw new ApiError("NOT_FOUND", `no key ${parsed.data.key_id}`);
    deps.log.info({ keyId: record.keyId }, "api key revoked");
    return c.json({ success: true, data: snakeKeys(record) });
  });
}

const RegistryAnswer = z.object({ success: z.boolean(), data: z.unknown().optional() });

/** Asks the relayer's closed-beta registry whether the wallet is invited. */
async function assertRegistered({ config }: GatewayDeps, wallet: Address) {
  let res: Response;
  try {
    res = await fetch(`${config.relayerUrl}/internal/registry/${wallet}`, {
      // the gateway's token may read the registry (registry:read); the admin token stays here
      headers: { "X-Internal-Token": config.gatewayToken },
      signal: AbortSignal.timeout(config.timeouts.healthMs),
    });
  } catch {
    throw new ApiError("SERVICE_UNAVAILABLE", "the relayer's registry is unreachable: cannot check the invitation");
  }
  const body = RegistryAnswer.safeParse(await res.json().catch(() => null));
  const data = body.success ? (body.data.data as { registered?: boolean } | undefined) : undefined;
  const registered = res.status === 200 && body.success && body.data.success && data?.registered !== false;
  if (!registered) throw new ApiError("NOT_REGISTERED", `wallet ${wallet} is not registered (invite-only)`);
}
