/**
 * A second gateway process on the stack's services with a small rate limit: `npm run keys`
 * (create, list, revoke) against its admin endpoint, and 429 with Retry-After per key. Then two
 * more replicas on one Redis (REDIS_URL, 127.0.0.1:6379; .ci/run starts it) share the limits.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2ePort } from "./helpers/ports.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";

const root = join(import.meta.dirname, "../..");
const tsx = join(createRequire(import.meta.url).resolve("tsx/package.json"), "../dist/cli.mjs");
const run = promisify(execFile);


describe.each([sharedStack()])("gateway keys and rate limit ($kind)", (s: StackInfo) => {
  const children: ChildProcess[] = [];
  let url = "";
  let dir = "";
  const schema = `gw_admin_${Date.now().toString(36)}`;
  const wallet = s.wallets[4]!;

  /** A gateway process on the stack's services; its own key store unless `schema` is shared. */
  async function startGateway(extra: Record<string, string>, dbSchema = schema): Promise<{ url: string; child: ChildProcess }> {
    const port = await e2ePort();
    const url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PROFILE: "local",
      PORT: String(port),
      HOST: "127.0.0.1",
      RPC_URL: s.rpcUrl,
      INTEGRATION_URL: s.integrationUrl,
      RELAYER_URL: s.relayerUrl ?? "",
      KEEPER_URL: s.keeperUrl ?? "",
      GATEWAY_TOKEN: s.internalToken,
      ADMIN_TOKEN: s.adminToken,
      LOG_LEVEL: "warn",
      ...extra,
    };
    delete env.DATABASE_URL;
    if (s.databaseUrl) {
      env.DATABASE_URL = s.databaseUrl;
      env.GATEWAY_DB_SCHEMA = dbSchema;
    } else env.PGLITE_DIR = join(dir, `db-${port}`);
    const proc = spawn(process.execPath, [tsx, "services/gateway/main.ts"], { cwd: root, env, stdio: "ignore" });
    children.push(proc);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ok = await fetch(`${url}/v1/openapi.json`).then((r) => r.ok, () => false);
      if (ok) return { url, child: proc };
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error("gateway did not start");
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gw-admin-"));
    url = (await startGateway({ RATE_LIMIT_PER_MINUTE: "3" })).url;
  }, 180_000);

  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode !== null) continue;
      c.kill("SIGTERM");
      await new Promise((r) => c.once("exit", r));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (s.databaseUrl) {
      const pg = (await import("pg")).default;
      const c = new pg.Client({ connectionString: s.databaseUrl });
      await c.connect();
      for (const sc of [schema, `${schema}_r`]) await c.query(`DROP SCHEMA IF EXISTS "${sc}" CASCADE`);
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

  describe("two replicas on one Redis", () => {
    const replicas: string[] = [];
    beforeAll(async () => {
      // one key store (Postgres: the same schema; PGlite: each its own, so only addresses are shared)
      const env = { RATE_LIMIT_PER_MINUTE: "4", REDIS_URL: "redis://127.0.0.1:6379", TRUSTED_PROXIES: "127.0.0.1" };
      const shared = `${schema}_r`;
      for (let i = 0; i < 2; i++) replicas.push((await startGateway(env, shared)).url);
    }, 240_000);

    it("share the keyless limit of a client address: 4 requests across both, the 5th is 429 on either", async () => {
      // a client address of this run only (the counters outlive it in Redis for a minute)
      const client = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      const get = (i: number) => fetch(`${replicas[i % 2]}/v1/markets`, { headers: { "X-Forwarded-For": client } });
      const remaining: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await get(i);
        expect(r.status).toBe(200);
        remaining.push(r.headers.get("ratelimit-remaining")!);
      }
      expect(remaining).toEqual(["3", "2", "1", "0"]);
      for (const i of [0, 1]) {
        const over = await get(i);
        expect(over.status).toBe(429);
        expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    });

    it.skipIf(!s.databaseUrl)("share an API key's limit (one key store on Postgres)", async () => {
      const created = await run(process.execPath, [tsx, "scripts/keys.ts", "create", wallet.address, "e2e-replicas"], {
        cwd: root,
        env: { ...process.env, GATEWAY_ADMIN_URL: replicas[0], ADMIN_TOKEN: s.adminToken },
      });
      const key = /^key\s+(vgw_\S+)$/m.exec(created.stdout)![1]!;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await fetch(`${replicas[i % 2]}/v1/accounts/${wallet.accountId}`, { headers: { "X-API-Key": key } });
        statuses.push(r.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    });
  });
});
