/**
 * Child processes of the local venue: each in its own process group (so a stop reaches
 * grandchildren such as tsx's node), output to a log file, readiness by HTTP polling.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";

export type Proc = {
  name: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  exited: () => boolean;
  exitCode: () => number | null;
  stop: (timeoutMs?: number) => Promise<void>;
};

const live = new Set<Proc>();
let exitHookInstalled = false;

/** Last resort: if this process exits with children still up, kill their groups. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const p of live) {
      try {
        process.kill(-p.pid, "SIGKILL");
      } catch {}
    }
  });
}

export function startProcess(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, cwd?: string): Proc {
  installExitHook();
  const fd = openSync(logFile, "a");
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  let code: number | null | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once("exit", (c, sig) => {
      code = c ?? (sig ? 128 : 0);
      live.delete(proc);
      resolve();
    });
    child.once("error", () => {
      code = 127;
      live.delete(proc);
      resolve();
    });
  });
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {}
  };
  const proc: Proc = {
    name,
    pid: child.pid ?? -1,
    child,
    logFile,
    exited: () => code !== undefined,
    exitCode: () => code ?? null,
    stop: async (timeoutMs = 10_000) => {
      if (code !== undefined) return;
      signal("SIGTERM");
      const done = await Promise.race([exit.then(() => true), sleep(timeoutMs).then(() => false)]);
      if (!done) {
        signal("SIGKILL");
        await exit;
      }
      signal("SIGKILL"); // stragglers of the group (a grandchild that ignored SIGTERM)
    },
  };
  live.add(proc);
  return proc;
}

/** What was appended to `file` since it was `fromByte` long (at most `maxBytes` of it). */
export function logSince(file: string, fromByte: number, maxBytes = 256 * 1024): string {
  if (!existsSync(file)) return "";
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(maxBytes);
    const n = readSync(fd, buf, 0, maxBytes, fromByte);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

export function tailLog(file: string, lines = 40): string {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}

/**
 * Polls `url` until it answers 200; fails early when `proc` exits or `failWhen` names a reason
 * (checked before each poll).
 */
export async function waitForHttp(
  url: string,
  opts: { proc?: Proc; timeoutMs?: number; intervalMs?: number; headers?: Record<string, string>; failWhen?: () => string | undefined } = {},
) {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  let last = "";
  for (;;) {
    if (opts.proc?.exited()) {
      throw new Error(`${opts.proc.name} exited (code ${opts.proc.exitCode()}) before ${url} was ready. Log ${opts.proc.logFile}:\n${tailLog(opts.proc.logFile)}`);
    }
    const failure = opts.failWhen?.();
    if (failure) throw new Error(failure);
    try {
      const res = await fetch(url, { headers: opts.headers, signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) {
      const log = opts.proc ? `\nLog ${opts.proc.logFile}:\n${tailLog(opts.proc.logFile)}` : "";
      throw new Error(`${url} not ready after ${opts.timeoutMs ?? 120_000} ms (last: ${last})${log}`);
    }
    await sleep(opts.intervalMs ?? 200);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
