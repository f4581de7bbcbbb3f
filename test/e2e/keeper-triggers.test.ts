/**
 * The keeper's trigger executor end to end (real anvil, Ponder, keeper): a take-profit / stop-loss
 * set on chain by a position's owner is fired by the keeper's key once the chain's mark reaches it
 * (the stack's price feed walks the index; the pair sits two ticks either side of the mark, so one
 * of them is reached, and firing it removes its one-cancels-other twin), and a trigger whose
 * position was closed is removed by the keeper (POSITION_CHANGED), nothing placed. The indexed
 * answers (GET /accounts/{id}/triggers, the order's triggerKind) and the chain agree.
 * Wallet: a fresh random one (ether from anvil_setBalance, tokens sent by demo wallet 9).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseEventLogs, parseUnits, zeroHash, type Hex } from "viem";
import { depositTokenAbi, engineAbi, marketAbi, triggerBookAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { sharedStack } from "./helpers/stacks.js";
import { publicClient, waitIndexed, walletClient } from "./helpers/chain.js";
import { chainTrading } from "./helpers/trading.js";
import { integrationClient } from "./helpers/http.js";
import { until } from "./helpers/wait.js";

const usd = (v: string) => parseUnits(v, 6);
const TICK = 10n ** 13n;
const LONG = 0;
const SHORT = 1;
const MARKET = 0;
const TP = 0;
const SL = 1;
type Trigger = { kind: string; status: string; endReason: string | null; orderId: string | null; executor: string | null; oco: boolean };

describe.each([sharedStack()])("keeper: take-profit and stop-loss ($kind)", (s) => {
  const req = integrationClient(s);
  const client = publicClient(s);
  const { engine, triggerBook } = s.deployment.contracts;
  const eur = s.deployment.markets[0]!;
  const keeperAddress = devAccount(KEY_INDEX.keeper).address;
  const key = generatePrivateKey();
  const W = privateKeyToAccount(key);
  const w = walletClient(s, key);
  let id = 0n;

  const send = async (address: Hex, abi: readonly unknown[], functionName: string, args: readonly unknown[]) => {
    const hash = await w.writeContract({ address, abi, functionName, args } as never);
    const r = await client.waitForTransactionReceipt({ hash });
    expect(r.status).toBe("success");
    return r;
  };
  const mark = () => client.readContract({ address: eur.marketAddress, abi: marketAbi, functionName: "markPrice" });
  const size = async () => (await client.readContract({ address: eur.marketAddress, abi: marketAbi, functionName: "getPosition", args: [id] })).sizeQty;
  /**
   * A long of ~100 EUR at market against the stack's maker: sent again until it succeeds (a fresh
   * stack's first quotes may still be coming, and the maker re-quotes between a simulation and
   * the block).
   */
  const openLong = async () => {
    const args = [{
      accountId: id, marketId: eur.marketId, side: LONG, orderType: MARKET, collateral6: usd("20"), leverage: 5n, limitPriceX18: 0n,
      clientKey: zeroHash, timeInForce: 0, reduceOnly: false, expiresAt: 0n,
    }] as const;
    await chainTrading(s).trade(w, { address: engine, abi: engineAbi, functionName: "placeOrder", args }, 60_000);
    expect(await size()).toBeGreaterThan(0n);
  };
  /** Sets a MARKET trigger `ticks` beyond the mark (retried while the mark moves under it). */
  const setTrigger = async (kind: number, ticks: bigint, oco: boolean) => {
    for (let i = 0; ; i++) {
      const m = await mark();
      const price = kind === TP ? (m / TICK + ticks) * TICK : (m / TICK - ticks) * TICK;
      try {
        return await send(triggerBook, triggerBookAbi, "setTrigger", [id, eur.marketId, kind, price, MARKET, 0n, oco]);
      } catch (e) {
        if (i >= 5) throw e; // InvalidTrigger: the mark moved past it between the read and the block
      }
    }
  };
  const triggers = async (minBlock: bigint, status = "all") => {
    const r = await req("GET", `/accounts/${id}/triggers?status=${status}&minBlock=${minBlock}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.triggers as Trigger[];
  };

  beforeAll(async () => {
    await client.request({ method: "anvil_setBalance" as never, params: [W.address, "0x8AC7230489E80000"] as never });
    const funder = walletClient(s, s.wallets[9]!.privateKey);
    await client.waitForTransactionReceipt({
      hash: await funder.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "transfer", args: [W.address, usd("1000")] }),
    });
    await send(s.deployment.contracts.depositToken, depositTokenAbi, "approve", [engine, usd("1000")]);
    await send(engine, engineAbi, "createAccount", [W.address]);
    id = await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [W.address] });
    await send(engine, engineAbi, "deposit", [id, usd("1000")]);
  }, 120_000);

  it("a trigger whose position was closed: the keeper removes it (POSITION_CHANGED), nothing placed", async () => {
    await openLong();
    const set = await setTrigger(SL, 300n, false); // 300 ticks under the mark: not reached here
    // against the maker's bids, sent again until it succeeds (as openLong)
    await chainTrading(s).trade(w, { address: engine, abi: engineAbi, functionName: "closePosition", args: [id, eur.marketId, MARKET, 0n, zeroHash] }, 60_000);
    expect(await size()).toBe(0n);
    const removed = await until("the keeper's removal", async () => {
      const logs = await client.getContractEvents({ address: triggerBook, abi: triggerBookAbi, eventName: "TriggerRemoved", args: { accountId: id }, fromBlock: set.blockNumber });
      return logs.at(-1);
    }, 60_000);
    expect(Number(removed.args.reason)).toBe(1); // POSITION_CHANGED
    expect((await client.getTransaction({ hash: removed.transactionHash! })).from.toLowerCase()).toBe(keeperAddress.toLowerCase());
    await waitIndexed(s, removed.blockNumber!);
    const [t] = await triggers(removed.blockNumber!);
    expect(t).toMatchObject({ kind: "STOP_LOSS", status: "cancelled", endReason: "POSITION_CHANGED", orderId: null });
  });

  it("a pair two ticks either side of the mark: the keeper fires the one reached (the owner's close), its oco twin is removed", async () => {
    await openLong();
    const from = (await setTrigger(TP, 2n, true)).blockNumber;
    await setTrigger(SL, 2n, true);
    const fired = await until("the keeper's execution", async () => {
      const logs = await client.getContractEvents({ address: triggerBook, abi: triggerBookAbi, eventName: "TriggerExecuted", args: { accountId: id }, fromBlock: from });
      return logs.at(-1);
    }, 120_000);
    expect(fired.args.executor!.toLowerCase()).toBe(keeperAddress.toLowerCase());
    const firedKind = Number(fired.args.kind);
    // the mark it fired at reached its price; the position is closed whole
    const rc = await client.getTransactionReceipt({ hash: fired.transactionHash! });
    const placed = parseEventLogs({ abi: marketAbi, logs: rc.logs, eventName: "OrderPlaced" }).find((l) => l.args.orderId === fired.args.orderId);
    expect(placed?.args.side).toBe(SHORT);
    expect(await size()).toBe(0n);
    await waitIndexed(s, rc.blockNumber);
    const all = await triggers(rc.blockNumber);
    const mine = all.find((t) => t.kind === (firedKind === TP ? "TAKE_PROFIT" : "STOP_LOSS"))!;
    const twin = all.find((t) => t.kind === (firedKind === TP ? "STOP_LOSS" : "TAKE_PROFIT"))!;
    expect(mine).toMatchObject({ status: "executed", orderId: fired.args.orderId!.toString(), endReason: null });
    expect(mine.executor!.toLowerCase()).toBe(keeperAddress.toLowerCase());
    expect(twin).toMatchObject({ status: "cancelled", endReason: "TWIN_FIRED" });
    // the order names its trigger
    const orders = await req("GET", `/accounts/${id}/orders?status=filled&limit=100&minBlock=${rc.blockNumber}`);
    expect(orders.status, JSON.stringify(orders.body)).toBe(200);
    const o = (orders.body.data.orders as Array<{ orderId: string; triggerKind: string | null }>).find((x) => x.orderId === fired.args.orderId!.toString());
    expect(o?.triggerKind).toBe(mine.kind);
    const metrics = await (await fetch(`${s.keeperUrl}/metrics`)).text();
    expect(metrics).toMatch(/venue_keeper_trigger_calls_total\{[^}]*result="fired"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/venue_keeper_trigger_calls_total\{[^}]*result="void"[^}]*\} [1-9]/);
  });
});
