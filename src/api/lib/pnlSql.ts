/**
 * The PnL query's text (src/api/lib/pnl.ts): per period end, the block B at or before it, and the
 * last row at or before B of each history table the account's state is valued from, each by one
 * index lookup (a market's last stale rate counts only after its last FundingUpdated, by their
 * events' ids, the chain's order: a cancel's stale rate that no accrual has applied yet; its last MarketSessionChanged gives the
 * funding lastUpdate at that event; the session and a reopening's restart of funding come from
 * the market's calendar, src/api/lib/pnl.ts). Plain SQL with `$n` parameters, apart from Ponder's `db`, so that the EXPLAIN
 * test (test/e2e/history.test.ts) checks the very statement the route runs.
 */
export type PnlMarket = { marketId: string; marketAddress: string; positionId: string };

export function pnlPointsQuery(schema: string, accountId: bigint, ends: bigint[], markets: PnlMarket[]): { text: string; values: string[] } {
  const values: string[] = [];
  const p = (v: string) => {
    values.push(v);
    return `$${values.length}`;
  };
  const t = (name: string) => `"${schema.replaceAll('"', "")}"."${name}"`;
  const endsP = p(`{${ends.join(",")}}`);
  const accountP = p(accountId.toString());
  const perMarket = markets.length
    ? `
      CROSS JOIN (VALUES ${markets.map((m) => `(${p(m.marketId)}::text, ${p(m.marketAddress)}::text, ${p(m.positionId)}::text)`).join(", ")}) AS mk(market_id, market_address, position_id)
      LEFT JOIN LATERAL (SELECT size_qty, open_notional_wad, margin_wad, funding_index_x18, realized_pnl_total_wad, funding_paid_total_wad, fees_paid_total_wad
        FROM ${t("position_update_event")} WHERE position_id = mk.position_id AND block_number <= blk.block_number
        ORDER BY block_number DESC, seq DESC LIMIT 1) pu ON true
      LEFT JOIN LATERAL (SELECT rate_x18_per_hour, cumulative_index_x18, premium_x18, sample_bid_x18, sample_ask_x18, timestamp AS last_update, id AS funding_id
        FROM ${t("funding_update_event")} WHERE market_address = mk.market_address AND timestamp <= blk.timestamp
        ORDER BY timestamp DESC, id DESC LIMIT 1) fu ON true
      LEFT JOIN LATERAL (SELECT stale_since, rate_x18_per_hour AS stale_rate_x18_per_hour, id AS stale_id
        FROM ${t("funding_rate_stale_event")} WHERE market_address = mk.market_address AND timestamp <= blk.timestamp
        ORDER BY timestamp DESC, id DESC LIMIT 1) st ON st.stale_id > fu.funding_id
      LEFT JOIN LATERAL (SELECT session, funding_last_update AS session_last_update FROM ${t("market_session_event")}
        WHERE market_id = mk.market_id AND timestamp <= blk.timestamp
        ORDER BY timestamp DESC, seq DESC LIMIT 1) se ON true
      LEFT JOIN LATERAL (SELECT price_x18 AS index_x18, fresh_since, timestamp + (SELECT max_age_seconds FROM ${t("oracle_config")} LIMIT 1) AS fresh_until
        FROM ${t("index_price_event")} WHERE market_id = mk.market_id AND timestamp <= blk.timestamp
        ORDER BY timestamp DESC, id DESC LIMIT 1) ip ON true`
    : "";
  const cols = markets.length
    ? `, mk.market_id, pu.*, fu.*, st.stale_since, st.stale_rate_x18_per_hour, se.session, se.session_last_update, ip.index_x18, ip.fresh_since, ip.fresh_until`
    : "";
  const text = `
    WITH ends AS (SELECT unnest(cast(${endsP} AS numeric[])) AS p),
    blk AS (
      SELECT ends.p, b.block_number, b.timestamp FROM ends
      JOIN LATERAL (SELECT block_number, timestamp FROM ${t("period_end_block")} WHERE timestamp <= ends.p ORDER BY timestamp DESC LIMIT 1) b ON true
    )
    SELECT blk.p, blk.block_number AS b, blk.timestamp AS bt, mg.available_wad, mg.committed_wad ${cols}
    FROM blk
    LEFT JOIN LATERAL (SELECT available_wad, committed_wad FROM ${t("margin_update_event")}
      WHERE account_id = cast(${accountP} AS numeric) AND block_number <= blk.block_number
      ORDER BY block_number DESC, id DESC LIMIT 1) mg ON true
    ${perMarket}`;
  return { text, values };
}
