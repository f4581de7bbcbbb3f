/**
 * The read answers against golden files (test/e2e/golden/*.json): hot reads, history lists, PnL,
 * candles, exports and their errors, on both surfaces (the unversioned integration API: Ponder's
 * routes and the read service; the gateway's /v1 in snake_case), for one deterministic state: the
 * scripted session (reads-session.ts) on a venue with a fixed chain clock (reads-env.ts `clock`),
 * so every timestamp, funding accrual, id and block number is the same on every run and on both
 * databases. Each answer must be the golden file's status, X-Indexed-Block and bytes (the body is
 * stored parsed for readable diffs; the served text must be exactly its JSON.stringify).
 *
 * The golden files were recorded before the read model was made one (issue 28), from the code of
 * that time; a change of an answer is a documented fix, recorded again with
 * `GOLDEN_UPDATE=1 E2E_DB=pglite npx vitest run --project e2e test/e2e/reads-golden.test.ts`
 * (E2E_DB=both: recorded on PGlite, compared on Postgres) and reviewed in the diff. A missing golden file fails the run (never a silent pass).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../core/config.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { runSession } from "./reads-session.js";
import { hotErrors, hotOk, UNKNOWN_MARKET } from "./helpers/hot-urls.js";
import { getOnce } from "./helpers/http.js";
import { dbKinds } from "./stack.js";
import { gatewayOverStandIns } from "../unit/gateway-standins.js";

/** Wednesday 2026-01-07 12:00 UTC: a weekday (the local calendar never closes, but a fixed one may). */
export const GOLDEN_CLOCK = 1_767_787_200;
const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), "golden");
const UPDATE = process.env.GOLDEN_UPDATE === "1";

type Answer = { status: number; block: string | null; type: string; body: unknown };
type Golden = Record<string, Answer>;

const parse = (text: string, type: string): unknown => (type.includes("json") && !type.includes("ndjson") ? JSON.parse(text) : text);
const bytesOf = (a: Answer) => (typeof a.body === "string" ? a.body : JSON.stringify(a.body));

describe.each(dbKinds())("golden answers on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let rd: { url: string };
  let gw: Awaited<ReturnType<typeof gatewayOverStandIns>>;
  /** value → template name: a URL is recorded with its ids as `{EUR}`, `{a0}`… (a path segment or query value equal to one) */
  const names = new Map<string, string>();
  const template = (url: string) => {
    const qi = url.indexOf("?");
    const name = (v: string) => (names.has(v) ? `{${names.get(v)}}` : v);
    // an id: the segment after `accounts`, `markets` or `positions`, the value of a market filter
    const segs = (qi < 0 ? url : url.slice(0, qi)).split("/");
    const path = segs.map((seg, i) => (["accounts", "markets", "positions"].includes(segs[i - 1]!) ? name(seg) : seg)).join("/");
    if (qi < 0) return path;
    return `${path}?${url.slice(qi + 1).split("&").map((kv) => {
      const i = kv.indexOf("=");
      return i < 0 || !["marketId", "market_id"].includes(kv.slice(0, i)) ? kv : `${kv.slice(0, i)}=${name(kv.slice(i + 1))}`;
    }).join("&")}`;
  };

  const at = async (base: string, path: string, headers: Record<string, string> = {}): Promise<Answer & { text: string }> => {
    const res = await getOnce(`${base}${path}`, { headers });
    const text = await res.text();
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!;
    return { status: res.status, block: res.headers.get("x-indexed-block"), type, body: parse(text, type), text };
  };
  const atGateway = async (path: string, headers: Record<string, string> = {}): Promise<Answer & { text: string }> => {
    const res = await gw.app.request(path, { headers: { "X-API-Key": gw.keyA.key, ...headers } });
    const text = await res.text();
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!;
    return { status: res.status, block: res.headers.get("x-indexed-block"), type, body: parse(text, type), text };
  };

  beforeAll(async () => {
    v = await startVenue(kind, { clock: GOLDEN_CLOCK });
    ix = await v.startIndexer("golden");
    await runSession(v);
    const head = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, head);
    rd = await v.startReads(ix);
    await waitForBlock(rd.url, head);
    gw = await gatewayOverStandIns({ INTEGRATION_URL: rd.url, RATE_LIMIT_PER_MINUTE: "100000" });
    const [EUR, GBP] = v.deployment.markets.map((m) => m.marketId);
    names.set(EUR!, "EUR").set(GBP!, "GBP").set(UNKNOWN_MARKET, "UNKNOWN");
    v.accountIds.forEach((id, i) => names.set(id.toString(), `a${i}`));
  }, 600_000);
  afterAll(async () => {
    await gw?.close();
    await v?.stop();
  });

  /** The unversioned API's URLs (the read service's and Ponder's) and the gateway's, with the headers each is read with. */
  async function urls() {
    const [EUR, GBP] = v.deployment.markets.map((m) => m.marketId) as [string, string];
    const a = v.accountIds.map(String);
    const page1 = (await at(ix.url, `/accounts/${a[0]}/orders?limit=1`)).body as { data: { nextCursor: string } };
    const ids = { EUR, GBP, acct: v.accountIds[0]!, a3: v.accountIds[3]!, cursor: page1.data.nextCursor };
    const fills1 = (await at(ix.url, `/accounts/${a[0]}/fills?limit=2`)).body as { data: { nextCursor: string } };
    const api: [string, Record<string, string>?][] = [
      ...hotOk(ids).map((u) => [u] as [string]),
      ...hotErrors(ids).map((u) => [u] as [string]),
      [`/accounts/by-address/${devAccount(0).address}`],
      [`/accounts/by-address/0x${"12".repeat(20)}`],
      ["/insurance-fund"],
      ["/insurance-fund/history"],
    ];
    for (const m of [EUR, GBP]) {
      api.push([`/markets/${m}/trades`], [`/markets/${m}/trades?limit=3`], [`/markets/${m}/funding/history`]);
      for (const r of ["1m", "1h", "1d"]) api.push([`/markets/${m}/candles?resolution=${r}&limit=20`]);
    }
    api.push([`/markets/${EUR}/trades?from=${GOLDEN_CLOCK + 60}&to=${GOLDEN_CLOCK + 7_300}`]);
    for (const id of a) {
      for (const l of ["fills", "funding-payments", "transfers", "liquidations", "orders/history"]) api.push([`/accounts/${id}/${l}`]);
      api.push([`/accounts/${id}/pnl?resolution=1h`], [`/accounts/${id}/pnl?resolution=1h&limit=1`]);
    }
    api.push(
      [`/accounts/${a[0]}/fills?limit=2`],
      [`/accounts/${a[0]}/fills?limit=2&cursor=${fills1.data.nextCursor}`],
      [`/accounts/${a[0]}/fills?marketId=${GBP}`],
      [`/accounts/${a[0]}/fills`, { accept: "text/csv" }],
      [`/accounts/${a[2]}/transfers`, { accept: "application/x-ndjson" }],
      // history errors
      [`/markets/${UNKNOWN_MARKET}/trades`],
      ["/accounts/999999/fills"],
      [`/accounts/${a[0]}/fills?cursor=nope!`],
      [`/accounts/${a[0]}/fills?from=20&to=10`],
      [`/accounts/${a[0]}/pnl?resolution=15m`],
      [`/markets/${EUR}/candles?resolution=1h&limit=0`],
    );
    const v1: [string, Record<string, string>?][] = [
      ["/v1/markets"],
      [`/v1/markets/${EUR}`],
      [`/v1/markets/${EUR}/orderbook`],
      [`/v1/markets/${EUR}/orderbook?depth=1`],
      [`/v1/markets/${EUR}/funding`],
      [`/v1/markets/${EUR}/price`],
      [`/v1/markets/${GBP}/price`],
      [`/v1/markets/${UNKNOWN_MARKET}`],
      ["/v1/insurance-fund"],
      ["/v1/insurance-fund/history"],
      ["/v1/accounts/999999"],
    ];
    for (const id of [a[0], a[3]]) {
      v1.push(
        [`/v1/accounts/${id}`],
        [`/v1/accounts/${id}/orders`],
        [`/v1/accounts/${id}/orders?status=active&limit=2`],
        [`/v1/accounts/${id}/positions/${EUR}`],
        [`/v1/accounts/${id}/positions/${EUR}/funding`],
        [`/v1/accounts/${id}/fills`],
        [`/v1/accounts/${id}/funding-payments`],
        [`/v1/accounts/${id}/transfers`],
        [`/v1/accounts/${id}/liquidations`],
        [`/v1/accounts/${id}/orders/history`],
        [`/v1/accounts/${id}/pnl?resolution=1h`],
      );
    }
    v1.push(
      [`/v1/accounts/${a[3]}/liquidations`],
      [`/v1/markets/${EUR}/trades?limit=4`],
      [`/v1/markets/${EUR}/candles?resolution=1h`],
      [`/v1/markets/${EUR}/funding/history`],
      [`/v1/accounts/${a[0]}/fills`, { accept: "text/csv" }],
    );
    return { api, v1 };
  }

  const keyOf = (url: string, headers?: Record<string, string>) => template(url) + (headers?.accept ? ` [${headers.accept}]` : "");

  /** The golden file `name`, or (GOLDEN_UPDATE=1) records it from `answers`. */
  function golden(name: string, answers: Golden): Golden {
    const file = join(GOLDEN_DIR, `${name}.json`);
    // recorded by the first database kind of the run; the others compare with it
    if (UPDATE && kind === dbKinds()[0]) {
      mkdirSync(GOLDEN_DIR, { recursive: true });
      writeFileSync(file, JSON.stringify(answers, null, 1) + "\n");
    }
    expect(existsSync(file), `${file} is missing: record it with GOLDEN_UPDATE=1`).toBe(true);
    return JSON.parse(readFileSync(file, "utf8")) as Golden;
  }

  const expectGolden = (label: string, key: string, got: Answer & { text: string }, want: Answer | undefined) => {
    expect(want, `${label} ${key}: not in the golden file`).toBeDefined();
    expect([label, key, got.status, got.block, got.type], got.text.slice(0, 300)).toEqual([label, key, want!.status, want!.block, want!.type]);
    expect(got.text, `${label} ${key}`).toBe(bytesOf(want!));
  };

  it("the integration API (the read service and Ponder's routes) answers the golden bytes: hot reads, history, PnL, exports, errors", async () => {
    const { api } = await urls();
    const recorded: Golden = {};
    const answers = new Map<string, Answer & { text: string }>();
    for (const [url, headers] of api) {
      const key = keyOf(url, headers);
      const ponder = await at(ix.url, url, { ...headers, "Cache-Control": "no-cache" });
      recorded[key] = { status: ponder.status, block: ponder.block, type: ponder.type, body: ponder.body };
      answers.set(key, ponder);
    }
    const want = golden("api", recorded);
    expect(Object.keys(want).sort()).toEqual(Object.keys(recorded).sort());
    for (const [url, headers] of api) {
      const key = keyOf(url, headers);
      expectGolden("ponder", key, answers.get(key)!, want[key]);
      expectGolden("reads", key, await at(rd.url, url, headers ?? {}), want[key]);
      // held by the read service now: the copy is the same bytes
      if (!headers) expectGolden("reads (held)", key, await at(rd.url, url), want[key]);
    }
  });

  it("the gateway's /v1 answers the golden snake_case bytes", async () => {
    const { v1 } = await urls();
    const recorded: Golden = {};
    for (const [url, headers] of v1) {
      const r = await atGateway(url, headers);
      recorded[keyOf(url, headers)] = { status: r.status, block: r.block, type: r.type, body: r.body };
    }
    const want = golden("v1", recorded);
    expect(Object.keys(want).sort()).toEqual(Object.keys(recorded).sort());
    for (const [url, headers] of v1) {
      const key = keyOf(url, headers);
      expectGolden("gateway", key, await atGateway(url, headers), want[key]);
    }
  });
  it("the gateway's OpenAPI document (its snake_case schemas) describes each of its /v1 answers: every field documented, every required one present", async () => {
    const { v1 } = await urls();
    const doc = (await (await gw.app.request("/v1/openapi.json")).json()) as OpenApiDoc;
    const routes = Object.entries(doc.paths).map(([path, ops]) => ({ re: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`), ops }));
    let checked = 0;
    for (const [url, headers] of v1) {
      if (headers?.accept) continue; // exports are text
      const r = await atGateway(url);
      const path = url.split("?")[0]!;
      const route = routes.find((x) => x.re.test(path));
      expect(route, `${url}: no documented path`).toBeDefined();
      const schema = route!.ops.get?.responses?.[String(r.status)]?.content?.["application/json"]?.schema;
      expect(schema, `${url}: status ${r.status} not documented`).toBeDefined();
      expect(mismatches(doc, schema!, r.body, "body"), url).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
});

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  nullable?: boolean;
};
type OpenApiDoc = {
  paths: Record<string, { get?: { responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> } }>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/** Where `value` departs from `schema` (the parts OpenAPI documents: types, fields, required fields, enums), as readable paths. */
function mismatches(doc: OpenApiDoc, schema: JsonSchema, value: unknown, at: string): string[] {
  if (schema.$ref) return mismatches(doc, doc.components!.schemas![schema.$ref.split("/").pop()!]!, value, at);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.some((s) => mismatches(doc, s, value, at).length === 0) ? [] : [`${at}: matches none of its alternatives`];
  if (schema.allOf) return schema.allOf.flatMap((s) => mismatches(doc, { ...s, additionalProperties: true }, value, at));
  if (value === null) return schema.nullable || [schema.type].flat().includes("null") ? [] : [`${at}: null`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`];
  if (schema.const !== undefined && schema.const !== value) return [`${at}: not ${JSON.stringify(schema.const)}`];
  const types = [schema.type].flat().filter((t): t is string => !!t);
  const actual = Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (types.length && !types.some((t) => t === actual || (t === "number" && actual === "integer"))) return [`${at}: ${actual}, documented ${types.join("|")}`];
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => mismatches(doc, schema.items!, v, `${at}[${i}]`)) : [];
  if (typeof value !== "object") return [];
  const obj = value as Record<string, unknown>;
  const props = schema.properties ?? {};
  const out = (schema.required ?? []).filter((k) => !(k in obj)).map((k) => `${at}.${k}: required, missing`);
  for (const [k, v] of Object.entries(obj)) {
    if (props[k]) out.push(...mismatches(doc, props[k]!, v, `${at}.${k}`));
    else if (schema.additionalProperties === undefined || schema.additionalProperties === false) {
      if (schema.properties) out.push(`${at}.${k}: not documented`);
    } else if (typeof schema.additionalProperties === "object") out.push(...mismatches(doc, schema.additionalProperties, v, `${at}.${k}`));
  }
  return out;
}
