/**
 * The market schedule (docs/CONTRACTS.md "Weekends and gaps") on a venue of its own with a real
 * Ponder: the deployer (SCHEDULE_ROLE, like the keeper's key) switches EUR/USD to REDUCE_ONLY
 * and CLOSED and back; each state is indexed and shown by GET /markets/{id} (and the /v1 shape in
 * snake_case), and an opening order in the pre-close window is refused with MARKET_REDUCE_ONLY.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseError, ContractFunctionRevertedError, type Hex } from "viem";
import { marketAbi } from "../../abis/index.js";
import { contractError } from "../../core/errors.js";
import { snakeKeys } from "../../core/case.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { sessionActions } from "./reads-session.js";
import { dbKinds } from "./stack.js";

type Envelope = { success: boolean; data: Record<string, any>; error?: { code: string } };
const SESSION = { OPEN: 0, REDUCE_ONLY: 1, CLOSED: 2 } as const;

describe.each(dbKinds())("market sessions on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let EUR: Hex;
  let actions: ReturnType<typeof sessionActions>;

  const market = async () => {
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));
    const res = await fetch(`${ix.url}/markets/${EUR}`, { headers: { "cache-control": "no-cache" } });
    const body = (await res.json()) as Envelope;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.data;
  };
  const setSession = (s: keyof typeof SESSION) => actions.send(-1, "setMarketSession", [EUR, SESSION[s]]);

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("sessions");
    EUR = v.deployment.markets[0]!.marketId as Hex;
    actions = sessionActions(v);
    await actions.setPrice(EUR, "1.0800");
  }, 600_000);
  afterAll(async () => v?.stop());

  it("indexes the deployment's close uplift: OPEN, margin × 1, EUR/USD's uplift 3×", async () => {
    const m = await market();
    expect(m.session).toMatchObject({ state: "OPEN", marginUpliftBps: 10_000, closeUpliftBps: 30_000 });
    expect(snakeKeys<Record<string, any>>(m).session).toMatchObject({ state: "OPEN", margin_uplift_bps: 10_000, close_uplift_bps: 30_000 });
  });

  it("REDUCE_ONLY is indexed with the uplift in force and refuses an opening order with MARKET_REDUCE_ONLY", async () => {
    await setSession("REDUCE_ONLY");
    const m = await market();
    expect(m.session).toMatchObject({ state: "REDUCE_ONLY", marginUpliftBps: 30_000, marginUpliftPercent: "300" });
    expect(m.session.updatedAt).toBeGreaterThan(0);
    const onChain = await v.client.readContract({ address: m.marketAddress as Hex, abi: marketAbi, functionName: "session" });
    expect(onChain).toEqual([SESSION.REDUCE_ONLY, 30_000n, 30_000n]);
    const err = await actions.place(0, EUR, "LONG", "LIMIT", "100", 10, "1.0790").then(() => null, (e: unknown) => e);
    expect(err, "the opening order went through").toBeInstanceOf(BaseError);
    const revert = (err as BaseError).walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(revert.data?.errorName).toBe("MarketReduceOnly");
    const api = contractError(revert.data!.errorName, revert.data!.args);
    expect([api.code, api.status]).toEqual(["MARKET_REDUCE_ONLY", 409]);
  });

  it("CLOSED and the reopening are indexed", async () => {
    await setSession("CLOSED");
    expect((await market()).session).toMatchObject({ state: "CLOSED", marginUpliftBps: 30_000 });
    await setSession("OPEN");
    expect((await market()).session).toMatchObject({ state: "OPEN", marginUpliftBps: 10_000, closeUpliftBps: 30_000 });
    await actions.place(0, EUR, "LONG", "LIMIT", "100", 10, "1.0790"); // trading again
  });
});
