/**
 * The indexed state served from a worker thread (src/api/lib/stateServer.ts): the bytes of
 * `stateToJson` through the shared memory, answered while the main thread is blocked (a control
 * server in the main thread is not), and the worker ends with its process.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { stateToJson, type IndexedState } from "../../core/indexer/blocks.js";
import { startStateServer, type StateServer } from "../../src/api/lib/stateServer.js";

const A: IndexedState = { number: 41n, timestamp: 1_764_000_000n, hash: `0x${"ab".repeat(32)}`, state: `1764000000${"0".repeat(11)}31337${"0".repeat(14)}41:0x${"ab".repeat(32)}:3` };
const B: IndexedState = { number: 42n, timestamp: 1_764_000_002n, hash: `0x${"cd".repeat(32)}`, state: `1764000002${"0".repeat(11)}31337${"0".repeat(14)}42:0x${"cd".repeat(32)}:0`, reverted: true };

const open: StateServer[] = [];
async function server() {
  const s = startStateServer();
  open.push(s);
  const url = await s.ready;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/blocks\/current$/);
  return { s, url: url! };
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type"), cache: res.headers.get("cache-control") };
};

/** Wall-clock ms with sub-ms precision, comparable across processes. */
const wall = () => performance.timeOrigin + performance.now();

/**
 * A child process GETs `url` in 4 loops for `ms` and reports each answer's start, end (wall
 * clock) and body; `busy` runs in this thread (blocking it) once the child has started, and
 * the window it blocked is returned.
 */
async function readWhileBlocked(url: string, ms: number, busy: () => void) {
  const script = `
    const wall = () => performance.timeOrigin + performance.now();
    const url = process.argv[1];
    const out = [];
    let until;
    const loop = async () => {
      while (performance.now() < until) {
        const start = wall();
        const res = await fetch(url);
        out.push({ status: res.status, text: await res.text(), start, end: wall() });
      }
    };
    // warm (sockets open, fetch loaded) before the block begins
    Promise.all([1, 2, 3, 4].map(() => fetch(url).then((r) => r.text()))).then(() => {
      until = performance.now() + Number(process.argv[2]);
      process.stdout.write("go\\n");
      return Promise.all([loop(), loop(), loop(), loop()]);
    }).then(() => process.stdout.write(JSON.stringify(out) + "\\n"));`;
  const child = spawn(process.execPath, ["-e", script, url, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  let buf = "";
  let started = false;
  const window = { start: 0, end: 0 };
  const answers = await new Promise<{ status: number; text: string; start: number; end: number }[]>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      buf += String(d);
      if (!started && buf.startsWith("go\n")) {
        started = true;
        buf = buf.slice(3);
        // its requests under way, block this thread
        setTimeout(() => {
          window.start = wall();
          busy();
          window.end = wall();
        }, 20);
      }
    });
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(buf)) : reject(new Error(`child exited ${code}`))));
  });
  // answered while this thread was blocked: asked after the block began, answered before it ended
  const during = answers.filter((a) => a.start > window.start && a.end < window.end);
  return { answers, during, window };
}

describe("indexed state from a worker thread", () => {
  it("serves exactly stateToJson's bytes of the last state written; 503 before any and while held", async () => {
    const { s, url } = await server();
    expect((await get(url)).status).toBe(503);
    s.publish(A);
    expect(await get(url)).toEqual({ status: 200, text: stateToJson(A), type: "application/json", cache: "no-store" });
    s.publish(B);
    const b = await get(url);
    expect(b.text).toBe(stateToJson(B));
    expect(JSON.parse(b.text).reverted).toBe(true);
    s.hold(true);
    expect((await get(url)).status).toBe(503);
    s.hold(false);
    expect((await get(url)).text).toBe(stateToJson(B));
    // a state too large for the slot is not served stale: 503
    s.publish({ ...A, state: "x".repeat(5_000) });
    expect((await get(url)).status).toBe(503);
    expect((await fetch(url.replace("/blocks/current", "/other"))).status).toBe(404);
  });

  // timing-based: on a loaded CI machine the child may get too few requests into the 200 ms
  // window (failed once in the full suite, 2026-11-26); a retry measures again, the assertions stay
  it("answers while the main thread is blocked for 200 ms, never a torn state (a server in the main thread waits)", { retry: 2 }, async () => {
    const { s, url } = await server();
    s.publish(A);
    const valid = (a: { status: number; text: string }) => a.status === 200 && (a.text === stateToJson(A) || a.text === stateToJson(B));
    // the main thread busy for 200 ms, writing a new state every millisecond
    const busy = (write: () => boolean) => () => {
      const end = performance.now() + 200;
      let k = 0;
      let at = 0;
      while (performance.now() < end) if (write() || performance.now() - at >= 1) (s.publish(++k % 2 ? B : A), (at = performance.now()));
    };
    const { answers, during, window } = await readWhileBlocked(url, 600, busy(() => false));
    expect(window.end - window.start).toBeGreaterThanOrEqual(200);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(answers.filter((a) => !valid(a))).toEqual([]);
    // writes back to back (no pause): a read that cannot get a whole state answers 503, never torn
    // bytes (without the seqlock's checks this caught torn bytes in 2 of 3 runs)
    const storm = await readWhileBlocked(url, 600, busy(() => true));
    expect(storm.answers.filter((a) => !valid(a) && a.status !== 503)).toEqual([]);

    // the control: the same answer from this thread's own server answers nothing while it is blocked
    const control: Server = createServer((_, res) => res.end(stateToJson(A)));
    await new Promise<void>((r) => control.listen(0, "127.0.0.1", r));
    try {
      const port = (control.address() as { port: number }).port;
      const blocked = await readWhileBlocked(`http://127.0.0.1:${port}/blocks/current`, 600, () => {
        const end = performance.now() + 200;
        while (performance.now() < end);
      });
      expect(blocked.answers.length).toBeGreaterThan(0);
      expect(blocked.during).toEqual([]);
    } finally {
      control.closeAllConnections();
      await new Promise((r) => control.close(r));
    }
  });

  it("ends with its process: a process with only the worker left exits, and the port is closed", async () => {
    const script = `
      import { startStateServer } from ${JSON.stringify(new URL("../../src/api/lib/stateServer.ts", import.meta.url).pathname)};
      const s = startStateServer();
      console.log(await s.ready);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    const code = await new Promise<number | null>((resolve) => {
      const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.on("exit", (c) => (clearTimeout(t), resolve(c)));
    });
    expect(code).toBe(0);
    const url = out.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/blocks\/current$/);
    await expect(fetch(url)).rejects.toThrow();
  });
});
