/**
 * Extra service processes beside a shared stack, with settings of a test's own (a small limit, a
 * short interval, another upstream): a stream service or a gateway on the stack's other services.
 * Stop them in afterAll (`proc.stop()`).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../core/chain/anvil.js";
import { PROJECT_ROOT } from "../../../core/deployment.js";
import { serviceMain, tsxBin } from "../../../scripts/lib/services.js";
import { startProcess, waitForHttp, type Proc } from "../../../scripts/lib/processes.js";
import type { StackInfo } from "./stacks.js";

export type Extra = { url: string; ws: string; proc: Proc };

let n = 0;

/** A stream service on the stack's read service and relayer (PROFILE=local), `env` on top. */
export async function startStreams(s: StackInfo, env: Record<string, string> = {}): Promise<Extra> {
  const port = await freePort();
  const name = `streams-extra-${process.pid}-${++n}`;
  const proc = startProcess(name, process.execPath, [tsxBin(), serviceMain("streams")], {
    ...process.env,
    ...s.tokens,
    PROFILE: "local",
    PONDER_TELEMETRY_DISABLED: "true",
    PORT: String(port),
    HOST: "127.0.0.1",
    INTEGRATION_URL: s.integrationUrl,
    RELAYER_URL: s.relayerUrl!,
    RPC_URL: s.rpcUrl,
    DATABASE_URL: "",
    LOG_LEVEL: "warn",
    ...env,
  }, join(s.logDir, `${name}.log`), PROJECT_ROOT);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, { proc, timeoutMs: 120_000, intervalMs: 100 });
  return { url, ws: `ws://127.0.0.1:${port}/ws`, proc };
}

/** A gateway on the stack's services (its own key store: a PGlite dir, or `GATEWAY_DB_SCHEMA` on the stack's Postgres), `env` on top. */
export async function startGateway(s: StackInfo, env: Record<string, string> = {}): Promise<Extra> {
  const port = await freePort();
  const name = `gateway-extra-${process.pid}-${++n}`;
  const db: Record<string, string> = s.databaseUrl
    ? { DATABASE_URL: s.databaseUrl, GATEWAY_DB_SCHEMA: env.GATEWAY_DB_SCHEMA ?? `gw_extra_${Date.now().toString(36)}_${n}` }
    : { DATABASE_URL: "", PGLITE_DIR: join(mkdtempSync(join(tmpdir(), "gw-extra-")), "db") };
  const proc = startProcess(name, process.execPath, [tsxBin(), serviceMain("gateway")], {
    ...process.env,
    ...s.tokens,
    PROFILE: "local",
    PORT: String(port),
    HOST: "127.0.0.1",
    RPC_URL: s.rpcUrl,
    INTEGRATION_URL: s.integrationUrl,
    RELAYER_URL: s.relayerUrl ?? "",
    KEEPER_URL: s.keeperUrl ?? "",
    STREAMS_URL: s.streamsUrl ?? "",
    LOG_LEVEL: "warn",
    ...db,
    ...env,
  }, join(s.logDir, `${name}.log`), PROJECT_ROOT);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/v1/openapi.json`, { proc, timeoutMs: 120_000, intervalMs: 250 });
  return { url, ws: `ws://127.0.0.1:${port}/v1/ws`, proc };
}

/** A key made through a gateway's admin route. */
export async function createKey(gatewayUrl: string, adminToken: string, wallet: string, label: string): Promise<{ key: string; keyId: string }> {
  const res = await fetch(`${gatewayUrl}/admin/keys`, { method: "POST", headers: { "content-type": "application/json", "X-Admin-Token": adminToken }, body: JSON.stringify({ wallet, label }) });
  const body = (await res.json()) as { data: { key: string; key_id: string } };
  if (res.status !== 201) throw new Error(`POST /admin/keys answered ${res.status}: ${JSON.stringify(body)}`);
  return { key: body.data.key, keyId: body.data.key_id };
}
