/**
 * The trigger executor: active take-profits and stop-losses (TriggerBook, docs/CONTRACTS.md
 * "Triggers") are fired with the keeper's own key (`executeTrigger`: anyone may; the order it
 * places is the owner's, a reduce-only close of the whole position):
 *  - reached: the chain's mark (`IMarket.markPrice` at the latest block, the figure executeTrigger
 *    compares with) at or beyond the trigger price in the direction it fires;
 *  - void: the indexed position it was set on is gone (flat, turned, or opened again at another
 *    block): firing it removes it (POSITION_CHANGED) and places nothing.
 * Each send is simulated first (Signer.write), so a trigger whose order cannot be placed now (no
 * liquidity within the band, the market closed or cancel-only, an operator's band or budget)
 * costs nothing and is tried again once the index has moved. A trigger sent once waits until the
 * index has passed that transaction's block (IndexHolds).
 */
import { parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import type { Logger } from "pino";
import { marketAbi, triggerBookAbi } from "../../../abis/index.js";
import { counter } from "../../../core/metrics.js";
import { TRIGGER_KIND_NAME, firesUp, triggerId, triggerKindValue, type TriggerKindName } from "../../../core/triggers.js";
import type { ActiveTrigger, IndexerReader } from "../indexer/reader.js";
import type { MarketDirectory } from "../chain/markets.js";
import { errorName, type Signer } from "../chain/clients.js";
import { IndexHolds } from "../indexer/holds.js";
import { roundKey, UnchangedRounds } from "../indexer/unchanged.js";

const calls = () =>
  counter({
    name: "venue_keeper_trigger_calls_total",
    help: "TriggerBook.executeTrigger calls the keeper made, by result: fired (an order placed), void (removed with its position), failed (refused in simulation or reverted)",
    labelNames: ["result"],
  });

export type TriggerRound = { active: number; reached: number; void: number; fired: number; voided: number; failed: number };

/** Whether the indexed position the trigger was set on is gone (TriggerBook.executeTrigger's test, on the index). */
export function positionGone(t: ActiveTrigger): boolean {
  const size = t.positionSize ?? 0n;
  return size === 0n || (size > 0n) !== (t.positionSide === "LONG") || t.positionOpenBlock !== t.openBlock;
}

/** Whether `mark` has reached the trigger (TriggerBook's comparison). */
export function reached(t: Pick<ActiveTrigger, "kind" | "positionSide" | "triggerPriceX18">, mark: bigint): boolean {
  return firesUp(t.kind as TriggerKindName, t.positionSide as "LONG" | "SHORT") ? mark >= t.triggerPriceX18 : mark <= t.triggerPriceX18;
}

export class TriggerExecutor {
  /** by trigger id (position_trigger.id) */
  private readonly holds = new IndexHolds<string>();
  /** the marks are the chain head's: unchanged with it */
  private readonly rounds = new UnchangedRounds();

  constructor(
    private readonly reader: IndexerReader,
    private readonly client: PublicClient,
    private readonly signer: Signer,
    private readonly triggerBook: Address,
    private readonly markets: MarketDirectory,
    private readonly log: Logger,
  ) {}

  async round(): Promise<TriggerRound> {
    const startedMs = Date.now();
    const block = await this.reader.block();
    const key = roundKey(block, (await this.client.getBlock({ blockTag: "latest" })).number);
    if (this.rounds.unchanged(key, startedMs)) return { active: 0, reached: 0, void: 0, fired: 0, voided: 0, failed: 0 };
    const rows = await this.reader.activeTriggers(block);
    const out: TriggerRound = { active: rows.length, reached: 0, void: 0, fired: 0, voided: 0, failed: 0 };
    const addressOf = new Map((await this.markets.list()).map((m) => [m.marketId.toLowerCase(), m.address] as const));
    const marks = new Map<string, bigint | null>();
    const markOf = async (marketId: string): Promise<bigint | null> => {
      if (!marks.has(marketId)) {
        const address = addressOf.get(marketId);
        const mark = address
          ? await this.client.readContract({ address, abi: marketAbi, functionName: "markPrice" }).catch(() => null) // a stale index: no mark now
          : null;
        marks.set(marketId, mark);
      }
      return marks.get(marketId)!;
    };
    const live = new Set<string>();
    for (const t of rows) {
      const id = triggerId(t.accountId, t.marketId, t.kind as TriggerKindName);
      live.add(id);
      if (this.holds.held(id, block.number)) continue;
      const gone = positionGone(t);
      if (!gone) {
        const mark = await markOf(t.marketId.toLowerCase());
        if (mark === null || !reached(t, mark)) continue;
        out.reached++;
      } else out.void++;
      await this.fire(t, id, block.number, out);
    }
    this.holds.retain(live);
    this.rounds.ran(key, startedMs);
    return out;
  }

  private async fire(t: ActiveTrigger, id: string, indexed: bigint, out: TriggerRound): Promise<void> {
    const kind = triggerKindValue(t.kind as (typeof TRIGGER_KIND_NAME)[number]);
    try {
      const receipt = await this.signer.write({
        address: this.triggerBook, abi: triggerBookAbi, functionName: "executeTrigger", args: [t.accountId, t.marketId as Hex, kind],
      });
      this.holds.hold(id, receipt.blockNumber);
      const executed = parseEventLogs({ abi: triggerBookAbi, logs: receipt.logs, eventName: "TriggerExecuted" })[0];
      const result = executed ? "fired" : "void";
      calls().inc({ result });
      if (executed) out.fired++;
      else out.voided++;
      this.log.info({ trigger: id, result, orderId: executed?.args.orderId.toString(), hash: receipt.transactionHash }, "trigger executed");
    } catch (e) {
      // refused in simulation (nothing sent) or reverted: tried again once the index has moved
      calls().inc({ result: "failed" });
      out.failed++;
      this.holds.hold(id, indexed);
      this.log.warn({ trigger: id, err: errorName(e) }, "executeTrigger failed");
    }
  }
}
