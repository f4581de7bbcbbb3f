/**
 * The /sql policy's parse-tree checks (src/api/lib/sqlPolicy.ts): what PGlite answers and what it
 * refuses before anything is planned; the end-to-end refusals are in test/e2e/sql-guard.test.ts.
 */
import { describe, expect, it } from "vitest";
import * as schema from "../../ponder.schema.js";
import { disallowedFunction, parseStatement, pgliteShapeError, SQL_MAX_CHARS, tableCatalog } from "../../src/api/lib/sqlPolicy.js";

const catalog = tableCatalog(schema);
const shape = async (sql: string, params: unknown[] = []) => pgliteShapeError(await parseStatement(sql), params, catalog);

describe("sql policy", () => {
  it("knows the venue tables and their indexed leading columns", () => {
    expect(catalog.get("orders")).toEqual(new Set(["order_id", "account_id", "market_id"]));
    expect(catalog.get("index_price")?.has("market_id")).toBe(true);
  });

  it("PGlite answers one table, an equality on an indexed column, a bounded LIMIT", async () => {
    for (const q of [
      `SELECT * FROM orders WHERE market_id = '0x01' LIMIT 10`,
      `select "order_id" from orders where (orders."account_id" = $1 and status = 'OPEN') limit $2`,
      `SELECT count(*) AS n FROM orders o WHERE o.market_id IN ($1, $2) AND o.size_qty > 0 LIMIT 1`,
      `SELECT * FROM index_price WHERE $1 = market_id ORDER BY updated_block DESC LIMIT 1000`,
    ]) expect(await shape(q, [1n, 5]), q).toBeNull();
  });

  it("PGlite refuses joins, subqueries, unindexed filters, missing or large limits", async () => {
    const refused: [string, RegExp][] = [
      [`SELECT count(*) FROM orders a, orders b, orders c, orders d WHERE a.market_id = '0x01' LIMIT 1`, /one table/],
      [`SELECT * FROM orders a JOIN fill f ON f.maker_order_id = a.order_id WHERE a.market_id = '1' LIMIT 1`, /joins/],
      [`SELECT * FROM orders WHERE client_key = 'never' LIMIT 1`, /indexed column/],
      [`SELECT * FROM orders WHERE market_id = '1' OR client_key = 'x' LIMIT 1`, /indexed column/],
      [`SELECT * FROM orders WHERE market_id = (SELECT max(market_id) FROM orders) LIMIT 1`, /subqueries/],
      [`SELECT * FROM orders WHERE market_id = '1'`, /LIMIT/],
      [`SELECT * FROM orders WHERE market_id = '1' LIMIT 1001`, /LIMIT/],
      [`SELECT * FROM orders WHERE market_id = '1' LIMIT $1`, /LIMIT/],
      [`SELECT * FROM pg_class WHERE oid = 1 LIMIT 1`, /venue table/],
      [`WITH x AS (SELECT 1) SELECT * FROM orders WHERE market_id = '1' LIMIT 1`, /WITH/],
      [`SELECT 1 UNION SELECT 2`, /UNION/],
    ];
    for (const [q, why] of refused) expect(await shape(q, [100_000]), q).toMatch(why);
  });

  it("functions outside the list are found anywhere in the tree, before any planning", async () => {
    expect(disallowedFunction(await parseStatement(`SELECT repeat('x', 900000000)`))).toBe("repeat");
    expect(disallowedFunction(await parseStatement(`SELECT * FROM orders WHERE lower(status) = lpad('a', 100000000) LIMIT 1`))).toBe("lpad");
    expect(disallowedFunction(await parseStatement(`SELECT pg_catalog.count(*) FROM orders`))).toBe("pg_catalog.count");
    expect(disallowedFunction(await parseStatement(`SELECT sum(div(size_qty, 2)), coalesce(max(status), 'x') FROM orders`))).toBeNull();
  });

  it("malformed, multiple and oversized statements are errors", async () => {
    await expect(parseStatement("SELEC 1")).rejects.toThrow(/not valid SQL/);
    await expect(parseStatement("SELECT 1; SELECT 2")).rejects.toThrow(/one statement/);
    await expect(parseStatement("")).rejects.toThrow(/one statement/);
    await expect(parseStatement(`SELECT '${"x".repeat(SQL_MAX_CHARS)}'`)).rejects.toThrow(/at most 5000/);
  });
});
