/**
 * Whom auto-deleveraging may close when a liquidation gets that far (docs/CONTRACTS.md
 * "Backstop"): the market ranks at most 64 named counterparties itself, so the keeper's job is
 * to name the right ones: every open position on the other side in profit at the mark, best
 * profit × leverage first (the contract's score: profit × value ÷ equity, profit = equity −
 * margin), the first 64. A name that no longer qualifies when the transaction runs is passed over.
 */
import { healthAt, type MarketContext, type PositionRow } from "./health.js";

export const MAX_ADL_CANDIDATES = 64;

export function adlCandidates(target: PositionRow, positions: PositionRow[], m: MarketContext, timestamp: bigint): bigint[] {
  const market = target.marketId.toLowerCase();
  const long = target.sizeQty > 0n;
  const scored: { id: bigint; score: bigint }[] = [];
  for (const p of positions) {
    if (p.marketId.toLowerCase() !== market || p.accountId === target.accountId || p.sizeQty === 0n || p.sizeQty > 0n === long) continue;
    const h = healthAt(p, m, timestamp);
    const profit = h.equityWad - p.marginWad;
    if (profit <= 0n || h.equityWad <= 0n) continue;
    scored.push({ id: p.accountId, score: (profit * h.positionValueWad) / h.equityWad });
  }
  scored.sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : 0));
  return scored.slice(0, MAX_ADL_CANDIDATES).map((s) => s.id);
}
