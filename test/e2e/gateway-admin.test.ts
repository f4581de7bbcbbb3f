/**
 * A second gateway process on the stack's services with a small rate limit: `npm run keys`
 * (create, list, revoke) against its admin endpoint, and 429 with Retry-After per key.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../core/chain/anvil.js";
import { stackList, type StackInfo } from "./helpers/stacks.js";

const root = join(import.meta.dirname, "../..");
const tsx = join(createRequire(import.meta.url).resolve("tsx/package.json"), "../dist/cli.mjs");
const run = promisify(execFile);

const stacksWithGateway = stackList().filter((s) => s.gatewayUrl);

describe.skipIf(stacksWithGateway.length === 0).each(stacksWithGateway)("gateway keys and rate limit ($kind)", (s: StackInfo) => {
  let child: ChildProcess | undefined;
  let url = "";
  let dir = "";
  const schema = `gw_admin_${Date.now().toString(36)}`;
  const wallet = s.wallets[4]!;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), "gw-admin-"));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PROFILE: "local",
      PORT: String(port),
      HOST: "127.0.0.1",
      RPC_URL: s.rpcUrl,
      INTEGRATION_URL: s.integrationUrl,
      RELAYER_URL: s.relayerUrl ?? "",
      KEEPER_URL: s.keeperUrl ?? "",
      INTERNAL_TOKEN: s.internalToken,
      ADMIN_TOKEN: s.adminToken,
      RATE_LIMIT_PER_MINUTE: "3",
      LOG_LEVEL: "warn",
    };
    delete env.DATABASE_URL;
    if (s.databaseUrl) {
      env.DATABASE_URL = s.databaseUrl;
      env.GATEWAY_DB_SCHEMA = schema;
    } else env.PGLITE_DIR = join(dir, "db");
    child = spawn(process.execPath, [tsx, "services/gateway/main.ts"], { cwd: root, env, stdio: "ignore" });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ok = await fetch(`${url}/v1/openapi.json`).then((r) => r.ok, () => false);
      if (ok) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error("second gateway did not start");
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child!.once("exit", r));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (s.databaseUrl) {
      const pg = (await import("pg")).default;
      const c = new pg.Client({ connectionString: s.databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    }
  });

  const keys = (...args: string[]) =>
    run(process.execPath, [tsx, "scripts/keys.ts", ...args], {
      cwd: root,
      env: { ...process.env, GATEWAY_ADMIN_URL: url, ADMIN_TOKEN: s.adminToken },
    });

  it("npm run keys: create prints the key once, list hides it, revoke disables it", async () => {
    const created = await keys("create", wallet.address, "e2e-cli");
    const key = /^key\s+(vgw_\S+)$/m.exec(created.stdout)?.[1];
    const keyId = /^key_id\s+(key_[0-9a-f]+)$/m.exec(created.stdout)?.[1];
    expect(key).toBeTruthy();
    expect(keyId).toBeTruthy();
    const list = await keys("list", wallet.address);
    expect(list.stdout).toContain(keyId!);
    expect(list.stdout).not.toContain(key!);
    expect((await fetch(`${url}/v1/accounts/${wallet.accountId}`, { headers: { "X-API-Key": key! } })).status).toBe(200);
    const revoked = await keys("revoke", keyId!);
    expect(revoked.stdout).toContain("revoked");
    const after = await fetch(`${url}/v1/accounts/${wallet.accountId}`, { headers: { "X-API-Key": key! } });
    expect(after.status).toBe(401);
    await expect(keys("revoke", "key_0000000000000000")).rejects.toThrow(/NOT_FOUND/);
    await expect(keys("create", "not-an-address")).rejects.toThrow(/VALIDATION_ERROR/);
  });

  it("429 RATE_LIMITED with Retry-After and RateLimit-* after the per-key limit", async () => {
    const created = await keys("create", wallet.address, "e2e-rate");
    const key = /^key\s+(vgw_\S+)$/m.exec(created.stdout)![1]!;
    const h = { headers: { "X-API-Key": key } };
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${url}/v1/accounts/${wallet.accountId}`, h);
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-remaining")).toBe(String(2 - i));
    }
    const over = await fetch(`${url}/v1/accounts/${wallet.accountId}`, h);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.headers.get("ratelimit-limit")).toBe("3");
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    // the keyless market list is counted per client address, not on this key's budget
    expect((await fetch(`${url}/v1/markets`)).status).toBe(200);
  });
});
