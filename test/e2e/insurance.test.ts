/**
 * The insurance fund's reads (issue 10 "the venue's own pots") and the mark's components, on a
 * venue of its own with a real Ponder: a donation from a wallet without an account shows in
 * GET /insurance-fund (equal to Engine.insuranceFundWad at the indexed block) and in its history
 * with the donor; GET /markets/{id}/price shows what the mark is made of and equals the contract's
 * markPrice() at the indexed block; the same under /v1 in snake_case behind the API key; bad
 * input is a 400 in the envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Hex } from "viem";
import { engineAbi, marketAbi } from "../../abis/index.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { px, sessionActions, usd6 } from "./reads-session.js";
import { mainKind } from "./stack.js";
import { gatewayOverStandIns } from "../unit/gateway-standins.js";

type Envelope = { success: boolean; data: Record<string, unknown>; error?: { code: string; message: string } };

describe.each([mainKind()])("insurance fund and mark components on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let EUR: Hex;
  const DONOR = 7; // a demo wallet with USDV and no account

  const get = async (path: string) => {
    const res = await fetch(`${ix.url}${path}`, { headers: { "cache-control": "no-cache" } });
    return { status: res.status, block: BigInt(res.headers.get("x-indexed-block") ?? "0"), body: (await res.json()) as Envelope };
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("insurance");
    EUR = v.deployment.markets[0]!.marketId as Hex;
    const { send, place, setPrice } = sessionActions(v);
    await setPrice(EUR, "1.0800");
    await place(1, EUR, "LONG", "LIMIT", "500", 10, "1.0790");
    await place(2, EUR, "SHORT", "LIMIT", "500", 10, "1.0830");
    const { engine, depositToken } = v.deployment.contracts;
    await send(DONOR, "approve", [engine, usd6("2500")], depositToken as Hex, erc20Abi);
    await send(DONOR, "donateInsurance", [usd6("1500")]);
    await send(DONOR, "donateInsurance", [usd6("1000")]);
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));
  }, 600_000);
  afterAll(async () => v?.stop());

  it("GET /insurance-fund equals the Engine's balance at the indexed block, donations counted", async () => {
    const { status, block, body } = await get("/insurance-fund");
    expect(status, JSON.stringify(body)).toBe(200);
    const onChain = await v.client.readContract({ address: v.deployment.contracts.engine as Hex, abi: engineAbi, functionName: "insuranceFundWad", blockNumber: block });
    expect(BigInt(body.data.balance as string)).toBe(onChain);
    expect(body.data.donated).toBe((2_500n * 10n ** 18n).toString());
    expect(body.data.donatedFormatted).toBe("2500");
    expect(body.data.updatedBlock).toBeGreaterThan(0);
  });

  it("GET /insurance-fund/history lists each donation with its donor, newest first, paged by cursor", async () => {
    const first = await get("/insurance-fund/history?limit=1");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const e1 = (first.body.data.events as Array<Record<string, unknown>>)[0]!;
    expect(e1).toMatchObject({ type: "DONATION", delta: (1_000n * 10n ** 18n).toString(), deltaFormatted: "1000", marketId: null });
    expect((e1.donor as string).toLowerCase()).toBe(v.wallet(DONOR).account.address.toLowerCase());
    expect(first.body.data.hasMore).toBe(true);
    const second = await get(`/insurance-fund/history?limit=1&cursor=${first.body.data.nextCursor}`);
    const e2 = (second.body.data.events as Array<Record<string, unknown>>)[0]!;
    expect(e2).toMatchObject({ type: "DONATION", deltaFormatted: "1500" });
    expect(BigInt(e1.balanceAfter as string) - BigInt(e2.balanceAfter as string)).toBe(1_000n * 10n ** 18n);
    expect(second.body.data.hasMore).toBe(false);
  });

  it("GET /markets/{id}/price shows the mark's components and equals the contract's markPrice()", async () => {
    const { status, block, body } = await get(`/markets/${EUR}/price`);
    expect(status, JSON.stringify(body)).toBe(200);
    const d = body.data;
    expect(d.bestBid).toBe(px("1.0790").toString());
    expect(d.bestAsk).toBe(px("1.0830").toString());
    // median(1.08, 1.079, 1.083) = 1.08: a zero sample
    expect(d.premiumSample).toBe("0");
    const index = BigInt(d.indexPrice as string);
    expect(BigInt(d.markPrice as string)).toBe((index * (10n ** 18n + BigInt(d.premium as string))) / 10n ** 18n);
    const market = v.deployment.markets[0]!.marketAddress as Hex;
    const onChain = await v.client.readContract({ address: market, abi: marketAbi, functionName: "markPrice", blockNumber: block });
    expect(BigInt(d.markPrice as string)).toBe(onChain);
    // the sample is the chain's own (FundingUpdated.premiumSampleX18; the view's premiumSampleX18)
    const funding = await v.client.readContract({ address: market, abi: marketAbi, functionName: "funding", blockNumber: block });
    expect(d.premiumSample).toBe(funding.premiumSampleX18.toString());
    expect(typeof d.markClampBps).toBe("number");
    expect(d.averagingPeriodSeconds).toBe(300);
    const m = await get(`/markets/${EUR}`);
    expect(m.body.data.markClampBps).toBe(d.markClampBps);
  });

  it("bad input is a 400 in the envelope", async () => {
    for (const q of ["limit=0", "limit=1001", "limit=x", "cursor=garbage", "from=yesterday", "from=20&to=10", "nope=1"]) {
      const { status, body } = await get(`/insurance-fund/history?${q}`);
      expect(status, q).toBe(400);
      expect(body.success, q).toBe(false);
      expect(body.error?.code, q).toBe("VALIDATION_ERROR");
    }
  });

  it("the gateway serves both under /v1 in snake_case behind the API key", async () => {
    const gw = await gatewayOverStandIns({ INTEGRATION_URL: ix.url, RATE_LIMIT_PER_MINUTE: "100000" });
    try {
      expect((await gw.app.request("/v1/insurance-fund")).status).toBe(401);
      const call = async (path: string) => {
        const res = await gw.app.request(path, { headers: { "X-API-Key": gw.keyA.key } });
        return { status: res.status, body: (await res.json()) as Envelope };
      };
      const fund = await call("/v1/insurance-fund");
      expect(fund.status, JSON.stringify(fund.body)).toBe(200);
      expect(fund.body.data).toMatchObject({ donated_formatted: "2500", fees_withdrawn: "0" });
      const hist = await call("/v1/insurance-fund/history?limit=5");
      expect(hist.status).toBe(200);
      expect((hist.body.data.events as unknown[]).length).toBeGreaterThanOrEqual(2);
      expect(hist.body.data).toHaveProperty("has_more", false);
      expect((await call("/v1/insurance-fund/history?limit=0")).status).toBe(400);
      const price = await call(`/v1/markets/${EUR}/price`);
      expect(price.body.data).toMatchObject({ premium_sample: "0", averaging_period_seconds: 300 });
    } finally {
      await gw.close();
    }
  });

  it("the sample follows the index between updates, as the chain's: the stored bid and ask against the index now", async () => {
    const { send, setPrice } = sessionActions(v);
    const market = v.deployment.markets[0]!.marketAddress as Hex;
    const atBlock = async () => {
      await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));
      const { status, block, body } = await get(`/markets/${EUR}/price`);
      expect(status, JSON.stringify(body)).toBe(200);
      const funding = await v.client.readContract({ address: market, abi: marketAbi, functionName: "funding", blockNumber: block });
      const mark = await v.client.readContract({ address: market, abi: marketAbi, functionName: "markPrice", blockNumber: block });
      expect(body.data.premiumSample).toBe(funding.premiumSampleX18.toString());
      expect(BigInt(body.data.markPrice as string)).toBe(mark);
      return { d: body.data, funding };
    };
    // the index falls below the book (bid 1.0790, ask 1.0830) and a poke takes the sample
    await setPrice(EUR, "1.0760");
    await send(1, "pokeFunding", [EUR]);
    const below = await atBlock();
    expect(below.funding.sampleBidX18).toBe(px("1.0790"));
    expect(below.funding.sampleAskX18).toBe(px("1.0830"));
    expect(BigInt(below.d.premiumSample as string)).toBe(((px("1.0790") - px("1.0760")) * 10n ** 18n) / px("1.0760"));
    // back to 1.0800 with no update since: the same stored bid and ask, the sample of the index now is 0
    await setPrice(EUR, "1.0800");
    const back = await atBlock();
    expect(back.funding.sampleBidX18).toBe(px("1.0790"));
    expect(back.d.premiumSample).toBe("0");
  });
});
