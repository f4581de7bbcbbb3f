/**
 * The liquidation reads (account health, per market, per account, per position) and actions,
 * computed at the latest indexed block from the indexed tables, plus the keeper's scan that
 * liquidates what it finds through the relayer.
 */
import type { Hex } from "viem";
import { formatWad as formatX18 } from "../../../core/units.js";
import { ApiError } from "../../../core/errors.js";
import type { Health } from "../../../core/math/index.js";
import type { IndexerReader, Snapshot } from "../indexer/reader.js";
import type { IndexedBlock } from "../indexer/sql-client.js";
import type { ForwardHeaders, RelayerAnswer, RelayerClient } from "../relayer-client.js";
import { aggregate, healthAt, markOf, type MarketContext, type PositionRow } from "./health.js";
import {
  accountHealthResponse, blockResponse, healthResponse, liquidationResponse, marginResponse, positionResponse,
} from "./views.js";

const HISTORY_LIMIT = 20;

export class LiquidationService {
  constructor(
    private readonly reader: IndexerReader,
    private readonly relayer: RelayerClient,
  ) {}

  /**
   * Runs `read` at the latest indexed block (≥ minBlock). Ponder may write a block's rows a moment
   * before its checkpoint moves: when a row read is newer than the block, wait for the checkpoint
   * to reach it and read again, so every number is computed at the block the answer names.
   */
  private async consistent<T>(minBlock: bigint | undefined, read: (b: IndexedBlock) => Promise<{ value: T; seen: bigint }>): Promise<T> {
    let want = minBlock ?? 0n;
    for (let attempt = 0; ; attempt++) {
      const block = await this.reader.blockAtLeast(want);
      const { value, seen } = await read(block);
      if (seen <= block.number || attempt >= 4) return value;
      want = seen;
    }
  }

  private marketOf(s: Snapshot, marketId: Hex): MarketContext {
    const m = s.markets.get(marketId.toLowerCase() as Hex);
    if (!m) throw new ApiError("MARKET_NOT_FOUND", `market ${marketId} does not exist`);
    return m;
  }

  private withHealth(s: Snapshot, p: PositionRow): { p: PositionRow; m: MarketContext; h: Health | null } {
    const m = this.marketOf(s, p.marketId);
    return { p, m, h: p.sizeQty === 0n || m.indexPriceX18 === 0n ? null : healthAt(p, m, s.block.timestamp) };
  }

  async position(positionId: Hex, minBlock?: bigint) {
    return this.consistent(minBlock, async (block) => {
      const [s, p, liquidations] = await Promise.all([
        this.reader.marketsAt(block),
        this.reader.position(positionId, block),
        this.reader.liquidations(block, { positionId }, HISTORY_LIMIT),
      ]);
      if (!p) throw new ApiError("POSITION_NOT_FOUND", `position ${positionId} does not exist`);
      const { m, h } = this.withHealth(s, p);
      return {
        value: {
          data: { ...positionResponse(p, m, h), ...blockResponse(s.block), liquidations: liquidations.map(liquidationResponse) },
          block: s.block.number,
        },
        seen: maxOf(s.seenBlock, p.updatedBlock, ...liquidations.map((l) => l.blockNumber)),
      };
    });
  }

  async account(accountId: bigint, minBlock?: bigint) {
    return this.consistent(minBlock, async (block) => {
      const [s, a, positions, liquidations] = await Promise.all([
        this.reader.marketsAt(block),
        this.reader.account(accountId, block),
        this.reader.openPositions(block, { accountId }),
        this.reader.liquidations(block, { accountId }, HISTORY_LIMIT),
      ]);
      if (!a) throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
      const items = positions.map((p) => this.withHealth(s, p));
      const healths = items.flatMap((i) => (i.h ? [i.h] : []));
      const agg = aggregate(healths);
      const value = {
        data: {
          accountId: Number(accountId),
          ...blockResponse(s.block),
          isLiquidatable: agg.isLiquidatable,
          openPositions: items.length,
          liquidatablePositions: agg.liquidatableCount,
          positions: items.map((i) => positionResponse(i.p, i.m, i.h)),
          liquidations: liquidations.map(liquidationResponse),
        },
        block: s.block.number,
      };
      return { value, seen: maxOf(s.seenBlock, a.updatedBlock, ...positions.map((p) => p.updatedBlock), ...liquidations.map((l) => l.blockNumber)) };
    });
  }

  async accountHealth(accountId: bigint, minBlock?: bigint) {
    return this.consistent(minBlock, async (block) => {
      const [s, a, positions] = await Promise.all([
        this.reader.marketsAt(block),
        this.reader.account(accountId, block),
        this.reader.openPositions(block, { accountId }),
      ]);
      if (!a) throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
      const items = positions.map((p) => this.withHealth(s, p));
      const agg = aggregate(items.flatMap((i) => (i.h ? [i.h] : [])));
      const value = {
        data: {
          accountId: Number(accountId),
          owner: a.owner,
          accountAddress: a.accountAddress,
          ...blockResponse(s.block),
          margin: marginResponse(a),
          openPositions: items.length,
          ...accountHealthResponse(agg),
          positions: items.map((i) => ({
            positionId: i.p.positionId,
            marketId: i.p.marketId,
            symbol: i.m.symbol,
            side: i.p.sizeQty > 0n ? "LONG" : "SHORT",
            health: i.h ? healthResponse(i.h) : null,
          })),
        },
        block: s.block.number,
      };
      return { value, seen: maxOf(s.seenBlock, a.updatedBlock, ...positions.map((p) => p.updatedBlock)) };
    });
  }

  /** Open positions of a market, riskiest first (lowest margin ratio), and recent liquidations. */
  async market(marketId: Hex, limit: number, onlyLiquidatable: boolean, minBlock?: bigint) {
    return this.consistent(minBlock, async (block) => {
      const [s, positions, liquidations] = await Promise.all([
        this.reader.marketsAt(block),
        this.reader.openPositions(block, { marketId }),
        this.reader.liquidations(block, { marketId }, HISTORY_LIMIT),
      ]);
      const m = this.marketOf(s, marketId);
      const items = positions.map((p) => this.withHealth(s, p));
      const ratio = (h: Health | null) => (h ? h.marginRatioBps : 2n ** 255n);
      items.sort((a, b) => {
        const d = ratio(a.h) - ratio(b.h);
        return d < 0n ? -1 : d > 0n ? 1 : Number(a.p.accountId - b.p.accountId);
      });
      const liquidatable = items.filter((i) => i.h?.isLiquidatable);
      const mark = m.indexPriceX18 === 0n ? 0n : markOf(m, s.block.timestamp);
      const value = {
        data: {
          marketId: m.marketId,
          symbol: m.symbol,
          isActive: m.isActive,
          ...blockResponse(s.block),
          markPrice: mark.toString(),
          markPriceFormatted: formatX18(mark),
          indexPrice: m.indexPriceX18.toString(),
          indexPriceFormatted: formatX18(m.indexPriceX18),
          maintenanceMarginBps: Number(m.maintenanceMarginBps),
          liquidationFeeBps: Number(m.liquidationFeeBps),
          openPositions: items.length,
          liquidatablePositions: liquidatable.length,
          positions: (onlyLiquidatable ? liquidatable : items).slice(0, limit).map((i) => positionResponse(i.p, i.m, i.h)),
          liquidations: liquidations.map(liquidationResponse),
        },
        block: s.block.number,
      };
      return { value, seen: maxOf(s.seenBlock, ...positions.map((p) => p.updatedBlock), ...liquidations.map((l) => l.blockNumber)) };
    });
  }

  async liquidatePosition(positionId: Hex, h: ForwardHeaders): Promise<RelayerAnswer> {
    const p = await this.reader.position(positionId, await this.reader.block());
    if (!p) throw new ApiError("POSITION_NOT_FOUND", `position ${positionId} does not exist`);
    // The chain decides whether it is liquidatable now: the relayer simulates and answers
    // NOT_LIQUIDATABLE (409) when it is not.
    return this.relayer.liquidatePosition(p.accountId, p.marketId, h);
  }

  async liquidateAccount(accountId: bigint, h: ForwardHeaders): Promise<RelayerAnswer> {
    const a = await this.reader.account(accountId, await this.reader.block());
    if (!a) throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
    return this.relayer.liquidateAccount(accountId, h);
  }
}

const maxOf = (...xs: (bigint | undefined)[]) => xs.reduce<bigint>((a, x) => (x !== undefined && x > a ? x : a), 0n);
