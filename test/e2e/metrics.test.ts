/**
 * Prometheus metrics of the relayer, gateway and keeper (issue 11, defect 12): each service's
 * GET /metrics (open in the local profile the stacks run) has the series docs/SERVICES.md lists.
 * Refusal outside local: the unit tests (test/unit/gateway.test.ts, services/keeper/http/app.test.ts).
 */
import { describe, expect, it } from "vitest";
import { stackList } from "./helpers/stacks.js";

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/metrics`, { headers });
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
};

describe.each(stackList().filter((s) => s.gatewayUrl && s.relayerUrl && s.keeperUrl))("metrics ($kind)", (s) => {
  it("the relayer: queue depth per state, oldest pending write, signer balance and nonce, fee bumps, requests", async () => {
    // a request first, so a route series exists
    expect((await fetch(`${s.relayerUrl}/health`, { headers: { "X-Internal-Token": s.internalToken } })).status).toBe(200);
    const m = await scrape(s.relayerUrl!);
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain/);
    expect(m.text).toMatch(/^venue_relayer_requests\{state="CONFIRMED",service="relayer"\} [1-9]\d*$/m); // the stack's setup wrote
    expect(m.text).toMatch(/^venue_relayer_requests\{state="QUEUED",service="relayer"\} \d+$/m);
    expect(m.text).toMatch(/^venue_relayer_oldest_pending_write_age_seconds\{service="relayer"\} [\d.e+-]+$/m);
    expect(m.text).toMatch(/^venue_relayer_signer_balance_eth\{service="relayer"\} [1-9][\d.e+]*$/m);
    expect(m.text).toMatch(/^venue_relayer_signer_nonce\{source="store_next",service="relayer"\} \d+$/m);
    expect(m.text).toMatch(/^venue_relayer_signer_nonce\{source="chain_mined",service="relayer"\} \d+$/m);
    expect(m.text).toMatch(/^venue_relayer_fee_bumps_total\{service="relayer"\} \d+$/m);
    expect(m.text).toMatch(/venue_http_request_duration_seconds_count\{method="GET",route="\/health",status="200",service="relayer"\} [1-9]/);
  });

  it("the gateway: requests by route and status with latency, rate-limit rejections", async () => {
    const key = s.wallets[2]!.apiKey!;
    expect((await fetch(`${s.gatewayUrl}/v1/accounts/${s.wallets[2]!.accountId}`, { headers: { "X-API-Key": key } })).status).toBe(200);
    const m = await scrape(s.gatewayUrl!);
    expect(m.status).toBe(200);
    expect(m.text).toMatch(/venue_http_request_duration_seconds_count\{method="GET",route="\/v1\/accounts\/:id",status="200",service="gateway"\} [1-9]/);
    expect(m.text).toMatch(/venue_http_request_duration_seconds_bucket\{[^}]*le="0.1"[^}]*route="\/v1\/accounts\/:id"[^}]*\} \d+/);
    expect(m.text).toMatch(/^venue_rate_limit_rejections_total\{limiter="gateway",service="gateway"\} \d+$/m);
    expect(m.text).toMatch(/^venue_rate_limit_rejections_total\{limiter="gateway-auth-failures",service="gateway"\} \d+$/m);
  });

  it("the keeper: liquidations attempted, done, pending, failed; requests", async () => {
    const m = await scrape(s.keeperUrl!);
    expect(m.status).toBe(200);
    for (const result of ["attempted", "done", "pending", "failed"]) {
      expect(m.text).toMatch(new RegExp(`^venue_keeper_liquidations_total\\{result="${result}",service="keeper"\\} \\d+$`, "m"));
    }
    expect(m.text).toContain('venue_process_cpu_seconds_total{service="keeper"}');
  });
});
