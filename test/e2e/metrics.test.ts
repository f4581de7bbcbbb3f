/**
 * Prometheus metrics of the relayer, gateway and keeper (issue 11, defect 12): each service's
 * GET /metrics (open in the local profile the stacks run) has the series docs/SERVICES.md lists.
 * Refusal outside local: the unit tests (test/unit/gateway.test.ts, services/keeper/http/app.test.ts).
 */
import { describe, expect, it } from "vitest";
import { sharedStack } from "./helpers/stacks.js";

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of Prometheus' text format (label order is the client's business, not ours). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

async function scrape(url: string) {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  const samples = parse(await res.text());
  /** values of `name` whose labels include `labels`; the test fails if there is none */
  return (name: string, labels: Record<string, string> = {}) => {
    const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeGreaterThan(0);
    return found.map((s) => s.value);
  };
}

describe.each([sharedStack()])("metrics ($kind)", (s) => {
  it("the relayer: queue depth per state, oldest pending write, signer balance and nonce, fee bumps, requests", async () => {
    expect((await fetch(`${s.relayerUrl}/health`, { headers: { "X-Internal-Token": s.internalToken } })).status).toBe(200);
    const series = await scrape(s.relayerUrl!);
    for (const state of ["QUEUED", "SIGNED", "SENT"]) {
      expect(series("venue_relayer_queue_depth", { state, service: "relayer" })[0]).toBeGreaterThanOrEqual(0);
    }
    expect(series("venue_relayer_signer_funds_low")[0]).toBe(0);
    for (const name of ["fee_cap_reached", "noop_replacements", "expired", "cancelled", "refused_out_of_funds"]) {
      expect(series(`venue_relayer_${name}_total`)[0]).toBeGreaterThanOrEqual(0);
    }
    expect(series("venue_relayer_oldest_pending_write_age_seconds")[0]).toBeGreaterThanOrEqual(0);
    expect(series("venue_relayer_signer_balance_eth")[0]).toBeGreaterThan(0); // anvil funds the signer
    const mined = series("venue_relayer_signer_nonce", { source: "chain_mined" })[0]!;
    expect(series("venue_relayer_signer_nonce", { source: "chain_pending" })[0]).toBeGreaterThanOrEqual(mined);
    expect(series("venue_relayer_fee_bumps_total")[0]).toBeGreaterThanOrEqual(0);
    expect(series("venue_http_request_duration_seconds_count", { method: "GET", route: "/health", status: "200" })[0]).toBeGreaterThan(0);
  });

  it("the gateway: requests by route and status with latency, rate-limit rejections", async () => {
    const key = s.wallets[2]!.apiKey!;
    expect((await fetch(`${s.gatewayUrl}/v1/accounts/${s.wallets[2]!.accountId}`, { headers: { "X-API-Key": key } })).status).toBe(200);
    const series = await scrape(s.gatewayUrl!);
    const route = { method: "GET", route: "/v1/accounts/:id", status: "200", service: "gateway" };
    expect(series("venue_http_request_duration_seconds_count", route)[0]).toBeGreaterThan(0);
    expect(series("venue_http_request_duration_seconds_bucket", { ...route, le: "+Inf" })[0]).toBeGreaterThan(0);
    expect(series("venue_rate_limit_rejections_total", { limiter: "gateway" })[0]).toBeGreaterThanOrEqual(0);
    expect(series("venue_rate_limit_rejections_total", { limiter: "gateway-auth-failures" })[0]).toBeGreaterThanOrEqual(0);
  });

  it("the keeper: liquidations attempted, done, pending, failed; requests", async () => {
    const series = await scrape(s.keeperUrl!);
    for (const result of ["attempted", "done", "pending", "failed"]) {
      expect(series("venue_keeper_liquidations_total", { result, service: "keeper" })[0]).toBeGreaterThanOrEqual(0);
    }
    expect(series("venue_process_cpu_seconds_total", { service: "keeper" })[0]).toBeGreaterThan(0);
    // the market maker quoted every market with its batches (Engine.batch), none lost or out of gas
    expect(series("venue_keeper_maker_batches_total", { result: "ok", service: "keeper" })[0]).toBeGreaterThan(0);
    const text = await (await fetch(`${s.keeperUrl}/metrics`)).text();
    const bad = text.split("\n").filter((l) => l.startsWith("venue_keeper_maker_batch_items_failed_total{") && /reason="(empty|lost)"/.test(l) && !/ 0$/.test(l));
    expect(bad).toEqual([]);
  });
});
