/**
 * The dead-man executor: accounts whose dead-man deadline (Engine.setDeadman) has passed and that
 * still hold open orders get them cancelled by the keeper's own key (Engine.cancelOrders: anyone
 * may once the deadline passed; CloseReason DEADMAN, the margin back to the account's available).
 * Candidates come from the index (account.deadman, orders) at the chain's time; an account sent
 * once waits until the index has passed that transaction's block, so a lagging index never sends
 * the same cancel twice. One transaction per account: a single cancelOrders, or Engine.batch of
 * one per market and chunk of 32 — atomic: an item fails only when the account's deadline does not
 * allow the keeper (the same for every item), and an atomic batch's gas estimate covers every item
 * (a non-atomic one never reverts, so the node's estimate may starve an item).
 */
import { parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import type { Logger } from "pino";
import { engineAbi, marketAbi } from "../../../abis/index.js";
import { counter } from "../../../core/metrics.js";
import { closeReasonValue } from "../../../core/schemas/writes.js";
import { cancelOrdersRequest } from "../../../core/chain/cancel-orders.js";
import type { IndexerReader } from "../indexer/reader.js";
import { errorName, type Signer } from "../chain/clients.js";
import { IndexHolds } from "../indexer/holds.js";
import { roundKey, UnchangedRounds } from "../indexer/unchanged.js";

export const CLOSE_REASON_DEADMAN = closeReasonValue("DEADMAN");

const calls = () =>
  counter({ name: "venue_keeper_deadman_calls_total", help: "Dead-man cancel transactions the keeper sent, by result (ok, failed)", labelNames: ["result"] });
const cancelled = () =>
  counter({ name: "venue_keeper_deadman_orders_cancelled_total", help: "Open orders the keeper cancelled past their account's dead-man deadline (CloseReason DEADMAN)" });
const accountsSeen = () =>
  counter({ name: "venue_keeper_deadman_accounts_total", help: "Accounts past their dead-man deadline found with open orders (each time the executor acts on one)" });

export type DeadmanRound = { accounts: number; sent: number; cancelled: number };

export class DeadmanExecutor {
  /** by account id: its cancel's block */
  private readonly holds = new IndexHolds<bigint>();
  private readonly rounds = new UnchangedRounds();

  constructor(
    private readonly reader: IndexerReader,
    private readonly client: PublicClient,
    private readonly signer: Signer,
    private readonly engine: Address,
    private readonly log: Logger,
  ) {}

  async round(): Promise<DeadmanRound> {
    const startedMs = Date.now();
    const block = await this.reader.block();
    const head = await this.client.getBlock({ blockTag: "latest" });
    const now = head.timestamp;
    const key = roundKey(block, head.number);
    if (this.rounds.unchanged(key, startedMs)) return { accounts: 0, sent: 0, cancelled: 0 };
    const rows = await this.reader.deadmanOrders(block, now);
    const byAccount = new Map<bigint, Map<Hex, bigint[]>>();
    for (const r of rows) {
      const acct = BigInt(r.accountId);
      if (this.holds.held(acct, block.number)) continue;
      const m = byAccount.get(acct) ?? new Map<Hex, bigint[]>();
      const key = r.marketId.toLowerCase() as Hex;
      m.set(key, [...(m.get(key) ?? []), BigInt(r.orderId)]);
      byAccount.set(acct, m);
    }
    const out: DeadmanRound = { accounts: byAccount.size, sent: 0, cancelled: 0 };
    this.rounds.ran(key, startedMs);
    for (const [accountId, markets] of byAccount) {
      accountsSeen().inc();
      const req = cancelOrdersRequest(accountId, markets, true);
      try {
        const receipt =
          req.functionName === "cancelOrders"
            ? await this.signer.write({ address: this.engine, abi: engineAbi, functionName: "cancelOrders", args: req.args })
            : await this.signer.write({ address: this.engine, abi: engineAbi, functionName: "batch", args: req.args });
        const n = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrdersCancelled" })
          .filter((e) => e.args.accountId === accountId && Number(e.args.reason) === CLOSE_REASON_DEADMAN)
          .reduce((sum, e) => sum + e.args.orderIds.length, 0);
        this.holds.hold(accountId, receipt.blockNumber);
        calls().inc({ result: "ok" });
        cancelled().inc(n);
        out.sent++;
        out.cancelled += n;
        this.log.info({ accountId: accountId.toString(), orders: n, hash: receipt.transactionHash }, "dead-man: open orders cancelled");
      } catch (e) {
        // e.g. OperatorNotApproved: the deadline is not passed in the next block yet, or was moved
        calls().inc({ result: "failed" });
        this.holds.hold(accountId, block.number);
        this.log.warn({ accountId: accountId.toString(), err: errorName(e) }, "dead-man cancel failed");
      }
    }
    return out;
  }
}
