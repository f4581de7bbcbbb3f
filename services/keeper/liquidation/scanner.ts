/**
 * The keeper's liquidation scan: every open position's health at the latest indexed block; the
 * liquidatable ones go to the relayer (an account with several at once: one account liquidation).
 * A position sent once waits until the indexer has passed the liquidation's block, so a lagging
 * index never sends the same liquidation twice; a mined liquidation that closed 0 (it only cancelled
 * unfillable makers, at most 100 a call) is sent again the same way. An account liquidation that is refused as a whole
 * (every market failed, e.g. no liquidity anywhere) falls back to one liquidation per market, so
 * one market never shields the account's positions in the others. The insurance fund's positions
 * (account 0) go one by one: the contract tops the fund's margin up from its balance, or
 * liquidates the position like any other when the balance cannot.
 */
import type { Address, Hex } from "viem";
import type { Logger } from "pino";
import { roundKey, UnchangedRounds } from "../indexer/unchanged.js";
import type { IndexerReader } from "../indexer/reader.js";
import type { RelayerAnswer, RelayerClient } from "../relayer-client.js";
import { healthAt, type PositionRow } from "./health.js";
import { adlCandidates } from "./adl.js";
import { counter } from "../../../core/metrics.js";

const noProgress = () =>
  counter({
    name: "venue_keeper_liquidations_no_progress_total",
    help: "Mined liquidation calls that closed nothing (they only cancelled makers unable to fill, at most 100 a call; the position is sent again)",
  });
/**
 * Consecutive calls closing nothing after which a position's liquidation is reported as stalled
 * (/health degraded, `stalledLiquidations`): the contract bounds the calls to 1 + ⌈J / 100⌉ for J
 * unfillable orders, each of which costs its placer a 0.50 bond, so 5 means ≥ 400 such orders.
 */
export const STALL_CALLS = 5;

/** How long a position that failed for another reason (no liquidity, relayer down) is left alone. */
const RETRY_AFTER_MS = 5_000;
/** The insurance fund's positions (docs/CONTRACTS.md "Backstop"): liquidated like any other, one by one. */
const FUND_ACCOUNT = 0n;

export type ScanResult = { scanned: number; liquidatable: number; sent: number };

export class LiquidationScanner {
  /** positionId → wait until the indexed block is above this, or until this time (ms). */
  private readonly holds = new Map<Hex, { block: bigint; untilMs: number }>();
  /** positionId → consecutive mined calls that closed nothing (cleared once it closes or is healthy) */
  private readonly zeroCalls = new Map<Hex, number>();
  /** A scan at the indexed block of the previous one finds the same (health is a function of the indexed rows and the block's time; every hold lasts at least until a newer block). */
  private readonly rounds = new UnchangedRounds();
  private lastResult: ScanResult = { scanned: 0, liquidatable: 0, sent: 0 };

  constructor(
    private readonly reader: IndexerReader,
    private readonly relayer: RelayerClient,
    private readonly keeperAddress: Address,
    private readonly log: Logger,
  ) {}

  async scan(): Promise<ScanResult> {
    const block = await this.reader.block();
    const now = Date.now();
    const key = roundKey(block);
    if (this.rounds.unchanged(key, now)) return { ...this.lastResult, sent: 0 };
    const [s, positions] = await Promise.all([this.reader.marketsAt(block), this.reader.openPositions(block)]);
    const due: PositionRow[] = [];
    const liquidatable = new Set<Hex>();
    for (const p of positions) {
      const m = s.markets.get(p.marketId.toLowerCase() as Hex);
      // a closed market liquidates nothing until it reopens (MarketClosed)
      if (!m || m.indexPriceX18 === 0n || m.session === "CLOSED") continue;
      if (!healthAt(p, m, s.block.timestamp).isLiquidatable) continue;
      liquidatable.add(p.positionId);
      const hold = this.holds.get(p.positionId);
      if (hold && (s.block.number <= hold.block || Date.now() < hold.untilMs)) continue;
      due.push(p);
    }
    // a position closed or healthy again is no stall
    for (const id of this.zeroCalls.keys()) if (!liquidatable.has(id)) this.zeroCalls.delete(id);
    const byAccount = new Map<bigint, PositionRow[]>();
    for (const p of due) byAccount.set(p.accountId, [...(byAccount.get(p.accountId) ?? []), p]);

    let sent = 0;
    const h = { callerAddress: this.keeperAddress };
    const unreachable = (e: unknown) => ({ status: 0, body: { error: { code: "UNREACHABLE", message: String(e) } } }) as RelayerAnswer;
    const one = async (p: PositionRow) => {
      // named in case the book and the fund cannot take it all (the market ranks them)
      const m = s.markets.get(p.marketId.toLowerCase() as Hex);
      const adl = m ? adlCandidates(p, positions, m, s.block.timestamp) : [];
      const answer = await this.relayer.liquidatePosition(p.accountId, p.marketId, h, adl).catch(unreachable);
      sent++;
      this.record([p], answer, s.block.number);
    };
    for (const [accountId, ps] of byAccount) {
      // the insurance fund (account 0) is no account to liquidate as a whole: position by position
      if (ps.length === 1 || accountId === FUND_ACCOUNT) {
        for (const p of ps) await one(p);
        continue;
      }
      const answer = await this.relayer.liquidateAccount(accountId, h).catch(unreachable);
      sent++;
      if (answer.status === 0 || (answer.status >= 200 && answer.status < 300) || errorCode(answer) === "NOT_LIQUIDATABLE") {
        this.record(ps, answer, s.block.number);
        continue;
      }
      // the account as a whole was refused: market by market
      for (const p of ps) await one(p);
    }
    if (due.length > 0 || positions.length > 0) {
      this.log.debug({ scanned: positions.length, liquidatable: due.length, block: s.block.number.toString() }, "scan");
    }
    const result = { scanned: positions.length, liquidatable: due.length, sent };
    this.rounds.ran(key, now);
    this.lastResult = result;
    return result;
  }

  /** Positions whose liquidation closed nothing in STALL_CALLS calls or more in a row (for /health). */
  stalled(): { positionId: Hex; calls: number }[] {
    return [...this.zeroCalls].filter(([, n]) => n >= STALL_CALLS).map(([positionId, calls]) => ({ positionId, calls }));
  }

  private record(ps: PositionRow[], a: RelayerAnswer, indexedBlock: bigint) {
    const body = a.body as {
      success?: boolean;
      data?: { blockNumber?: number | string; transactionHash?: string; liquidations?: { closedQuantity?: string; cancelledOrders?: number }[] };
      error?: { code: string; message: string };
    };
    const ids = ps.map((p) => p.positionId);
    if (a.status >= 200 && a.status < 300 && body?.success !== false) {
      // Mined (200/201) or pending (202): hold until the index shows the result.
      const mined = body?.data?.blockNumber !== undefined ? BigInt(body.data.blockNumber) : indexedBlock + 1n;
      for (const id of ids) this.holds.set(id, { block: mined, untilMs: Date.now() + (a.status === 202 ? 30_000 : 0) });
      const ls = body?.data?.liquidations ?? [];
      const cancelledOrders = ls.reduce((n, l) => n + (l.cancelledOrders ?? 0), 0);
      const fields = { positions: ids, status: a.status, tx: body?.data?.transactionHash, block: body?.data?.blockNumber, cancelledOrders };
      // a call that only cleared makers it could not fill (closedQuantity "0"): its cancellations
      // stick, and the position, still liquidatable, is sent again once the index passes the block
      if (ls.length > 0 && ls.every((l) => l.closedQuantity === "0")) {
        noProgress().inc();
        for (const id of ids) this.zeroCalls.set(id, (this.zeroCalls.get(id) ?? 0) + 1);
        this.log.warn(fields, "liquidation closed nothing (cancelled unfillable orders); retrying");
      } else {
        if (a.status !== 202) for (const id of ids) this.zeroCalls.delete(id);
        this.log.info(fields, "liquidation sent");
      }
      return;
    }
    const code = body?.error?.code ?? `HTTP_${a.status}`;
    // NOT_LIQUIDATABLE: the chain disagrees with a stale index (a price moved back): try again
    // once a newer block is indexed. Anything else: back off for a few seconds.
    const untilMs = code === "NOT_LIQUIDATABLE" ? 0 : Date.now() + RETRY_AFTER_MS;
    for (const id of ids) this.holds.set(id, { block: indexedBlock, untilMs });
    this.log.warn({ positions: ids, status: a.status, code, message: body?.error?.message }, "liquidation refused");
  }
}

function errorCode(a: RelayerAnswer): string | undefined {
  return (a.body as { error?: { code?: string } } | undefined)?.error?.code;
}
