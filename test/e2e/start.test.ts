/**
 * `npm start` end to end, on its own ports (VENUE_BASE_PORT) and state dir (VENUE_DIR) so it
 * never touches a developer's .venue/: it comes up, writes a correct .venue/local.json, a market
 * order through the gateway fills against the keeper's market maker, Ctrl-C stops every process,
 * a second start continues the same chain, and contracts of an older checkout are redeployed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { engineAbi, marketAbi, oracleAbi } from "../../abis/index.js";
import { rpcAnswers, startAnvil } from "../../core/chain/anvil.js";
import { devAccount } from "../../core/config.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { publicClientFor } from "../../scripts/lib/clients.js";
import { nodeTs } from "../../scripts/lib/services.js";
import { freeBasePort } from "../../scripts/lib/ports.js";
import type { LocalJson } from "../../scripts/start.js";
import { applyLocalCalendar } from "../../scripts/lib/local-calendar.js";
import type { Deployment } from "../../core/deployment.js";
import type { PublicClient } from "viem";
import { reusableDeployment } from "../../scripts/lib/local-deployment.js";
import { e2ePort } from "./helpers/ports.js";


const dir = mkdtempSync(join(tmpdir(), "venue-start-"));
let basePort = 0;
let child: ChildProcess | undefined;
let output = "";

function start(): Promise<void> {
  output = "";
  child = spawn(process.execPath, nodeTs(join(PROJECT_ROOT, "scripts/start.ts")), {
    cwd: PROJECT_ROOT,
    env: { ...process.env, VENUE_BASE_PORT: String(basePort), VENUE_DIR: dir, PONDER_TELEMETRY_DISABLED: "true", SCHEDULE_ENABLED: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("The venue is running.")) {
        clearInterval(timer);
        resolve();
      } else if (child!.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`npm start exited with ${child!.exitCode}:\n${output}`));
      }
    }, 200);
  });
}

/** Ctrl-C: SIGINT to the start process only; it must stop its children itself. */
async function stop(): Promise<number | null> {
  const c = child!;
  if (c.exitCode !== null) return c.exitCode;
  const exited = new Promise<number | null>((r) => c.once("exit", (code) => r(code)));
  c.kill("SIGINT");
  const code = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 60_000))]);
  if (code === "timeout") throw new Error(`npm start did not stop within 60 s:\n${output.slice(-2000)}`);
  return code;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(async () => {
  if (child && child.exitCode === null) {
    // a test that failed mid-way (e.g. a start that timed out): Ctrl-C first, as start.ts stops
    // its services (each in its own process group) only then; a SIGKILL of its group alone left
    // anvil, Ponder and the services running for the rest of the suite
    await stop().catch(() => {});
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("npm start with a port taken", () => {
  it("names a port another program holds, with the fix, before starting anything", async () => {
    // the case: another program's outgoing connection on the indexer's port (a plain
    // socket: Node's own client sockets set SO_REUSEADDR when given a local port, which lets a
    // listener share it and hides the case)
    const target: Server = createServer((sock) => sock.on("error", () => {}));
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", () => r()));
    const port = (target.address() as { port: number }).port;
    // ports no process used before (a port in TIME_WAIT cannot be bound without SO_REUSEADDR)
    basePort = (await freeBasePort(20_000 + Math.floor(Math.random() * 100) * 100))!;
    const holder = spawn("python3", ["-c", HOLD_PORT, String(basePort + 5), String(port)], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((r, j) => {
      holder.stdout!.once("data", () => r());
      holder.once("exit", (code) => j(new Error(`the port holder exited with ${code}`)));
    });
    try {
      await expect(start()).rejects.toThrow(/exited with 1/);
      expect(output).toContain(`${basePort + 5} (indexer) is in use by another program`);
      expect(output).toMatch(/VENUE_BASE_PORT=\d+ npm start/);
      expect(output).not.toContain("anvil       starting");
    } finally {
      holder.kill("SIGKILL");
      await new Promise((r) => target.close(r));
    }
  });
});

describe("npm start", () => {
  let local: LocalJson;

  it("comes up and writes local.json", async () => {
    // below the kernel's ephemeral range: there an outgoing connection of another test could take one
    basePort = (await freeBasePort(20_000 + Math.floor(Math.random() * 100) * 100))!;
    await start();
    // a line per stage as it goes, and the documents' servers on the ports in use
    // SCHEDULE_ENABLED=false: every market OPEN on this very start, with no close ahead
    for (const symbol of ["EUR/USD", "GBP/USD", "AUD/USD"]) expect(output).toContain(`session     ${symbol} OPEN (no close)`);
    for (const stage of ["anvil", "deployment", "calendar", "session", "wallets", "services", "indexer", "gateway"]) expect(output).toMatch(new RegExp(`\\[\\d+\\.\\d s\\]\\s+${stage}`));
    const openapi = (await (await fetch(`http://127.0.0.1:${basePort + 4}/v1/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(openapi.servers.map((x) => x.url)).toEqual([`http://127.0.0.1:${basePort + 4}`]);
    local = JSON.parse(readFileSync(join(dir, "local.json"), "utf8"));
    expect(local.chainId).toBe(31337);
    expect(local.rpcUrl).toBe(`http://127.0.0.1:${basePort}`);
    expect(local.integrationUrl).toBe(`http://127.0.0.1:${basePort + 1}`);
    expect(local.streamsUrl).toBe(`http://127.0.0.1:${basePort + 6}`);
    expect(Object.keys(local.contracts).sort()).toEqual(["depositToken", "engine", "marketFactory", "marketImplementation", "oracle", "timelock", "triggerBook", "venueLens"]);
    expect(local.markets.map((m) => m.symbol)).toEqual(["EUR/USD", "GBP/USD", "AUD/USD"]);
    expect(local.wallets).toHaveLength(10);
    const client = publicClientFor(local.rpcUrl, local.chainId);
    for (const [i, w] of local.wallets.entries()) {
      expect(w.address).toBe(devAccount(i).address);
      expect(w.privateKey).toBe(devAccount(i).privateKey);
      const id = await client.readContract({ address: local.contracts.engine, abi: engineAbi, functionName: "accountIdOf", args: [w.address as `0x${string}`] });
      expect(Number(id)).toBe(w.accountId);
      expect(w.accountId).toBeGreaterThan(0);
      expect(w.apiKey).toMatch(/.{16,}/);
    }
    const res = await fetch(`${local.integrationUrl}/markets`);
    expect(res.status).toBe(200);
  });

  it("fills a market order through the gateway against the market maker", async () => {
    const w = local.wallets[3]!;
    const eur = local.markets.find((m) => m.symbol === "EUR/USD")!;
    const client = publicClientFor(local.rpcUrl, local.chainId);
    // the market maker quotes once the keeper has seen the indexed markets
    const deadline = Date.now() + 60_000;
    const asks = async () => (await client.readContract({ address: eur.marketAddress as `0x${string}`, abi: marketAbi, functionName: "restingQty" }))[1];
    while ((await asks()) === 0n) {
      if (Date.now() > deadline) throw new Error("the market maker never quoted EUR/USD");
      await new Promise((r) => setTimeout(r, 500));
    }
    const res = await fetch(`${local.gatewayUrl}/v1/accounts/${w.accountId}/trade`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": w.apiKey! },
      body: JSON.stringify({ market_id: eur.marketId, collateral: "100000000", side: 0, leverage: 5, order_type: 0 }),
    });
    const body = (await res.json()) as { success: boolean };
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.success).toBe(true);
    const pos = await client.readContract({ address: eur.marketAddress as `0x${string}`, abi: marketAbi, functionName: "getPosition", args: [BigInt(w.accountId)] });
    expect(pos.sizeQty > 0n).toBe(true);
  });

  it("a market an earlier run leaves in its reduce-only window (a calendar on chain)", async () => {
    const client = publicClientFor(local.rpcUrl, local.chainId);
    const eur = local.markets.find((m) => m.symbol === "EUR/USD")!;
    const now = Number((await client.getBlock({ blockTag: "latest" })).timestamp);
    const WEEK = 7 * 86_400;
    const pos = (now + 3 * 86_400) % WEEK;
    const closeAtMin = Math.ceil((pos + 120 + 15 * 60) / 60);
    const deployment = { chainId: local.chainId, contracts: local.contracts, markets: [eur] } as unknown as Deployment;
    expect(await applyLocalCalendar(client as never, local.rpcUrl, deployment, { closeAtMin: closeAtMin % (WEEK / 60), windowMin: 15, closedMin: 30 })).toBe(1);
    await client.request({ method: "evm_setNextBlockTimestamp" as never, params: [now - pos + closeAtMin * 60 - 10 * 60] as never });
    await client.request({ method: "evm_mine" as never, params: [] as never });
    const [session] = await client.readContract({ address: eur.marketAddress as `0x${string}`, abi: marketAbi, functionName: "session" });
    expect(session).toBe(1); // REDUCE_ONLY: the second start (SCHEDULE_ENABLED=false) must open it
  });

  it("stops every process on Ctrl-C", async () => {
    const pid = child!.pid!;
    expect(await stop()).toBe(0);
    expect(await rpcAnswers(local.rpcUrl)).toBe(false);
    for (const url of [local.integrationUrl, local.gatewayUrl, local.relayerUrl, local.keeperUrl, local.streamsUrl].filter(Boolean)) {
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    }
    // the group may need a moment after the leader exits (tsx's esbuild service)
    for (let i = 0; i < 50 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(pid)).toBe(false);
    expect(existsSync(join(dir, "anvil-state.json"))).toBe(true);
  });

  it("continues the same chain on a second start", async () => {
    const client = publicClientFor(local.rpcUrl, local.chainId);
    await start();
    expect(output).toContain("reusing");
    // SCHEDULE_ENABLED=false: a calendar with no close, in force on this very start
    expect(output).toContain("no close (SCHEDULE_ENABLED=false)");
    const eur = local.markets.find((m) => m.symbol === "EUR/USD")!;
    const [session] = await client.readContract({ address: eur.marketAddress as `0x${string}`, abi: marketAbi, functionName: "session" });
    expect(session, "a market left reduce-only by the earlier run").toBe(0);
    const again: LocalJson = JSON.parse(readFileSync(join(dir, "local.json"), "utf8"));
    expect(again.contracts).toEqual(local.contracts);
    expect(again.wallets.map((w) => [w.accountId, w.apiKey])).toEqual(local.wallets.map((w) => [w.accountId, w.apiKey]));
    expect(await client.getBlockNumber()).toBeGreaterThan(BigInt(10));
    expect(await stop()).toBe(0);
  });

  it("redeploys when .venue/ holds contracts older than the checkout's (the decision of the start, on its stopped chain's state)", async () => {
    // the chain the two starts left, loaded by an anvil of this test's own (a third `npm start`
    // would redeploy by the same decision: scripts/lib/local-deployment.ts)
    const anvil = await startAnvil({ port: await e2ePort(), stateFile: join(dir, "anvil-state.json"), logFile: join(dir, "anvil-check.log") });
    try {
      const client = publicClientFor(anvil.rpcUrl, local.chainId) as PublicClient;
      const file = join(dir, "deployment.json");
      const same = await reusableDeployment(client, file);
      expect(same.deployment?.contracts).toEqual(local.contracts);
      expect(same.note).toContain("reusing");
      // an older checkout wrote another code hash (or none at all)
      const { codeHash: _, ...older } = JSON.parse(readFileSync(file, "utf8"));
      const olderFile = join(dir, "deployment-older.json");
      writeFileSync(olderFile, JSON.stringify(older));
      const old = await reusableDeployment(client, olderFile);
      expect(old.deployment).toBeUndefined();
      expect(old.note).toContain("older than this checkout's: redeploying");
      // a file of contracts that are not on this chain (a fresh anvil): deploy, nothing to say
      writeFileSync(olderFile, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), contracts: { ...local.contracts, engine: `0x${"42".repeat(20)}` } }));
      expect(await reusableDeployment(client, olderFile)).toEqual({});
    } finally {
      await anvil.stop();
    }
  });
});

/** python3: bind argv[1] on loopback without SO_REUSEADDR, connect to argv[2], say so, hold. */
const HOLD_PORT = [
  "import socket, sys, time",
  "s = socket.socket()",
  "s.bind(('127.0.0.1', int(sys.argv[1])))",
  "s.connect(('127.0.0.1', int(sys.argv[2])))",
  "print('held', flush=True)",
  "time.sleep(600)",
].join("\n");
