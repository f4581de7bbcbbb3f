/**
 * Starts and stops a local anvil from the npm package `@foundry-rs/anvil` (its platform package
 * carries the binary; npm 11 skips install scripts, so we resolve the binary ourselves).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, chmodSync, statSync, openSync, closeSync } from "node:fs";
import { dirname, join } from "node:path";
import { createServer } from "node:net";
import { ANVIL_ACCOUNTS, ANVIL_MNEMONIC, LOCAL_CHAIN_ID } from "../config.js";

const require = createRequire(import.meta.url);

export type AnvilOptions = {
  port?: number; // 0 or unset = a free port
  host?: string;
  blockTime?: number; // seconds; unset = automine
  stateFile?: string; // load at start, dump on exit (and every stateIntervalSeconds)
  stateIntervalSeconds?: number;
  accounts?: number;
  chainId?: number;
  logFile?: string; // anvil's stdout/stderr; unset = discarded
  startTimeoutMs?: number;
  extraArgs?: string[];
};

export type Anvil = {
  rpcUrl: string;
  port: number;
  pid: number;
  process: ChildProcess;
  stop: () => Promise<void>;
};

/**
 * Path of a foundry tool's binary from its npm platform package (`@foundry-rs/<tool>-<os>-<arch>`),
 * or null if that package is missing. Spawn it directly: the packages' `bin.mjs` wrappers do not
 * pass the tool's exit code on.
 */
export function foundryBinary(tool: "anvil" | "forge"): string | null {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const exe = process.platform === "win32" ? `${tool}.exe` : tool;
  try {
    const pkg = require.resolve(`@foundry-rs/${tool}-${process.platform}-${arch}/package.json`);
    const bin = join(dirname(pkg), "bin", exe);
    if (!existsSync(bin)) return null;
    // Some extractors drop the exec bit; the package's postinstall (not run by npm 11) sets it.
    if (process.platform !== "win32" && (statSync(bin).mode & 0o111) === 0) chmodSync(bin, 0o755);
    return bin;
  } catch {
    return null;
  }
}

/** Path of the anvil binary for this platform, or null if the platform package is missing. */
export const anvilBinary = () => foundryBinary("anvil");

/**
 * A port allocator that never hands out the same port twice. The OS may offer a port again once
 * its probe socket is closed, before the service it was meant for listens: two services started
 * side by side were once given the same one (a CI run: the streams service failed with
 * EADDRINUSE on its relayer's port).
 */
export function portAllocator(probe: () => Promise<number>): () => Promise<number> {
  const handedOut = new Set<number>();
  return async () => {
    for (let i = 0; i < 100; i++) {
      const port = await probe();
      if (handedOut.has(port)) continue;
      handedOut.add(port);
      return port;
    }
    throw new Error("freePort: the OS offered only ports handed out before");
  };
}

/** A TCP port that is free right now on 127.0.0.1 and not handed out before by this process. */
export const freePort = portAllocator(osFreePort);

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** true once `eth_chainId` answers at `rpcUrl`. */
export async function rpcAnswers(rpcUrl: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return res.ok && typeof ((await res.json()) as { result?: unknown }).result === "string";
  } catch {
    return false;
  }
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const host = opts.host ?? "127.0.0.1";
  const port = opts.port || (await freePort());
  const probeHost = host === "0.0.0.0" ? "127.0.0.1" : host;
  // Another node on a fixed port would answer our readiness probe: refuse instead.
  if (opts.port && (await rpcAnswers(`http://${probeHost}:${port}`, 500))) {
    throw new Error(`port ${port} already serves JSON-RPC (another anvil or venue?)`);
  }
  const args = [
    "--host", host,
    "--port", String(port),
    "--accounts", String(opts.accounts ?? ANVIL_ACCOUNTS),
    "--mnemonic", ANVIL_MNEMONIC,
    "--chain-id", String(opts.chainId ?? LOCAL_CHAIN_ID),
  ];
  if (opts.blockTime) args.push("--block-time", String(opts.blockTime));
  if (opts.stateFile) {
    args.push("--state", opts.stateFile);
    if (opts.stateIntervalSeconds) args.push("--state-interval", String(opts.stateIntervalSeconds));
  }
  args.push(...(opts.extraArgs ?? []));

  const bin = anvilBinary();
  const [cmd, argv] = bin
    ? [bin, args]
    : [process.execPath, [require.resolve("@foundry-rs/anvil/bin.mjs"), ...args]];
  const out = opts.logFile ? openSync(opts.logFile, "a") : "ignore";
  const child = spawn(cmd, argv, { stdio: ["ignore", out, out], env: { ...process.env, TARGET_TOOL: "anvil" } });
  if (typeof out === "number") closeSync(out);

  const rpcUrl = `http://${probeHost}:${port}`;
  let exited: number | null | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = code ?? (signal ? -1 : 0);
      resolve();
    });
  });

  // If the parent exits without stop() (a crash), do not leave anvil behind.
  const onParentExit = () => child.kill("SIGKILL");
  process.once("exit", onParentExit);
  child.once("exit", () => process.removeListener("exit", onParentExit));

  const stop = async () => {
    if (exited !== undefined) return;
    // SIGTERM lets anvil dump --state before it exits.
    child.kill("SIGTERM");
    const killed = await Promise.race([exitPromise.then(() => true), sleep(10_000).then(() => false)]);
    if (!killed) {
      child.kill("SIGKILL");
      await exitPromise;
    }
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  while (!(await rpcAnswers(rpcUrl, 500))) {
    if (exited !== undefined) throw new Error(`anvil exited (code ${exited}) before answering on ${rpcUrl}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`anvil did not answer on ${rpcUrl} within ${opts.startTimeoutMs ?? 30_000} ms`);
    }
    await sleep(100);
  }
  return { rpcUrl, port, pid: child.pid!, process: child, stop };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
