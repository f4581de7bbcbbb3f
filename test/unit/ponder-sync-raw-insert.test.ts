/**
 * patches/ponder+0.16.10+004+venue.patch: the sync store's inserts without drizzle's query builder
 * (ponder/dist/esm/sync-store/raw-insert.js) send the statement and parameters drizzle renders for
 * the same rows (upstream's path): same text, same values, same types (bigints as bigints, NULLs),
 * split at the same parameter limit.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import { describe, expect, it } from "vitest";

// Ponder's internals are not exported (package.json "exports"): loaded by path, typed here
type Row = Record<string, unknown>;
type Statement = { text: string; params: unknown[] };
type RawInsert = { keys: string[]; text: (n: number) => string };
type RawInsertModule = {
  createRawInsert: (table: unknown) => RawInsert;
  buildRawInserts: <T>(insert: RawInsert, items: T[], encode: (item: T) => Row, maxParams: number) => Statement[];
};
type Encoders = Record<"encodeBlock" | "encodeLog" | "encodeTransaction" | "encodeTransactionReceipt" | "encodeTrace", (x: Row) => Row>;
type Tables = Record<"blocks" | "logs" | "transactions" | "transactionReceipts" | "traces", Record<string, unknown>>;
const ponderEsm = new URL("../../node_modules/ponder/dist/esm/sync-store/", import.meta.url);
const load = <T>(file: string) => import(new URL(file, ponderEsm).href) as Promise<T>;
const { createRawInsert, buildRawInserts } = await load<RawInsertModule>("raw-insert.js");
const enc = await load<Encoders>("encode.js");
const S = await load<Tables>("schema.js");

// as Ponder's sync database: node-postgres dialect, snake_case columns
const db = drizzle.mock({ casing: "snake_case" });
type Insertable = { values: (rows: Row[]) => { onConflictDoNothing: (c: { target: unknown[] }) => { toSQL: () => { sql: string; params: unknown[] } } } };
const drizzleInsert = (table: keyof Tables, rows: Row[], target: unknown[]): Statement => {
  const q = (db.insert(S[table] as never) as unknown as Insertable).values(rows).onConflictDoNothing({ target }).toSQL();
  return { text: q.sql, params: q.params };
};

const h = (n: number) => `0x${n.toString(16)}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const block = (n: number, extra: Row = {}): Row => ({
  number: h(n),
  timestamp: h(1_700_000_000 + n),
  hash: hash(n),
  parentHash: hash(n - 1),
  logsBloom: `0x${"0".repeat(512)}`,
  miner: "0xABCDEF0000000000000000000000000000000001",
  gasUsed: h(21_000 * n),
  gasLimit: "0x1c9c380",
  baseFeePerGas: n % 2 ? "0x3b9aca00" : undefined, // NULL for even blocks
  nonce: "0x0000000000000000",
  mixHash: hash(7),
  stateRoot: hash(8),
  receiptsRoot: hash(9),
  transactionsRoot: hash(10),
  sha3Uncles: undefined,
  size: "0x2a3",
  difficulty: "0x0",
  totalDifficulty: n === 1 ? "0xffffffffffffffffffffffffffffffffffff" : undefined, // a bigint beyond 2^64
  extraData: "0x",
  transactions: [],
  ...extra,
});
const tx = (n: number, i: number): Row => ({
  blockNumber: h(n),
  blockHash: hash(n),
  transactionIndex: h(i),
  hash: hash(1000 * n + i),
  from: "0xAAAA000000000000000000000000000000000001",
  to: i === 0 ? null : "0xBBBB000000000000000000000000000000000002", // contract creation: NULL
  input: "0xdeadbeef",
  value: i === 1 ? "0xde0b6b3a7640000" : "0x0",
  nonce: h(i),
  r: hash(1),
  s: hash(2),
  v: i === 0 ? "0x0" : "0x1", // "0x0" is truthy: 0n, not NULL
  type: i === 0 ? "0x0" : "0x2",
  gas: "0x2dc6c0",
  gasPrice: i === 0 ? "0x3b9aca00" : undefined,
  maxFeePerGas: i === 0 ? undefined : "0x174876e800",
  maxPriorityFeePerGas: i === 0 ? undefined : "0x3b9aca00",
  accessList: i === 0 ? undefined : [{ address: "0xbbbb000000000000000000000000000000000002", storageKeys: [hash(3)] }],
});
const receipt = (n: number, i: number): Row => ({
  blockNumber: h(n),
  blockHash: hash(n),
  transactionIndex: h(i),
  transactionHash: hash(1000 * n + i),
  from: "0xAAAA000000000000000000000000000000000001",
  to: i === 0 ? null : "0xBBBB000000000000000000000000000000000002",
  contractAddress: i === 0 ? "0xCCCC000000000000000000000000000000000003" : null,
  logsBloom: `0x${"0".repeat(512)}`,
  gasUsed: "0x5208",
  cumulativeGasUsed: h(21_000 * (i + 1)),
  effectiveGasPrice: "0x3b9aca00",
  status: "0x1",
  type: "0x2",
});
const log = (n: number, i: number): Row => ({
  blockNumber: h(n),
  logIndex: h(i),
  transactionIndex: h(i % 2),
  blockHash: hash(n),
  transactionHash: hash(1000 * n + (i % 2)),
  address: "0xDDDD000000000000000000000000000000000004",
  topics: [hash(100), hash(101), hash(102), hash(103)].slice(0, i % 5), // 0 to 4 topics: NULLs
  data: i === 0 ? "0x" : `0x${"ab".repeat(64)}`,
});
const trace = (n: number, i: number): Row => ({
  trace: {
    index: i,
    type: "CALL",
    from: "0xAAAA000000000000000000000000000000000001",
    to: i === 0 ? undefined : "0xBBBB000000000000000000000000000000000002",
    input: "0x",
    output: i === 0 ? undefined : "0x01",
    value: i === 0 ? undefined : "0x1",
    gas: "0x5208",
    gasUsed: "0x5208",
    error: i === 0 ? "execution reverted\0" : undefined,
    revertReason: i === 0 ? "no\0pe" : undefined,
    subcalls: i,
  },
  transactionHash: hash(1000 * n + i),
});

const chainId = 31337;
const cases = [
  {
    table: "blocks" as const,
    conflict: ["chainId", "number"],
    items: [block(1), block(2), block(3, { nonce: undefined, mixHash: undefined })],
    encode: (b: Row) => enc.encodeBlock({ block: b, chainId }),
  },
  {
    table: "transactions" as const,
    conflict: ["chainId", "blockNumber", "transactionIndex"],
    items: [tx(5, 0), tx(5, 1), tx(6, 0)],
    encode: (t: Row) => enc.encodeTransaction({ transaction: t, chainId }),
  },
  {
    table: "transactionReceipts" as const,
    conflict: ["chainId", "blockNumber", "transactionIndex"],
    items: [receipt(5, 0), receipt(5, 1)],
    encode: (r: Row) => enc.encodeTransactionReceipt({ transactionReceipt: r, chainId }),
  },
  {
    table: "logs" as const,
    conflict: ["chainId", "blockNumber", "logIndex"],
    items: [0, 1, 2, 3, 4].map((i) => log(7, i)),
    encode: (l: Row) => enc.encodeLog({ log: l, chainId }),
  },
  {
    table: "traces" as const,
    conflict: ["chainId", "blockNumber", "transactionIndex", "traceIndex"],
    items: [trace(8, 0), trace(8, 1)],
    encode: ({ trace: t }: Row) => enc.encodeTrace({ trace: { trace: t }, block: { number: h(8) }, transaction: { transactionIndex: h((t as Row).index as number) }, chainId }),
  },
];

describe("Ponder's sync store inserts without drizzle (patch)", () => {
  for (const c of cases) {
    it(`${c.table}: the text and parameters drizzle renders, NULLs and bigints included`, () => {
      const target = c.conflict.map((k) => S[c.table][k]);
      const rows = c.items.map(c.encode);
      const raw = buildRawInserts(createRawInsert(S[c.table]), c.items, c.encode, 16_000);
      expect(raw).toEqual([drizzleInsert(c.table, rows, target)]);
      const params = raw[0]!.params;
      expect(params).toContain(null);
      expect(params.some((p) => typeof p === "bigint")).toBe(true);
    });
  }

  it("splits at the parameter limit as upstream (whole rows per statement), the last one shorter", () => {
    const c = cases.find((x) => x.table === "logs")!;
    const target = c.conflict.map((k) => S.logs[k]);
    const insert = createRawInsert(S.logs);
    const width = insert.keys.length; // 12 columns
    const raw = buildRawInserts(insert, c.items, c.encode, 2 * width + 5); // 2 rows per statement
    expect(raw.map((s) => s.params.length)).toEqual([2 * width, 2 * width, width]);
    const rows = c.items.map(c.encode);
    expect(raw).toEqual([
      drizzleInsert("logs", rows.slice(0, 2), target),
      drizzleInsert("logs", rows.slice(2, 4), target),
      drizzleInsert("logs", rows.slice(4), target),
    ]);
    expect(insert.text(2)).toBe(raw[0]!.text); // kept per row count
  });

  it("sends NULL for a value the encoder leaves undefined", () => {
    const target = [S.logs.chainId, S.logs.blockNumber, S.logs.logIndex];
    const [s] = buildRawInserts(createRawInsert(S.logs), [{}], () => ({ chainId: 1n, data: "0x" }), 16_000);
    expect(s!.params).toEqual([1n, null, null, null, null, null, null, null, null, null, null, "0x"]);
  });
});
