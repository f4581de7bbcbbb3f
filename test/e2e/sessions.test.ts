/**
 * The market calendar (docs/CONTRACTS.md "Weekends and gaps") on a venue of its own with a real
 * Ponder: EUR/USD's sessions follow its on-chain calendar and the chain's time, with no
 * transaction and no event at a switch; GET /markets/{id} (and the /v1 shape in snake_case)
 * derives the session at its block; an opening order in the window is refused with
 * MARKET_REDUCE_ONLY; the local start script's switch (scripts/lib/local-calendar.ts, what
 * `SCHEDULE_ENABLED=false npm start` runs) opens a market left reduce-only at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseError, ContractFunctionRevertedError, type Hex, type PublicClient } from "viem";
import { marketAbi } from "../../abis/index.js";
import { contractError } from "../../core/errors.js";
import { snakeKeys } from "../../core/case.js";
import { NO_CLOSE, type Calendar } from "../../core/calendar.js";
import { applyLocalCalendar } from "../../scripts/lib/local-calendar.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { sessionActions } from "./reads-session.js";
import { mainKind } from "./stack.js";

type Envelope = { success: boolean; data: Record<string, any>; error?: { code: string } };
const SESSION = { OPEN: 0, REDUCE_ONLY: 1, CLOSED: 2 } as const;
const WEEK = 7 * 86_400;

describe.each([mainKind()])("market sessions on %s", (kind) => {
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
  const chainNow = async () => Number((await v.client.getBlock({ blockTag: "latest", cacheTime: 0 } as never)).timestamp);
  const onChainSession = async () =>
    v.client.readContract({ address: v.deployment.markets[0]!.marketAddress as Hex, abi: marketAbi, functionName: "session" });
  /** Sets EUR/USD's calendar (as the timelock, at once: the local engine has no calendar delay). */
  const setCalendar = (c: Calendar) => applyLocalCalendar(v.client as PublicClient, v.rpcUrl, { ...v.deployment, markets: [v.deployment.markets[0]!] }, c);
  /** A calendar whose 15-minute window starts 2–3 minutes from now, closed 30 minutes; its three instants. */
  const soon = async () => {
    const now = await chainNow();
    const pos = (now + 3 * 86_400) % WEEK;
    const closeAtMin = Math.ceil((pos + 120 + 15 * 60) / 60);
    const close = now - pos + closeAtMin * 60;
    return { calendar: { closeAtMin: closeAtMin % (WEEK / 60), windowMin: 15, closedMin: 30 }, windowAt: close - 15 * 60, closeAt: close, reopenAt: close + 30 * 60 };
  };
  /** The next block at `t` (a price update: the indexer sees a block with an event at that second). */
  const at = async (t: number) => {
    await actions.rpc("evm_setNextBlockTimestamp", [t]);
    await actions.setPrice(EUR, "1.0800");
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("sessions");
    EUR = v.deployment.markets[0]!.marketId as Hex;
    actions = sessionActions(v);
    await actions.setPrice(EUR, "1.0800");
  }, 600_000);
  afterAll(async () => v?.stop());

  it("indexes the deployment: no close on the local chain, OPEN, margin × 1, EUR/USD's uplift 3×", async () => {
    const m = await market();
    expect(m.session).toMatchObject({ state: "OPEN", marginUpliftBps: 10_000, closeUpliftBps: 30_000 });
    expect(snakeKeys<Record<string, any>>(m).session).toMatchObject({ state: "OPEN", margin_uplift_bps: 10_000, close_uplift_bps: 30_000 });
  });

  it("REDUCE_ONLY from the calendar's second, with no switch transaction, and an opening order refused with MARKET_REDUCE_ONLY", async () => {
    const s = await soon();
    expect(await setCalendar(s.calendar)).toBe(1);
    expect((await market()).session.state).toBe("OPEN");
    await at(s.windowAt);
    const m = await market();
    expect(m.session).toMatchObject({ state: "REDUCE_ONLY", marginUpliftBps: 30_000, marginUpliftPercent: "300", updatedAt: s.windowAt });
    expect(await onChainSession()).toEqual([SESSION.REDUCE_ONLY, 30_000n, 30_000n]);
    const err = await actions.place(0, EUR, "LONG", "LIMIT", "100", 10, "1.0790").then(() => null, (e: unknown) => e);
    expect(err, "the opening order went through").toBeInstanceOf(BaseError);
    const revert = (err as BaseError).walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError;
    expect(revert.data?.errorName).toBe("MarketReduceOnly");
    const api = contractError(revert.data!.errorName, revert.data!.args);
    expect([api.code, api.status]).toEqual(["MARKET_REDUCE_ONLY", 409]);

    // CLOSED and the reopening come with time alone
    await at(s.closeAt);
    expect((await market()).session).toMatchObject({ state: "CLOSED", marginUpliftBps: 30_000, updatedAt: s.closeAt });
    expect((await onChainSession())[0]).toBe(SESSION.CLOSED);
    await at(s.reopenAt);
    expect((await market()).session).toMatchObject({ state: "OPEN", marginUpliftBps: 10_000, closeUpliftBps: 30_000, updatedAt: s.reopenAt });
    await actions.place(0, EUR, "LONG", "LIMIT", "100", 10, "1.0790"); // trading again
  });

  it("the local start script's switch (SCHEDULE_ENABLED=false) opens a market left reduce-only, at once", async () => {
    const s = await soon();
    await setCalendar(s.calendar);
    await at(s.windowAt + 60);
    expect((await market()).session.state).toBe("REDUCE_ONLY");
    expect(await setCalendar(NO_CLOSE)).toBe(1);
    expect((await onChainSession())[0]).toBe(SESSION.OPEN);
    expect((await market()).session).toMatchObject({ state: "OPEN", marginUpliftBps: 10_000 });
    await actions.setPrice(EUR, "1.0800");
    await actions.place(0, EUR, "LONG", "LIMIT", "100", 10, "1.0790");
    expect(await setCalendar(NO_CLOSE)).toBe(0); // already in force: nothing to do
  });
});
