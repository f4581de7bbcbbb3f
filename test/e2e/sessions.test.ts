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
import pino from "pino";
import { KEY_INDEX, devAccount } from "../../core/config.js";
import { Signer } from "../../services/keeper/chain/clients.js";
import { MarketDirectory } from "../../services/keeper/chain/markets.js";
import { SessionScheduler, weekTime } from "../../services/keeper/schedule/schedule.js";

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

  it("the keeper's scheduler follows the weekly FX schedule, driven with explicit times", async () => {
    const log = pino({ level: "silent" });
    const engine = v.deployment.contracts.engine as Hex;
    // the deployer holds SCHEDULE_ROLE like the keeper's key on the local chain
    const signer = new Signer("schedule", devAccount(KEY_INDEX.deployer).privateKey, v.client as never, v.rpcUrl, v.chainId, log);
    const fx = { reduceOnlyAt: weekTime("Fri 20:00"), closeAt: weekTime("Fri 21:00"), reopenAt: weekTime("Sun 21:00") };
    const scheduler = new SessionScheduler(v.client as never, signer, engine, new MarketDirectory(v.client as never, engine), fx, log);
    const at = (iso: string) => Date.parse(iso) / 1000;
    const markets = v.deployment.markets.length;
    expect(await scheduler.round(at("2026-11-27T20:30:00Z"))).toBe(markets);
    expect((await market()).session.state).toBe("REDUCE_ONLY");
    expect(await scheduler.round(at("2026-11-27T20:45:00Z"))).toBe(0); // nothing to change
    expect(await scheduler.round(at("2026-11-28T12:00:00Z"))).toBe(markets);
    expect((await market()).session.state).toBe("CLOSED");
    expect(await scheduler.round(at("2026-11-30T09:00:00Z"))).toBe(markets);
    expect((await market()).session).toMatchObject({ state: "OPEN", marginUpliftBps: 10_000 });
  });
});
