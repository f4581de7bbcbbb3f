/**
 * Extra service processes beside a shared stack, with settings of a test's own (a small limit, a
 * short interval, another upstream): a stream service, a gateway or a read service on the stack's
 * other services.
 * Stop them in afterAll (`proc.stop()`).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { e2ePort } from "./ports.js";
import { PROJECT_ROOT } from "../../../core/deployment.js";
import { serviceMain, nodeTs } from "../../../scripts/lib/services.js";
import { startProcess, waitForHttp, type Proc } from "../../../scripts/lib/processes.js";
import type { StackInfo } from "./stacks.js";

export type Extra = { url: string; ws: string; proc: Proc };

let n = 0;

/**
 * `service` on a port of its own beside the stack (PROFILE=local, the stack's service tokens,
 * `env` on top), ready once `readyPath` answers 200.
 */
async function startExtra(s: StackInfo, service: "streams" | "gateway" | "reads", env: NodeJS.ProcessEnv, readyPath: string, onPort?: number): Promise<Extra & { port: number }> {
  const port = onPort ?? (await e2ePort());
  const name = `${service}-extra-${process.pid}-${++n}`;
  const proc = startProcess(name, process.execPath, nodeTs(serviceMain(service)), {
    ...process.env,
    ...s.tokens,
    PROFILE: "local",
    PONDER_TELEMETRY_DISABLED: "true",
    PORT: String(port),
    HOST: "127.0.0.1",
    RPC_URL: s.rpcUrl,
    LOG_LEVEL: "warn",
    ...env,
  }, join(s.logDir, `${name}.log`), PROJECT_ROOT);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url + readyPath, { proc, timeoutMs: 120_000, intervalMs: 100 });
  return { url, ws: "", proc, port };
}

/** A stream service on the stack's read service and relayer, `env` on top (`port`: a restart on the port of a stopped one). */
export async function startStreams(s: StackInfo, env: Record<string, string> = {}, port?: number): Promise<Extra> {
  const x = await startExtra(s, "streams", { INTEGRATION_URL: s.integrationUrl, RELAYER_URL: s.relayerUrl!, DATABASE_URL: "", ...env }, "/health", port);
  return { ...x, ws: `ws://127.0.0.1:${x.port}/ws` };
}

/** A gateway on the stack's services (its own key store: a PGlite dir, or `GATEWAY_DB_SCHEMA` on the stack's Postgres), `env` on top. */
export async function startGateway(s: StackInfo, env: Record<string, string> = {}): Promise<Extra> {
  const db: Record<string, string> = s.databaseUrl
    ? { DATABASE_URL: s.databaseUrl, GATEWAY_DB_SCHEMA: env.GATEWAY_DB_SCHEMA ?? `gw_extra_${Date.now().toString(36)}_${n}` }
    : { DATABASE_URL: "", PGLITE_DIR: join(mkdtempSync(join(tmpdir(), "gw-extra-")), "db") };
  const x = await startExtra(s, "gateway", {
    INTEGRATION_URL: s.integrationUrl,
    RELAYER_URL: s.relayerUrl ?? "",
    KEEPER_URL: s.keeperUrl ?? "",
    STREAMS_URL: s.streamsUrl ?? "",
    ...db,
    ...env,
  }, "/v1/openapi.json");
  return { ...x, ws: `ws://127.0.0.1:${x.port}/v1/ws` };
}

/** A read service on the stack's Ponder and relayer (memory only: no database feed, no shared stores), `env` on top. */
export async function startReads(s: StackInfo, env: Record<string, string> = {}): Promise<Extra> {
  return startExtra(s, "reads", {
    INDEXER_URL: s.indexerUrl,
    RELAYER_URL: s.relayerUrl ?? "",
    // unset (spawn ignores undefined values): the parent's stack settings must not leak in
    DATABASE_URL: undefined,
    DATABASE_SCHEMA: undefined,
    REDIS_URL: undefined,
    LAST_WRITE_DB_SCHEMA: undefined,
    ...env,
  }, "/health");
}

/** A key made through a gateway's admin route. */
export async function createKey(gatewayUrl: string, adminToken: string, wallet: string, label: string): Promise<{ key: string; keyId: string }> {
  const res = await fetch(`${gatewayUrl}/admin/keys`, { method: "POST", headers: { "content-type": "application/json", "X-Admin-Token": adminToken }, body: JSON.stringify({ wallet, label }) });
  const body = (await res.json()) as { data: { key: string; key_id: string } };
  if (res.status !== 201) throw new Error(`POST /admin/keys answered ${res.status}: ${JSON.stringify(body)}`);
  return { key: body.data.key, keyId: body.data.key_id };
}
