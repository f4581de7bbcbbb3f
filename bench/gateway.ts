/**
 * Gateway overhead: the same reads through the gateway (/v1, X-API-Key, snake_case) and
 * straight from the integration API, in one run on one stack (Postgres by default,
 * BENCH_DB=pglite for the embedded store). Prints latency percentiles (sequential requests,
 * direct and gateway interleaved so both see the same machine load), the gateway's overhead,
 * and throughput at a fixed concurrency. Goal: p99 overhead < 2 ms, throughput ≥ 70 % of direct.
 *
 *   npm run bench -- gateway     BENCH_GATEWAY_REQUESTS (default 2000 per route and side),
 *                                BENCH_GATEWAY_SECONDS (5 per throughput run), BENCH_GATEWAY_CONCURRENCY (16)
 */
import { startStack, type DbKind } from "../test/e2e/stack.js";

type Pair = { name: string; direct: string; gateway: string };

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fmt = (ms: number) => ms.toFixed(3).padStart(8);

/** The gateway's own time in a request (its Server-Timing header), apart from the upstream's. */
let ownTimes: number[] = [];

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  const dt = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  const own = /gateway;dur=(-?[\d.]+)/.exec(res.headers.get("server-timing") ?? "");
  if (own && headers["X-API-Key"]) ownTimes.push(Number(own[1]));
  return dt;
}

async function throughput(url: string, headers: Record<string, string>, seconds: number, concurrency: number) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (res.status === 200) done++;
        else failed++;
      }
    }),
  );
  return { rps: done / seconds, failed };
}

export async function run(opts: { requests?: number; seconds?: number; concurrency?: number; kind?: DbKind } = {}) {
  const requests = opts.requests ?? Number(process.env.BENCH_GATEWAY_REQUESTS ?? 2000);
  const seconds = opts.seconds ?? Number(process.env.BENCH_GATEWAY_SECONDS ?? 5);
  const concurrency = opts.concurrency ?? Number(process.env.BENCH_GATEWAY_CONCURRENCY ?? 16);
  const kind = opts.kind ?? ((process.env.BENCH_DB as DbKind | undefined) ?? "postgres");
  process.env.PONDER_TELEMETRY_DISABLED = "true";

  const runId = `bg${Date.now().toString(36).slice(-5)}`;
  console.log(`starting a ${kind} stack…`);
  // The bench must not be throttled by the gateway's own rate limit.
  const stack = await startStack(kind, runId, { env: { RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn" } });
  try {
    const s = stack.info;
    if (!s.gatewayUrl) throw new Error("the stack has no gateway");
    const w = s.wallets[0]!;
    const m = s.deployment.markets[0]!.marketId;
    const key = { "X-API-Key": w.apiKey! };
    const pairs: Pair[] = [
      { name: "markets", direct: `${s.integrationUrl}/markets`, gateway: `${s.gatewayUrl}/v1/markets` },
      { name: "account", direct: `${s.integrationUrl}/accounts/${w.accountId}`, gateway: `${s.gatewayUrl}/v1/accounts/${w.accountId}` },
      { name: "orderbook", direct: `${s.integrationUrl}/markets/${m}/orderbook`, gateway: `${s.gatewayUrl}/v1/markets/${m}/orderbook` },
      { name: "funding", direct: `${s.integrationUrl}/markets/${m}/funding`, gateway: `${s.gatewayUrl}/v1/markets/${m}/funding` },
    ];

    console.log(`\nlatency, ${requests} sequential requests per route and side (ms)`);
    console.log(`${"route".padEnd(10)} ${"side".padEnd(8)} ${"p50".padStart(8)} ${"p90".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(8)}`);
    const summary: { name: string; p50: number; p99: number }[] = [];
    for (const p of pairs) {
      for (let i = 0; i < 200; i++) {
        await timed(p.direct, {});
        await timed(p.gateway, key);
      }
      const d: number[] = [];
      const g: number[] = [];
      ownTimes = [];
      for (let i = 0; i < requests; i++) {
        // alternate the order so neither side always runs second
        if (i % 2) {
          d.push(await timed(p.direct, {}));
          g.push(await timed(p.gateway, key));
        } else {
          g.push(await timed(p.gateway, key));
          d.push(await timed(p.direct, {}));
        }
      }
      d.sort((a, b) => a - b);
      g.sort((a, b) => a - b);
      for (const [side, xs] of [["direct", d], ["gateway", g]] as const) {
        console.log(`${p.name.padEnd(10)} ${side.padEnd(8)} ${fmt(pct(xs, 50))} ${fmt(pct(xs, 90))} ${fmt(pct(xs, 99))} ${fmt(xs[xs.length - 1]!)}`);
      }
      const o50 = pct(g, 50) - pct(d, 50);
      const o99 = pct(g, 99) - pct(d, 99);
      summary.push({ name: p.name, p50: o50, p99: o99 });
      console.log(`${p.name.padEnd(10)} overhead ${fmt(o50)} ${" ".repeat(8)} ${fmt(o99)}`);
      const own = [...ownTimes].sort((a, b) => a - b);
      console.log(`${p.name.padEnd(10)} in-gw    ${fmt(pct(own, 50))} ${fmt(pct(own, 90))} ${fmt(pct(own, 99))}   (gateway's own time, Server-Timing)`);
    }

    console.log(`\nthroughput, ${concurrency} concurrent clients, ${seconds} s per run (requests/s)`);
    const ratios: number[] = [];
    for (const p of pairs) {
      const direct = await throughput(p.direct, {}, seconds, concurrency);
      const gateway = await throughput(p.gateway, key, seconds, concurrency);
      const ratio = gateway.rps / direct.rps;
      ratios.push(ratio);
      console.log(
        `${p.name.padEnd(10)} direct ${direct.rps.toFixed(0).padStart(6)}  gateway ${gateway.rps.toFixed(0).padStart(6)}  ratio ${(ratio * 100).toFixed(1)} %` +
          (direct.failed + gateway.failed ? `  (non-200: ${direct.failed}/${gateway.failed})` : ""),
      );
    }

    const worstP99 = Math.max(...summary.map((x) => x.p99));
    const worstRatio = Math.min(...ratios);
    console.log(
      `\nsummary: worst p99 overhead ${worstP99.toFixed(3)} ms (goal < 2 ms: ${worstP99 < 2 ? "met" : "NOT met"}), ` +
        `worst throughput ${(worstRatio * 100).toFixed(1)} % of direct (goal ≥ 70 %: ${worstRatio >= 0.7 ? "met" : "NOT met"})`,
    );
    return { overhead: summary, throughputRatios: ratios, worstP99, worstRatio };
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
