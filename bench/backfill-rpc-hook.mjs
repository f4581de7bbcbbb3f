// Loaded into Ponder's process by bench/backfill.ts (`node --import`), before ponder.config.ts:
// points RPC_URL at the bench's logging proxy and keeps the heads subscription on anvil itself
// (the proxy forwards plain HTTP JSON-RPC only).
const proxy = process.env.BENCH_RPC_PROXY_URL;
if (proxy && process.env.RPC_URL) {
  process.env.WS_URL ??= process.env.RPC_URL.replace(/^http/, "ws");
  process.env.RPC_URL = proxy;
}
