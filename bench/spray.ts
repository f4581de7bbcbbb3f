/**
 * A client reading many distinct valid URLs of the hot routes (bench/reads.ts, BENCH_SPRAY): the
 * order books of SPRAY_MARKETS at every depth (1..100), then the orders of SPRAY_ACCOUNTS at every
 * page size (1..1000) and status filter, SPRAY_KEYS URLs in all, each read once per
 * SPRAY_EVERY_MS: every one a distinct 200 answer the read service may hold. Its own process, so
 * its reads do not share the measuring process's event loop. Prints how many answered 200 on its
 * first pass.
 */
export {};

const base = process.env.SPRAY_URL!;
const markets = process.env.SPRAY_MARKETS!.split(",");
const accounts = process.env.SPRAY_ACCOUNTS!.split(",");
const keys = Number(process.env.SPRAY_KEYS ?? 1_000);
const everyMs = Number(process.env.SPRAY_EVERY_MS ?? 5_000);

function* paths() {
  for (const m of markets) for (let d = 1; d <= 100; d++) yield `/markets/${m}/orderbook?depth=${d}`;
  for (const a of accounts)
    for (const status of ["", "&status=active", "&status=filled", "&status=cancelled"])
      for (let l = 1; l <= 1_000; l++) yield `/accounts/${a}/orders?limit=${l}${status}`;
}
const urls: string[] = [];
for (const p of paths()) {
  if (urls.length >= keys) break;
  urls.push(base + p);
}

let first = true;
for (;;) {
  const t0 = performance.now();
  let ok = 0;
  // 32 in flight: a steady trickle, not a load test
  for (let i = 0; i < urls.length; i += 32) {
    const answers = await Promise.all(urls.slice(i, i + 32).map((u) => fetch(u).then(async (r) => (await r.arrayBuffer(), r.status), () => 0)));
    ok += answers.filter((s) => s === 200).length;
  }
  if (first) console.log(JSON.stringify({ keys: urls.length, ok }));
  first = false;
  const left = everyMs - (performance.now() - t0);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}
