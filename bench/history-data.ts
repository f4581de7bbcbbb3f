/**
 * Generator of the history benchmark's rows (bench/history.ts): `fills` fills written straight
 * into an indexer's tables by INSERT … SELECT over generate_series (the rows never leave the
 * database: 1 million fills in about a minute), following ponder.schema.ts and the handlers'
 * relations: each trade has its two account fills, its maker and taker orders, and the candles
 * are aggregated from the trades. Not events: Ponder's reorg triggers are off for the session
 * (session_replication_role = replica), so the rows are neither reverted nor logged.
 *
 * Distributions (seeded, repeatable): a fill every ~7.7 s on average (3 per block of 23 s) over
 * ~89 days ending a day before now; 70 % on the first market, 30 % on the second; maker orders
 * filled by 3 takers each; 1,000 accounts, the hot account 10001 makes 15 % and takes ~12 % of
 * the fills (the venue's market maker), the others uniformly; exponential sizes; prices wander
 * around each market's level by the tick. Funding: an update per block and market; a settlement
 * on half of the account fills. Transfers (300k) and liquidations (150k) are weighted to the hot
 * account (40 %, 70 %) so that every list of it has a 1,000th page of 100 (unrealistic for those
 * two, on purpose: the target is the depth of a page, not the mix).
 */
export const HOT_ACCOUNT = 10001n;
/** the tables it writes */
export const HISTORY_TABLES = ["account", "trade", "account_fill", "orders", "funding_history", "funding_payment", "transfer", "account_liquidation", "candle"];
export const ACCOUNTS = 1000;

export type Market = { marketId: string; marketAddress: string };

/** The statements, in order; `schema` is the indexer's Postgres schema. */
export function historySql(p: { schema: string; markets: [Market, Market]; fills: number; t0: bigint }): { name: string; sql: string }[] {
  const S = `"${p.schema.replaceAll('"', "")}"`;
  const [m0, m1] = p.markets.map((m) => ({ id: m.marketId.toLowerCase(), address: m.marketAddress.toLowerCase() })) as [{ id: string; address: string }, { id: string; address: string }];
  const groups = Math.ceil(p.fills / 3); // one maker order and one block per group of 3 fills
  const gen = `id LIKE 'g%'`;
  // uniform in [0, 1) from a seeded string: fixed per group (maker, market, price of a maker order)
  const u = (tag: string, x: string) => `((hashtext('${tag}' || ${x})::bigint & 2147483647) / 2147483648.0)`;
  const hex64 = (tag: string, x: string) => `'0x' || md5('${tag}' || ${x}) || md5('${tag}2' || ${x})`;
  const ts = (blk: string) => `(${p.t0} + (${blk}) * 23)`;
  return [
    { name: "session", sql: `SET session_replication_role = replica; SELECT setseed(0.42)` },
    {
      name: "account",
      sql: `INSERT INTO ${S}.account (account_id, owner, account_address, available_wad, committed_wad, total_wad, created_block, created_at, updated_block)
        SELECT ${HOT_ACCOUNT} - 1 + a, '0x' || substr(md5('o' || a) || md5('p' || a), 1, 40), '0x' || substr(md5('a' || a) || md5('b' || a), 1, 40),
          1e22, 0, 1e22, 1, ${p.t0}, 1
        FROM generate_series(1, ${ACCOUNTS}) a`,
    },
    {
      name: "trade",
      sql: `INSERT INTO ${S}.trade (id, market_id, taker_side, price_x18, quantity_qty, notional_wad, maker_order_id, taker_order_id,
          maker_account_id, taker_account_id, maker_fee_wad, taker_fee_wad, block_number, log_index, timestamp, transaction_hash)
        SELECT 'g' || lpad(i::text, 9, '0'), mkt, side, price, qty, div(qty * price, 1e18), 1000000000 + g, 2000000000 + i,
          maker, taker, div(div(qty * price, 1e18) * 2, 10000), div(div(qty * price, 1e18) * 5, 10000),
          1 + g, k * 3, ${ts("g")}, ${hex64("t", "g")}
        FROM (
          SELECT i, g, k, mkt, side, price, qty, maker,
            CASE WHEN t = maker THEN ${HOT_ACCOUNT} + 1 + ((t - ${HOT_ACCOUNT}) % ${ACCOUNTS - 1}) ELSE t END AS taker
          FROM (
            SELECT i, g, k,
              CASE WHEN ${u("k", "g")} < 0.7 THEN '${m0.id}' ELSE '${m1.id}' END AS mkt,
              CASE WHEN ${u("s", "g")} < 0.5 THEN 'LONG' ELSE 'SHORT' END AS side,
              ((CASE WHEN ${u("k", "g")} < 0.7 THEN 10800 ELSE 12700 END) + floor(60 * sin(g / 7000.0)) + floor(${u("p", "g")} * 4))::numeric * 1e14 AS price,
              (1 + floor(-ln(1 - random() * 0.999999) * 200))::numeric * 1e16 AS qty,
              (CASE WHEN ${u("m", "g")} < 0.15 THEN ${HOT_ACCOUNT} ELSE ${HOT_ACCOUNT} + 1 + floor(${u("n", "g")} * ${ACCOUNTS - 1}) END)::numeric AS maker,
              (CASE WHEN random() < 0.14 THEN ${HOT_ACCOUNT} ELSE ${HOT_ACCOUNT} + 1 + floor(random() * ${ACCOUNTS - 1}) END)::numeric AS t
            FROM (SELECT i, (i - 1) / 3 AS g, (i - 1) % 3 AS k FROM generate_series(1, ${p.fills}) i) s
          ) s
        ) s`,
    },
    {
      name: "account_fill",
      sql: `INSERT INTO ${S}.account_fill (id, account_id, market_id, order_id, side, liquidity, price_x18, quantity_qty, notional_wad, fee_wad,
          block_number, log_index, timestamp, transaction_hash)
        SELECT id || ':M', maker_account_id, market_id, maker_order_id, CASE taker_side WHEN 'LONG' THEN 'SHORT' ELSE 'LONG' END, 'MAKER',
          price_x18, quantity_qty, notional_wad, maker_fee_wad, block_number, log_index, timestamp, transaction_hash FROM ${S}.trade WHERE ${gen}
        UNION ALL
        SELECT id || ':T', taker_account_id, market_id, taker_order_id, taker_side, 'TAKER',
          price_x18, quantity_qty, notional_wad, taker_fee_wad, block_number, log_index, timestamp, transaction_hash FROM ${S}.trade WHERE ${gen}`,
    },
    {
      name: "orders",
      sql: `INSERT INTO ${S}.orders (order_id, market_id, account_id, client_key, side, order_type, reduce_only, price_x18, original_qty, filled_qty,
          remaining_qty, cancelled_qty, fill_count, margin_allocated_wad, margin_remaining_wad, margin_returned_wad, status, close_reason, created_block, created_at, updated_at, closed_at, transaction_hash, modification_count, queue_seq)
        SELECT maker_order_id, min(market_id), min(maker_account_id), ${hex64("c", "maker_order_id")},
          CASE min(taker_side) WHEN 'LONG' THEN 'SHORT' ELSE 'LONG' END, 'LIMIT', false, min(price_x18), sum(quantity_qty), sum(quantity_qty),
          0, 0, count(*), div(sum(notional_wad), 10), 0, 0, 'filled', 'FILLED', min(block_number), min(timestamp), max(timestamp), max(timestamp), min(transaction_hash), 0, maker_order_id
        FROM ${S}.trade WHERE ${gen} GROUP BY maker_order_id
        UNION ALL
        SELECT taker_order_id, market_id, taker_account_id, ${hex64("c", "taker_order_id")}, taker_side, 'MARKET', false, price_x18, quantity_qty, quantity_qty,
          0, 0, 1, div(notional_wad, 10), 0, 0, 'filled', 'FILLED', block_number, timestamp, timestamp, timestamp, transaction_hash, 0, taker_order_id
        FROM ${S}.trade WHERE ${gen}`,
    },
    {
      name: "funding_history",
      sql: `INSERT INTO ${S}.funding_history (id, market_address, rate_x18_per_hour, cumulative_index_x18, premium_component_x18, skew_component_x18,
          index_price_x18, mark_price_x18, block_number, log_index, timestamp, transaction_hash)
        SELECT id || ':F', CASE market_id WHEN '${m0.id}' THEN '${m0.address}' ELSE '${m1.address}' END, r, (block_number * 1e12)::numeric, div(r, 2), r - div(r, 2),
          price_x18, price_x18, block_number, 100, timestamp, transaction_hash
        FROM (SELECT *, floor((random() - 0.5) * 2e14)::numeric AS r FROM ${S}.trade WHERE ${gen} AND log_index = 0) s`,
    },
    {
      name: "funding_payment",
      sql: `INSERT INTO ${S}.funding_payment (id, account_id, market_id, position_id, size_qty, payment_wad, funding_index_x18, block_number, log_index, timestamp, transaction_hash)
        SELECT id || ':P', account_id, market_id, ${hex64("q", "account_id || market_id")},
          CASE side WHEN 'LONG' THEN quantity_qty ELSE -quantity_qty END, div(notional_wad * (floor(random() * 20) - 10)::numeric, 100000),
          (block_number * 1e12)::numeric, block_number, log_index + 1, timestamp, transaction_hash
        FROM ${S}.account_fill WHERE ${gen} AND random() < 0.5`,
    },
    {
      name: "transfer",
      sql: `INSERT INTO ${S}.transfer (id, account_id, kind, amount6, available_wad, block_number, log_index, timestamp, transaction_hash)
        SELECT 'gx' || i, CASE WHEN random() < 0.4 THEN ${HOT_ACCOUNT} ELSE ${HOT_ACCOUNT} + 1 + floor(random() * ${ACCOUNTS - 1}) END,
          CASE WHEN random() < 0.7 THEN 'DEPOSIT' ELSE 'WITHDRAWAL' END, (1 + floor(random() * 100000))::numeric * 1e6, (1 + floor(random() * 1e6))::numeric * 1e18,
          1 + b, 200, ${ts("b")}, ${hex64("x", "i")}
        FROM (SELECT i, ((i - 1)::bigint * ${groups}) / 300000 AS b FROM generate_series(1, 300000) i) s`,
    },
    {
      name: "account_liquidation",
      sql: `INSERT INTO ${S}.account_liquidation (id, account_id, market_id, position_id, kind, liquidator, closed_qty, closed_notional_wad, liquidator_fee_wad,
          insurance_fee_wad, bad_debt_wad, remaining_size_qty, block_number, log_index, timestamp, transaction_hash)
        SELECT 'gl' || i, a, mkt, ${hex64("q", "a || mkt")}, CASE WHEN random() < 0.9 THEN 'LIQUIDATION' ELSE 'DELEVERAGE' END,
          '0x' || substr(md5('l' || (i % 7)) || md5('m' || (i % 7)), 1, 40), q, div(q * 108, 100), div(q, 1000), div(q, 500), 0, 0,
          1 + b, 300, ${ts("b")}, ${hex64("y", "i")}
        FROM (SELECT i, ((i - 1)::bigint * ${groups}) / 150000 AS b,
            (CASE WHEN random() < 0.7 THEN ${HOT_ACCOUNT} ELSE ${HOT_ACCOUNT} + 1 + floor(random() * ${ACCOUNTS - 1}) END)::numeric AS a,
            CASE WHEN random() < 0.7 THEN '${m0.id}' ELSE '${m1.id}' END AS mkt, (1 + floor(random() * 1000))::numeric * 1e18 AS q
          FROM generate_series(1, 150000) i) s`,
    },
    ...(
      [
        ["1m", 60],
        ["5m", 300],
        ["15m", 900],
        ["1h", 3600],
        ["4h", 14400],
        ["1d", 86400],
      ] as const
    ).map(([res, len]) => ({
      name: `candle ${res}`,
      sql: `INSERT INTO ${S}.candle (market_id, resolution, period_start, open_x18, high_x18, low_x18, close_x18, base_volume_qty, quote_volume_wad, trade_count, updated_block)
        SELECT market_id, '${res}', ps, (array_agg(price_x18 ORDER BY timestamp, block_number, log_index))[1], max(price_x18), min(price_x18),
          (array_agg(price_x18 ORDER BY timestamp DESC, block_number DESC, log_index DESC))[1], sum(quantity_qty), sum(notional_wad), count(*), max(block_number)
        FROM (SELECT *, timestamp - mod(timestamp, ${len}) AS ps FROM ${S}.trade WHERE ${gen}) s GROUP BY market_id, ps`,
    })),
    {
      name: "analyze",
      sql: HISTORY_TABLES.map((t) => `ANALYZE ${S}.${t}`).join("; "),
    },
  ];
}
