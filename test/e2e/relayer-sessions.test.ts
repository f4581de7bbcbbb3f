/**
 * A refused order names the reopening (issue 27 item 10): on a private anvil with the relayer,
 * EUR/USD gets a calendar whose window starts soon; in the window an opening order answers
 * 409 MARKET_REDUCE_ONLY and in the close 409 MARKET_CLOSED, each message naming the reopening
 * second (ISO 8601 UTC) that the market's on-chain calendar gives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { PublicClient } from "viem";
import { secondsToISO } from "../../core/units.js";
import { applyLocalCalendar } from "../../scripts/lib/local-calendar.js";
import { relayerCall, rpc, startRelayer, startTestChain, type RelayerProc, type TestChain } from "./relayer-harness.js";

const WEEK = 7 * 86_400;
let chain: TestChain;
let relayer: RelayerProc;

beforeAll(async () => {
  // set up anew: a loaded fixture's clock is not this chain's, and the calendar must start on an OPEN second of it
  chain = await startTestChain({ prepared: 1, fresh: true });
  relayer = await startRelayer(chain, { pgliteDir: join(chain.dir, "relayer-db") }, {}, { name: "sessions" });
}, 600_000);
afterAll(async () => {
  await relayer?.stop();
  await chain?.stop();
});

const chainNow = async () => Number((await chain.client.getBlock({ blockTag: "latest" })).timestamp);
const mineAt = async (t: number) => {
  await rpc(chain.rpcUrl, "evm_setNextBlockTimestamp", [t]);
  await rpc(chain.rpcUrl, "evm_mine");
};

describe("an order refused by the market's session names its reopening", () => {
  it("MARKET_REDUCE_ONLY in the window and MARKET_CLOSED in the close, both with the calendar's reopening", async () => {
    const m = chain.deployment.markets[0]!;
    // a 15-minute window starting 2–3 minutes from now, closed 30 minutes
    const now = await chainNow();
    const pos = (now + 3 * 86_400) % WEEK;
    const closeAtMin = Math.ceil((pos + 120 + 15 * 60) / 60);
    const closeAt = now - pos + closeAtMin * 60;
    const reopenAt = closeAt + 30 * 60;
    const calendar = { closeAtMin: closeAtMin % (WEEK / 60), windowMin: 15, closedMin: 30 };
    expect(await applyLocalCalendar(chain.client as PublicClient, chain.rpcUrl, { ...chain.deployment, markets: [m] }, calendar)).toBe(1);

    const a = chain.accounts[0]!;
    const order = () =>
      relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/orders`, {
        caller: a.address,
        body: { marketId: m.marketId, collateralAmount: "100000000", side: "LONG", leverage: 10, orderType: "LIMIT", limitPrice: "1079000000000000000" },
      });
    const reopening = `it reopens for all orders at ${secondsToISO(reopenAt)}`;

    await mineAt(closeAt - 15 * 60 + 30);
    const inWindow = await order();
    expect([inWindow.status, inWindow.body.error?.code], JSON.stringify(inWindow.body)).toEqual([409, "MARKET_REDUCE_ONLY"]);
    expect(inWindow.body.error.message).toContain(reopening);

    await mineAt(closeAt + 60);
    const inClose = await order();
    expect([inClose.status, inClose.body.error?.code], JSON.stringify(inClose.body)).toEqual([409, "MARKET_CLOSED"]);
    expect(inClose.body.error.message).toContain(reopening);
  });
});
