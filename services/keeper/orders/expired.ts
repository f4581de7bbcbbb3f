/**
 * The expired-order remover: resting good-til-time orders at or past their expiry are removed
 * with Market.removeExpired (anyone may; each removed order's 0.50 bond goes to the caller, the
 * keeper's wallet; CloseReason EXPIRED), in chunks of 32 per transaction.
 * The candidates are the index's resting orders whose `expires_at` is at or before the chain's
 * latest timestamp (`IndexerReader.expiredOrders`).
 */
import { parseEventLogs, type Address, type PublicClient } from "viem";
import type { Logger } from "pino";
import { marketAbi } from "../../../abis/index.js";
import { counter } from "../../../core/metrics.js";
import { MAX_BATCH_ITEMS, closeReasonValue } from "../../../core/schemas/writes.js";
import type { IndexerReader } from "../indexer/reader.js";
import type { MarketDirectory } from "../chain/markets.js";
import { errorName, type Signer } from "../chain/clients.js";
import { IndexHolds } from "../indexer/holds.js";
import { roundKey, UnchangedRounds } from "../indexer/unchanged.js";

export const CLOSE_REASON_EXPIRED = closeReasonValue("EXPIRED");

const calls = () =>
  counter({ name: "venue_keeper_expired_calls_total", help: "Market.removeExpired transactions the keeper sent, by result (ok, failed)", labelNames: ["result"] });
const removed = () =>
  counter({ name: "venue_keeper_expired_orders_removed_total", help: "Expired good-til-time orders the keeper removed (CloseReason EXPIRED; their bonds to the keeper)" });

export type ExpiryRound = { candidates: number; sent: number; removed: number };

export class ExpiredOrderRemover {
  /** by order id: the block of its removal attempt */
  private readonly holds = new IndexHolds<bigint>();
  private readonly rounds = new UnchangedRounds();

  constructor(
    private readonly reader: IndexerReader,
    private readonly client: PublicClient,
    private readonly signer: Signer,
    private readonly markets: MarketDirectory,
    private readonly log: Logger,
  ) {}

  /** Resting orders whose expiry is at or before the chain head's time, by market address (none while the index and the head stand still). */
  private async expiredCandidates(): Promise<Map<Address, bigint[]>> {
    const startedMs = Date.now();
    const block = await this.reader.block();
    const head = await this.client.getBlock({ blockTag: "latest" });
    const key = roundKey(block, head.number);
    if (this.rounds.unchanged(key, startedMs)) return new Map();
    const rows = await this.reader.expiredOrders(block, head.timestamp);
    const addressOf = new Map((await this.markets.list()).map((m) => [m.marketId.toLowerCase(), m.address] as const));
    const out = new Map<Address, bigint[]>();
    const live = new Set<bigint>();
    for (const r of rows) {
      const id = BigInt(r.orderId);
      live.add(id);
      if (this.holds.held(id, block.number)) continue;
      const address = addressOf.get(r.marketId.toLowerCase());
      if (address) out.set(address, [...(out.get(address) ?? []), id]);
    }
    this.holds.retain(live);
    this.rounds.ran(key, startedMs);
    return out;
  }

  async round(): Promise<ExpiryRound> {
    const byMarket = await this.expiredCandidates();
    const out: ExpiryRound = { candidates: [...byMarket.values()].reduce((a, v) => a + v.length, 0), sent: 0, removed: 0 };
    for (const [address, ids] of byMarket) {
      for (let i = 0; i < ids.length; i += MAX_BATCH_ITEMS) {
        const chunk = ids.slice(i, i + MAX_BATCH_ITEMS);
        try {
          const receipt = await this.signer.write({ address, abi: marketAbi, functionName: "removeExpired", args: [chunk] });
          const n = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderClosed" }).filter((e) => Number(e.args.reason) === CLOSE_REASON_EXPIRED).length;
          for (const id of chunk) this.holds.hold(id, receipt.blockNumber);
          calls().inc({ result: "ok" });
          removed().inc(n);
          out.sent++;
          out.removed += n;
          this.log.info({ market: address, orders: n, hash: receipt.transactionHash }, "expired orders removed");
        } catch (e) {
          calls().inc({ result: "failed" });
          const b = await this.reader.block().catch(() => null);
          if (b) for (const id of chunk) this.holds.hold(id, b.number);
          this.log.warn({ market: address, err: errorName(e) }, "removeExpired failed");
        }
      }
    }
    return out;
  }
}
