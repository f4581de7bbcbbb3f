/**
 * API key administration against the running gateway (never opens its database: PGlite is one
 * process only). Talks to the admin endpoint over loopback with ADMIN_TOKEN.
 *
 *   npm run keys -- create <wallet> [label]   prints the key once
 *   npm run keys -- list [wallet]
 *   npm run keys -- revoke <keyId>
 *
 * GATEWAY_ADMIN_URL (default http://127.0.0.1:$PORT, PORT default 8080), ADMIN_TOKEN (local default).
 */
import { secret } from "../core/profiles.js";

const USAGE = `usage: npm run keys -- create <wallet> [label] | list [wallet] | revoke <keyId>`;

type Answer = { success: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } };

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const base = (process.env.GATEWAY_ADMIN_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`).replace(/\/$/, "");
  let res: Response;
  try {
    res = await fetch(base + path, {
      method,
      headers: { "X-Admin-Token": secret("ADMIN_TOKEN"), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new Error(`cannot reach the gateway at ${base} (${(err as Error).message}); is it running? set GATEWAY_ADMIN_URL`);
  }
  const answer = (await res.json().catch(() => null)) as Answer | null;
  if (!answer) throw new Error(`gateway answered ${res.status} without JSON`);
  if (!answer.success) throw new Error(`${answer.error?.code}: ${answer.error?.message} (HTTP ${res.status})`);
  return answer;
}

async function main(argv: string[]) {
  const [cmd, arg, label] = argv;
  switch (cmd) {
    case "create": {
      if (!arg) throw new Error(USAGE);
      const { data } = await call("POST", "/admin/keys", { wallet: arg, ...(label ? { label } : {}) });
      console.log(`key_id  ${data!.key_id}\nwallet  ${data!.wallet}\nkey     ${data!.key}\n\nThe key is shown once: store it now. Send it as X-API-Key.`);
      return;
    }
    case "list": {
      const { data } = await call("GET", `/admin/keys${arg ? `?wallet=${encodeURIComponent(arg)}` : ""}`);
      const keys = (data!.keys ?? []) as Record<string, string | null>[];
      if (!keys.length) console.log("no keys");
      for (const k of keys) {
        console.log(`${k.key_id}  ${k.wallet}  ${k.key_prefix}…  ${k.revoked_at ? `revoked ${k.revoked_at}` : "active"}  ${k.label ?? ""}`);
      }
      return;
    }
    case "revoke": {
      if (!arg) throw new Error(USAGE);
      const { data } = await call("DELETE", `/admin/keys/${encodeURIComponent(arg)}`);
      console.log(`${data!.key_id} revoked at ${data!.revoked_at}`);
      return;
    }
    default:
      throw new Error(USAGE);
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`keys: ${(err as Error).message}`);
  process.exit(1);
});
