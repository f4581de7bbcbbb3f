/**
 * The clients of the streams benchmark, in a process of their own (bench/streams.ts starts it):
 *   BENCH_MODE=stream  N WebSocket connections, each subscribed to a market's book (depth 10)
 *                      and trades; records when each update of each block arrived
 *   BENCH_MODE=poll    N clients each polling the same two REST routes at BENCH_POLL_HZ
 *   BENCH_MODE=stalled N WebSocket connections that subscribe to the book (depth 100) and trades,
 *                      then never read again while sending a ping every 100 ms (issue 27 item 5:
 *                      the service's send buffer per connection is bounded); counts the
 *                      connections the service closed
 * Prints "READY" once every client is connected (stream: and has its snapshots), records until
 * it reads "GO <seconds>" on stdin, then writes its figures as JSON to BENCH_OUT and prints
 * "RESULT" (a pipe would lose the tail of a large line at exit).
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import WebSocket from "ws";

const mode = process.env.BENCH_MODE ?? "stream";
const n = Number(process.env.BENCH_CLIENTS ?? 1000);
const market = process.env.BENCH_MARKET!;
const now = () => performance.timeOrigin + performance.now();

async function stream() {
  const url = process.env.BENCH_WS_URL!;
  /** block → receive times (ms since the epoch) of every update describing it */
  const byBlock = new Map<string, number[]>();
  let recording = false;
  let messages = 0;
  let bytes = 0;
  let gaps = 0;
  let snapshots = 0;
  const tail = /"seq":(\d+),"blockNumber":"(\d+)"}$/;
  const open = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const seq = new Map<string, number>();
      ws.on("message", (raw: Buffer) => {
        const t = now();
        const s = raw.toString();
        const m = tail.exec(s);
        if (!m) return; // subscribed / pong
        const sub = s.slice(19, s.indexOf('"', 19)); // {"subscriptionId":"s1",…
        const q = Number(m[1]);
        const isSnapshot = s.includes('"type":"snapshot"');
        if (isSnapshot) snapshots++;
        else if (seq.has(sub) && q !== seq.get(sub)! + 1) gaps++;
        seq.set(sub, q);
        if (!recording || isSnapshot) return;
        messages++;
        bytes += raw.length;
        let a = byBlock.get(m[2]!);
        if (!a) byBlock.set(m[2]!, (a = []));
        a.push(t);
      });
      ws.once("open", () => {
        ws.send(JSON.stringify({ op: "subscribe", channel: "orderbook", marketId: market, depth: 10 }));
        ws.send(JSON.stringify({ op: "subscribe", channel: "trades", marketId: market }));
        resolve(ws);
      });
      ws.once("error", reject);
    });
  const conns: WebSocket[] = [];
  for (let i = 0; i < n; i += 50) conns.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, open))));
  while (snapshots < 2 * n) await new Promise((r) => setTimeout(r, 50));
  return {
    start: () => {
      recording = true;
    },
    stop: () => {
      recording = false;
      for (const c of conns) c.terminate();
      return { connections: conns.length, messages, bytes, gaps, byBlock: Object.fromEntries(byBlock) };
    },
  };
}

async function poll() {
  const base = process.env.BENCH_REST_URL!;
  const hz = Number(process.env.BENCH_POLL_HZ ?? 4);
  const paths = [`/markets/${market}/orderbook?depth=10`, `/markets/${market}/trades?limit=50`];
  let recording = false;
  let ok = 0;
  let failed = 0;
  const lat: number[] = [];
  const timers: NodeJS.Timeout[] = [];
  let inflight = 0;
  const tick = () => {
    for (const p of paths) {
      inflight++;
      const t0 = now();
      fetch(base + p)
        .then(async (r) => {
          await r.arrayBuffer();
          if (!recording) return;
          if (r.ok) ok++;
          else failed++;
          lat.push(now() - t0);
        })
        .catch(() => recording && failed++)
        .finally(() => inflight--);
    }
  };
  // clients start spread over one period, as independent pollers would
  for (let i = 0; i < n; i++) setTimeout(() => timers.push(setInterval(tick, 1000 / hz)), (i * 1000) / hz / n);
  await new Promise((r) => setTimeout(r, 1000 / hz + 100));
  return {
    start: () => {
      recording = true;
    },
    stop: () => {
      recording = false;
      for (const t of timers) clearInterval(t);
      lat.sort((a, b) => a - b);
      const pct = (p: number) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))]! : NaN);
      return { clients: n, wantedPerSecond: n * hz * paths.length, ok, failed, inflight, p50Ms: pct(50), p99Ms: pct(99) };
    },
  };
}

async function stalled() {
  const url = process.env.BENCH_WS_URL!;
  let closed = 0;
  const timers: NodeJS.Timeout[] = [];
  const open = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      ws.once("open", () => {
        ws.send(JSON.stringify({ op: "subscribe", channel: "orderbook", marketId: market, depth: 100 }));
        ws.send(JSON.stringify({ op: "subscribe", channel: "trades", marketId: market }));
        // never read again: the service's sends pile up (the kernel's buffers, then its own)
        (ws as unknown as { _socket: { pause(): void } })._socket.pause();
        timers.push(setInterval(() => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ op: "ping" }), () => {}), 100));
        ws.once("close", () => closed++);
        ws.on("error", () => {});
        resolve(ws);
      });
      ws.once("error", reject);
    });
  const conns = await Promise.all(Array.from({ length: n }, open));
  return {
    start: () => {},
    stop: () => {
      for (const t of timers) clearInterval(t);
      const stillOpen = conns.filter((c) => c.readyState === WebSocket.OPEN).length;
      for (const c of conns) c.terminate();
      return { connections: conns.length, closedByService: closed, stillOpen };
    },
  };
}

async function main() {
  const run = mode === "poll" ? await poll() : mode === "stalled" ? await stalled() : await stream();
  const rss = process.memoryUsage().rss;
  process.stdout.write(`READY ${rss}\n`);
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line.startsWith("GO")) {
      const seconds = Number(line.split(" ")[1]);
      const t0 = now();
      run.start();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const out = { ...run.stop(), seconds: (now() - t0) / 1000, clientRssBytes: process.memoryUsage().rss };
      writeFileSync(process.env.BENCH_OUT!, JSON.stringify(out));
      process.stdout.write("RESULT\n", () => process.exit(0));
    }
  }
}

void main();
