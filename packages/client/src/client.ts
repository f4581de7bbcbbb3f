/**
 * The HTTP clients of both surfaces. `VenueClient`: the integration API (camelCase, sign-in
 * with Ethereum). `GatewayClient`: the gateway's /v1 (snake_case on the wire, X-API-Key); its
 * answers are turned back to camelCase (core/case.ts, the one key-case rule), so both return the
 * same types, taken from the servers' zod schemas (./types.ts).
 *
 * Read-your-writes: a write answers once mined (or, after 202, once its status is CONFIRMED), then
 * waits until the indexer has its block (`minBlock`), and every later read of the client passes
 * `minBlock` ≥ that block, so it sees the write.
 */
import { camelKeys, snakeKeys } from "../../../core/case.js";
import { buildAmount, buildClose, buildMargin, buildModify, buildPlaceOrder, buildTrigger, checkAccountId, checkBytes32, type CloseSpec, type Hex, type MarketRules, type ModifySpec, type OrderSpec, type TriggerSpec } from "./builders.js";
import { Emitter } from "./emitter.js";
import { VenueApiError, VenueError, VenueInputError, VenueNetworkError, WriteFailedError } from "./errors.js";
import { attachMeta, Http, meta, type HttpOptions, type RequestOptions, type ResponseMeta } from "./http.js";
import { SiweSession, type SessionOptions, type SessionToken, type Signer, type SiweNonce } from "./auth.js";
import type * as T from "./types.js";

// ─── queries ───────────────────────────────────────────────────────────────────────────────
/** A time bound: unix seconds, an ISO 8601 string with a zone, or a Date. */
export type TimeBound = number | string | Date;
export type HistoryQuery = {
  /** inclusive */
  from?: TimeBound;
  /** exclusive */
  to?: TimeBound;
  /** items per page (1..1000, default 100) */
  limit?: number;
  cursor?: string;
  /** account lists: only this market */
  marketId?: Hex;
  minBlock?: number;
};
export type CandleQuery = Omit<HistoryQuery, "marketId"> & { resolution: "1m" | "5m" | "15m" | "1h" | "4h" | "1d" };
export type PnlHistoryQuery = Omit<HistoryQuery, "marketId"> & { resolution: "1h" | "1d" };
export type OpenOrdersQuery = { marketId?: Hex; status?: "active" | "filled" | "cancelled"; limit?: number; cursor?: string; minBlock?: number };
export type ReadOptions = { minBlock?: number; signal?: AbortSignal };
export type ExportFormat = "csv" | "ndjson";

/** One page of a history list: its items, whether more follow, and the cursor of the next. */
export type Page<I> = { items: I[]; hasMore: boolean; nextCursor: string | null; meta?: ResponseMeta };

// ─── writes ────────────────────────────────────────────────────────────────────────────────
/** Where a write stands, as GET /transactions/{requestId} and the write's own answer tell it. */
export type WriteStatus = {
  requestId: string;
  kind?: string;
  transactionStatus: T.TransactionStatusName;
  transactionHash: string | null;
  blockNumber: number | null;
  confirmations: number;
  final: boolean;
  reorgs: number;
  error: { code: string; message: string } | null;
};

export type WriteOptions = {
  /** default: a new random key per call (the relayer answers a retry with the first answer) */
  idempotencyKey?: string;
  /**
   * "indexed" (default): answer once the indexer has the write's block (a read then sees it);
   * "mined": once mined; "accepted": at once, even when the relayer answered 202 (PENDING).
   */
  wait?: "indexed" | "mined" | "accepted";
  /** also follow the write until `final` (confirmations ≥ the profile's CONFIRMATIONS), through any REORGED */
  untilFinal?: boolean;
  /** every status the client sees (PENDING, CONFIRMED, REORGED, final ...) */
  onStatus?: (s: WriteStatus) => void;
  signal?: AbortSignal;
};

/** What a write's answer carries beside its result (TxFields of core/schemas/write-responses.ts). */
type Mined = { requestId: string; transactionHash: string; blockNumber: number; confirmations: number; final: boolean };

export type ClientEvents = {
  response: ResponseMeta;
  transaction: WriteStatus;
  signedIn: SessionToken;
  sessionExpiring: { address: string; expiresAt: number; secondsLeft: number };
  error: unknown;
};

export type BaseOptions = Omit<HttpOptions, "onResponse"> & {
  /** pass `minBlock` ≥ the last write's block on every read (default true) */
  readYourWrites?: boolean;
  /** how often a write's status is polled while it is PENDING or not final (ms, default 500) */
  pollMs?: number;
  /** give up waiting for a write to be mined / indexed / final after this long (ms, default 120 000) */
  writeTimeoutMs?: number;
};

const HISTORY = {
  trades: { path: (m: string) => `/markets/${m}/trades`, key: "trades" },
  fundingHistory: { path: (m: string) => `/markets/${m}/funding/history`, key: "funding" },
  candles: { path: (m: string) => `/markets/${m}/candles`, key: "candles" },
  fills: { path: (a: string) => `/accounts/${a}/fills`, key: "fills" },
  fundingPayments: { path: (a: string) => `/accounts/${a}/funding-payments`, key: "fundingPayments" },
  transfers: { path: (a: string) => `/accounts/${a}/transfers`, key: "transfers" },
  liquidations: { path: (a: string) => `/accounts/${a}/liquidations`, key: "liquidations" },
  orderHistory: { path: (a: string) => `/accounts/${a}/orders/history`, key: "orders" },
  orderModifications: { path: (a: string) => `/accounts/${a}/orders/modifications`, key: "modifications" },
  pnl: { path: (a: string) => `/accounts/${a}/pnl`, key: "pnl" },
  insuranceHistory: { path: () => `/insurance-fund/history`, key: "events" },
} as const;
export type HistoryList = keyof typeof HISTORY;
/** The lists that export as CSV / NDJSON (candles and PnL page only). */
export type ExportableList = Exclude<HistoryList, "candles" | "pnl">;

const bound = (v: TimeBound | undefined) => (v === undefined ? undefined : v instanceof Date ? Math.floor(v.getTime() / 1000) : v);

const TERMINAL_FAIL = new Set(["REVERTED", "FAILED", "EXPIRED", "CANCELLED"]);

/**
 * Reads, history and the write machinery shared by both surfaces; the surface decides paths,
 * key case and credentials.
 */
export abstract class BaseClient extends Emitter<ClientEvents> {
  readonly http: Http;
  /** the highest block a write of this client was mined in (reads pass minBlock ≥ it) */
  minBlock = 0;
  protected readonly o: BaseOptions;
  /** market rules by id, for the builders (filled by markets()/market()) */
  protected readonly rules = new Map<string, MarketRules>();

  constructor(o: BaseOptions) {
    super();
    this.o = o;
    this.http = new Http({ ...o, onResponse: (m) => this.emit("response", m) });
  }

  /** "" or "/v1" */
  protected abstract readonly prefix: string;
  protected abstract readonly snake: boolean;
  protected abstract authHeaders(kind: "read" | "write"): Promise<Record<string, string>>;

  /** Deposits and withdrawals: the same route and body on both surfaces. */
  deposit(accountId: number | bigint | string, amount6: bigint, o: WriteOptions & { validUntil?: number } = {}) {
    return this.write<T.DepositResult>("POST", `/accounts/${checkAccountId(accountId)}/deposit`, buildAmount(amount6, o.validUntil), o);
  }
  withdraw(accountId: number | bigint | string, amount6: bigint, o: WriteOptions & { validUntil?: number } = {}) {
    return this.write<T.WithdrawResult>("POST", `/accounts/${checkAccountId(accountId)}/withdraw`, buildAmount(amount6, o.validUntil), o);
  }

  /** The rate limit of the latest answer (every method's answer also has it: `meta(answer)`). */
  get rateLimit() {
    return this.http.last?.rateLimit;
  }

  protected wire(q: Record<string, unknown> | undefined): Record<string, string | number | undefined> | undefined {
    if (!q) return undefined;
    const clean = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]));
    return (this.snake ? snakeKeys(clean) : clean) as Record<string, string | number | undefined>;
  }

  /** A request on this surface: path without prefix, query/body camelCase (snake_cased for /v1), answer camelCase. */
  protected async call<R>(method: string, path: string, r: RequestOptions & { auth?: "read" | "write" | "none" } = {}): Promise<R> {
    const headers = { ...(r.auth === "none" ? {} : await this.authHeaders(r.auth ?? "read")), ...r.headers };
    const body = r.body === undefined ? undefined : this.snake ? snakeKeys(r.body) : r.body;
    const { data, meta } = await this.http.request<R>(method, this.prefix + path, { ...r, headers, body, query: this.wire(r.query) });
    return attachMeta(this.snake ? camelKeys<R>(data) : data, meta);
  }

  /** A read: passes minBlock (the caller's, else the last write's block). */
  protected read<R>(path: string, query: Record<string, unknown> = {}, o: ReadOptions = {}): Promise<R> {
    const floor = this.o.readYourWrites === false ? 0 : this.minBlock;
    const minBlock = o.minBlock ?? (query.minBlock as number | undefined) ?? (floor > 0 ? floor : undefined);
    return this.call<R>("GET", path, { query: { ...query, minBlock }, signal: o.signal });
  }

  // ─── reads ─────────────────────────────────────────────────────────────────────────────
  async markets(o?: ReadOptions): Promise<T.MarketList> {
    const r = await this.read<T.MarketList>("/markets", {}, o);
    for (const m of r.markets) this.rules.set(m.marketId.toLowerCase(), m);
    return r;
  }
  async market(marketId: Hex, o?: ReadOptions): Promise<T.Market> {
    checkBytes32("marketId", marketId);
    const m = await this.read<T.Market>(`/markets/${marketId}`, {}, o);
    this.rules.set(m.marketId.toLowerCase(), m);
    return m;
  }
  funding(marketId: Hex, o?: ReadOptions) {
    checkBytes32("marketId", marketId);
    return this.read<T.MarketFunding>(`/markets/${marketId}/funding`, {}, o);
  }
  orderBook(marketId: Hex, q: { depth?: number } & ReadOptions = {}) {
    checkBytes32("marketId", marketId);
    return this.read<T.OrderBook>(`/markets/${marketId}/orderbook`, { depth: q.depth }, q);
  }
  price(marketId: Hex, o?: ReadOptions) {
    checkBytes32("marketId", marketId);
    return this.read<T.MarkPrice>(`/markets/${marketId}/price`, {}, o);
  }
  account(accountId: number | bigint | string, o?: ReadOptions) {
    return this.read<T.Account>(`/accounts/${checkAccountId(accountId)}`, {}, o);
  }
  accountByAddress(address: string, o?: ReadOptions) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new VenueInputError("VALIDATION_ERROR", "address: must be a 0x-prefixed 20-byte hex address", "address");
    return this.read<T.AccountByAddress>(`/accounts/by-address/${address}`, {}, o);
  }
  accountOperators(accountId: number | bigint | string, o?: ReadOptions) {
    return this.read<T.AccountOperators>(`/accounts/${checkAccountId(accountId)}/operators`, {}, o);
  }
  /** GET /accounts/{id}/triggers: the take-profits and stop-losses of the account's positions (status active by default; executed, cancelled, all). */
  triggers(accountId: number | bigint | string, q: { marketId?: Hex; status?: "active" | "executed" | "cancelled" | "all" } = {}, o?: ReadOptions) {
    if (q.marketId) checkBytes32("marketId", q.marketId);
    return this.read<T.TriggerList>(`/accounts/${checkAccountId(accountId)}/triggers`, { ...q }, o);
  }
  position(accountId: number | bigint | string, marketId: Hex, o?: ReadOptions) {
    checkBytes32("marketId", marketId);
    return this.read<T.Position>(`/accounts/${checkAccountId(accountId)}/positions/${marketId}`, {}, o);
  }
  positionFunding(accountId: number | bigint | string, marketId: Hex, o?: ReadOptions) {
    checkBytes32("marketId", marketId);
    return this.read<T.PositionFunding>(`/accounts/${checkAccountId(accountId)}/positions/${marketId}/funding`, {}, o);
  }
  /** One page of the account's orders (GET /accounts/{id}/orders), newest first. */
  ordersPage(accountId: number | bigint | string, q: OpenOrdersQuery = {}, o?: ReadOptions) {
    return this.read<T.OrderList>(`/accounts/${checkAccountId(accountId)}/orders`, { ...q }, o);
  }
  /** Every order of the account matching the filter, page after page. */
  async *orders(accountId: number | bigint | string, q: OpenOrdersQuery = {}, o?: ReadOptions): AsyncGenerator<T.Order> {
    let cursor = q.cursor;
    for (;;) {
      const page = await this.ordersPage(accountId, { ...q, cursor }, o);
      yield* page.orders;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }
  insuranceFund(o?: ReadOptions) {
    return this.read<T.InsuranceFund>("/insurance-fund", {}, o);
  }

  // ─── history ───────────────────────────────────────────────────────────────────────────
  /** One page of a history list. `scope`: the market id (trades, fundingHistory, candles), the account id, or nothing (insuranceHistory). */
  async historyPage<I>(list: HistoryList, scope: string | number | bigint | undefined, q: HistoryQuery & { resolution?: string } = {}, o?: ReadOptions): Promise<Page<I>> {
    const spec = HISTORY[list];
    const s = list === "insuranceHistory" ? "" : list === "trades" || list === "fundingHistory" || list === "candles" ? (checkBytes32("marketId", scope), String(scope)) : checkAccountId(scope);
    const data = await this.read<Record<string, unknown> & { hasMore: boolean; nextCursor: string | null }>(spec.path(s), { ...q, from: bound(q.from), to: bound(q.to) }, o);
    const page: Page<I> = { items: data[spec.key] as I[], hasMore: data.hasMore, nextCursor: data.nextCursor };
    return attachMeta(page, meta(data)!);
  }

  /** Every item of a history list from `q.cursor` on (or the start), page after page: `for await (const f of client.fills(1))`. */
  async *history<I>(list: HistoryList, scope: string | number | bigint | undefined, q: HistoryQuery & { resolution?: string } = {}, o?: ReadOptions): AsyncGenerator<I> {
    let cursor = q.cursor;
    for (;;) {
      const page = await this.historyPage<I>(list, scope, { ...q, cursor }, o);
      yield* page.items;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }
  trades = (marketId: Hex, q?: HistoryQuery, o?: ReadOptions) => this.history<T.Trade>("trades", marketId, q, o);
  fundingHistory = (marketId: Hex, q?: HistoryQuery, o?: ReadOptions) => this.history<T.FundingRate>("fundingHistory", marketId, q, o);
  candles = (marketId: Hex, q: CandleQuery, o?: ReadOptions) => this.history<T.Candle>("candles", marketId, q, o);
  fills = (accountId: number | bigint | string, q?: HistoryQuery, o?: ReadOptions) => this.history<T.Fill>("fills", accountId, q, o);
  fundingPayments = (accountId: number | bigint | string, q?: HistoryQuery, o?: ReadOptions) => this.history<T.FundingPayment>("fundingPayments", accountId, q, o);
  transfers = (accountId: number | bigint | string, q?: Omit<HistoryQuery, "marketId">, o?: ReadOptions) => this.history<T.Transfer>("transfers", accountId, q, o);
  liquidations = (accountId: number | bigint | string, q?: HistoryQuery, o?: ReadOptions) => this.history<T.Liquidation>("liquidations", accountId, q, o);
  orderHistory = (accountId: number | bigint | string, q?: HistoryQuery, o?: ReadOptions) => this.history<T.HistoricalOrder>("orderHistory", accountId, q, o);
  /** Every modification of the account's orders, newest first; `orderId`: one order's. */
  orderModifications = (accountId: number | bigint | string, q?: HistoryQuery & { orderId?: string }, o?: ReadOptions) =>
    this.history<T.OrderModification>("orderModifications", accountId, q, o);
  pnl = (accountId: number | bigint | string, q: PnlHistoryQuery, o?: ReadOptions) => this.history<T.PnlPoint>("pnl", accountId, q, o);
  insuranceHistory = (q?: Omit<HistoryQuery, "marketId">, o?: ReadOptions) => this.history<T.InsuranceFundEvent>("insuranceHistory", undefined, q, o);

  /**
   * A whole list as CSV or NDJSON (`Accept: text/csv` / `application/x-ndjson`), streamed: the
   * body as a web ReadableStream of bytes (Node: `Readable.fromWeb(stream).pipe(file)`).
   */
  async export(list: ExportableList, scope: string | number | bigint | undefined, format: ExportFormat, q: Omit<HistoryQuery, "limit" | "cursor"> = {}, o: ReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const spec = HISTORY[list];
    const s = list === "insuranceHistory" ? "" : list === "trades" || list === "fundingHistory" ? (checkBytes32("marketId", scope), String(scope)) : checkAccountId(scope);
    const floor = this.o.readYourWrites === false ? 0 : this.minBlock;
    const headers = { ...(await this.authHeaders("read")), Accept: format === "csv" ? "text/csv" : "application/x-ndjson" };
    const query = this.wire({ ...q, from: bound(q.from), to: bound(q.to), minBlock: o.minBlock ?? q.minBlock ?? (floor > 0 ? floor : undefined) });
    const { response } = await this.http.request<void>("GET", this.prefix + spec.path(s), { query, headers, raw: true, signal: o.signal });
    if (!response?.body) throw new VenueError("UPSTREAM_ERROR", "the export answered no body");
    return response.body as ReadableStream<Uint8Array>;
  }

  /** An NDJSON export's items, one by one (camelCase on both surfaces). */
  async *exportItems<I = Record<string, unknown>>(list: ExportableList, scope: string | number | bigint | undefined, q: Omit<HistoryQuery, "limit" | "cursor"> = {}, o: ReadOptions = {}): AsyncGenerator<I> {
    const stream = await this.export(list, scope, "ndjson", q, o);
    const reader = stream.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      buf += done ? dec.decode() : dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) yield (this.snake ? camelKeys(JSON.parse(line)) : JSON.parse(line)) as I;
      }
      if (done) {
        if (buf.trim()) yield (this.snake ? camelKeys(JSON.parse(buf)) : JSON.parse(buf)) as I;
        return;
      }
    }
  }

  // ─── writes ────────────────────────────────────────────────────────────────────────────
  /** GET /transactions/{requestId}: where a write of this caller stands. */
  transaction(requestId: string, o: { signal?: AbortSignal } = {}) {
    return this.call<T.TransactionStatus>("GET", `/transactions/${encodeURIComponent(requestId)}`, { auth: "write", signal: o.signal });
  }
  /** POST /transactions/{requestId}/cancel: cancels a write not mined yet (its nonce goes to a no-op). */
  cancelTransaction(requestId: string) {
    return this.call<T.TransactionStatus>("POST", `/transactions/${encodeURIComponent(requestId)}/cancel`, { auth: "write" });
  }

  private statusOf(t: T.TransactionStatus): WriteStatus {
    return {
      requestId: t.requestId, kind: t.kind, transactionStatus: t.transactionStatus, transactionHash: t.transactionHash, blockNumber: t.blockNumber,
      confirmations: t.confirmations, final: t.final, reorgs: t.reorgs, error: t.error,
    };
  }

  private report(s: WriteStatus, o: WriteOptions) {
    o.onStatus?.(s);
    this.emit("transaction", s);
  }

  /**
   * Follows a write by its status until `until` holds (polling GET /transactions/{requestId});
   * every change is reported (PENDING → CONFIRMED, REORGED → PENDING → CONFIRMED, final).
   * Throws WriteFailedError when it ends REVERTED, FAILED, EXPIRED or CANCELLED.
   */
  async follow(requestId: string, o: WriteOptions & { until?: "mined" | "final"; last?: WriteStatus } = {}): Promise<T.TransactionStatus> {
    const deadline = Date.now() + (this.o.writeTimeoutMs ?? 120_000);
    // a change of lifecycle (not of hash alone: a fee bump keeps the write PENDING)
    const keyOf = (s: WriteStatus) => `${s.transactionStatus}/${s.blockNumber}/${s.confirmations}/${s.final}/${s.reorgs}`;
    let last = o.last ? keyOf(o.last) : "";
    for (;;) {
      const t = await this.transaction(requestId, { signal: o.signal });
      const s = this.statusOf(t);
      const key = keyOf(s);
      if (key !== last) this.report(s, o);
      last = key;
      if (TERMINAL_FAIL.has(t.transactionStatus))
        throw new WriteFailedError(t.error?.code ?? t.transactionStatus, t.error?.message ?? `the write ended ${t.transactionStatus}`, requestId, t.transactionStatus);
      if (t.transactionStatus === "CONFIRMED" && ((o.until ?? "mined") === "mined" || t.final)) return t;
      if (Date.now() > deadline) throw new VenueError("WRITE_NOT_MINED", `write ${requestId} is ${t.transactionStatus} after ${this.o.writeTimeoutMs ?? 120_000} ms`);
      await this.http.sleep(this.o.pollMs ?? 500, o.signal);
    }
  }

  /** Waits until the indexer has `block` (a cheap hot read with minBlock; it waits up to 5 s per try). */
  async waitIndexed(block: number, o: { signal?: AbortSignal } = {}): Promise<void> {
    const deadline = Date.now() + (this.o.writeTimeoutMs ?? 120_000);
    for (;;) {
      try {
        await this.call("GET", "/markets", { query: { minBlock: block }, auth: "none", signal: o.signal });
        this.minBlock = Math.max(this.minBlock, block);
        return;
      } catch (e) {
        if (!(e instanceof VenueApiError && e.code === "SERVICE_UNAVAILABLE") || Date.now() > deadline) throw e;
      }
    }
  }

  /**
   * A write: an Idempotency-Key (the caller's or a new one; sent again as is after a lost
   * answer), the relayer's answer (mined, or 202 then followed), then the indexer's block.
   */
  protected async write<R>(method: string, path: string, body: unknown, o: WriteOptions = {}): Promise<R & Mined> {
    const idempotencyKey = o.idempotencyKey ?? globalThis.crypto.randomUUID();
    let data: R & Mined & { transactionStatus?: string; validUntil?: number | null };
    for (let attempt = 0; ; attempt++) {
      try {
        data = await this.call(method, path, { body, auth: "write", headers: { "Idempotency-Key": idempotencyKey }, signal: o.signal });
        break;
      } catch (e) {
        // no answer: the same key again (the relayer answers a repeat with the first request's outcome)
        if (!(e instanceof VenueNetworkError) || attempt >= 2) throw e;
        await this.http.sleep(250 * (attempt + 1), o.signal);
      }
    }
    const m = meta(data)!;
    const first: WriteStatus = {
      requestId: data.requestId, transactionStatus: (data.transactionStatus ?? "CONFIRMED") as T.TransactionStatusName, transactionHash: data.transactionHash ?? null,
      blockNumber: data.blockNumber ?? null, confirmations: data.confirmations ?? 0, final: data.final ?? false, reorgs: 0, error: null,
    };
    this.report(first, o);
    if (first.transactionStatus === "PENDING") {
      if (o.wait === "accepted") return data;
      const t = await this.follow(data.requestId, { ...o, until: o.untilFinal ? "final" : "mined", last: first });
      data = { ...(t.result as R & Mined), requestId: t.requestId, transactionHash: t.transactionHash!, blockNumber: t.blockNumber!, confirmations: t.confirmations, final: t.final };
    } else if (o.untilFinal && !first.final) {
      const t = await this.follow(data.requestId, { ...o, until: "final", last: first });
      data = { ...data, blockNumber: t.blockNumber!, transactionHash: t.transactionHash!, confirmations: t.confirmations, final: t.final };
    }
    if (data.blockNumber) {
      this.minBlock = Math.max(this.minBlock, data.blockNumber);
      if ((o.wait ?? "indexed") === "indexed") await this.waitIndexed(data.blockNumber, o);
    }
    return attachMeta(data, m);
  }

  /** The rules of a market for the builders (from an earlier markets()/market(), else read once). */
  async rulesOf(marketId: Hex): Promise<MarketRules> {
    return this.rules.get(marketId.toLowerCase()) ?? (await this.market(marketId));
  }
}

// ─── the integration API ───────────────────────────────────────────────────────────────────

export type VenueClientOptions = BaseOptions & {
  /** the signer of sign-in with Ethereum (needed for writes and the account/transactions streams) */
  signer?: Signer;
  session?: SessionOptions;
};

/** The integration API (camelCase; writes need a sign-in). */
export class VenueClient extends BaseClient {
  protected readonly prefix = "";
  protected readonly snake = false;
  session: SiweSession | undefined;

  constructor(o: VenueClientOptions) {
    super(o);
    if (o.signer) this.useSigner(o.signer, o.session);
  }

  /** Sets (or replaces) the signer; the session's events are the client's. */
  useSigner(signer: Signer, o?: SessionOptions) {
    this.session?.signOut();
    this.session = new SiweSession(this.http, signer, o);
    this.session.on("signedIn", (t) => this.emit("signedIn", t));
    this.session.on("sessionExpiring", (e) => this.emit("sessionExpiring", e));
    this.session.on("error", (e) => this.emit("error", e));
    return this.session;
  }

  /** Signs in now (GET /auth/nonce, sign, POST /auth/login); otherwise the first write does. */
  signIn(signer?: Signer): Promise<SessionToken> {
    if (signer) this.useSigner(signer);
    if (!this.session) throw new VenueError("UNAUTHENTICATED", "no signer: pass one to signIn(signer) or the constructor");
    return this.session.signIn();
  }
  signOut() {
    this.session?.signOut();
  }
  /** GET /auth/nonce (the session does this itself). */
  nonce() {
    return this.call<SiweNonce>("GET", "/auth/nonce", { auth: "none" });
  }
  /** GET /auth/session: the wallet of the current token. */
  whoami() {
    return this.call<{ address: string }>("GET", "/auth/session", { auth: "write" });
  }

  protected async authHeaders(kind: "read" | "write"): Promise<Record<string, string>> {
    if (kind === "read" && !this.session?.token) return {};
    if (!this.session) throw new VenueError("UNAUTHENTICATED", "writes need a sign-in: pass a signer (a viem account or an EIP-1193 wallet)");
    return { Authorization: `Bearer ${await this.session.bearer()}` };
  }

  /** POST /accounts: the signed-in wallet's account (one per wallet). */
  createAccount(b: { userAddress: string; operatorApproval?: T.CreateAccountRequest["operatorApproval"]; validUntil?: number }, o?: WriteOptions) {
    return this.write<T.CreateAccountResult>("POST", "/accounts", b, o);
  }
  /** Places an order built by `order.limit(...)` / `order.market(...)`, checked against the market's rules first. */
  async placeOrder(accountId: number | bigint | string, spec: OrderSpec, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    const body = buildPlaceOrder(spec, await this.rulesOf(spec.marketId));
    return this.write<T.PlaceOrderResult>("POST", `/accounts/${id}/orders`, body, o);
  }
  cancelOrder(accountId: number | bigint | string, marketId: Hex, clientKey: Hex, o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    checkBytes32("clientKey", clientKey);
    const q = new URLSearchParams({ marketId, ...(o.validUntil ? { validUntil: String(o.validUntil) } : {}) });
    return this.write<T.CancelOrderResult>("DELETE", `/accounts/${id}/orders/${clientKey}?${q}`, undefined, o);
  }
  /** POST /accounts/{id}/orders/modify: a resting order's new price and remaining size in place (by orderId or clientKey), checked against the market's tick. */
  async modifyOrder(accountId: number | bigint | string, spec: ModifySpec, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    const body = buildModify(spec, await this.rulesOf(spec.marketId));
    return this.write<T.ModifyOrderResult>("POST", `/accounts/${id}/orders/modify`, body, o);
  }
  async closePosition(accountId: number | bigint | string, marketId: Hex, spec: CloseSpec = { type: "MARKET" }, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    const body = buildClose(spec, await this.rulesOf(marketId));
    return this.write<T.ClosePositionResult>("POST", `/accounts/${id}/positions/${marketId}/close`, body, o);
  }
  adjustMargin(accountId: number | bigint | string, marketId: Hex, action: T.MarginAction, amount6: bigint, o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    return this.write<T.PositionMarginResult>("POST", `/accounts/${id}/positions/${marketId}/margin`, buildMargin(action, amount6, o.validUntil), o);
  }
  /** POST /accounts/{id}/triggers: set (or replace) the take-profit or stop-loss of the account's position, checked against the market's tick. */
  async setTrigger(accountId: number | bigint | string, spec: TriggerSpec, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    const body = buildTrigger(spec, spec.type === "LIMIT" ? await this.rulesOf(spec.marketId) : undefined);
    return this.write<T.SetTriggerResult>("POST", `/accounts/${id}/triggers`, body, o);
  }
  /** POST /accounts/{id}/triggers/cancel: remove the take-profit or stop-loss of the account's position in the market. */
  cancelTrigger(accountId: number | bigint | string, marketId: Hex, kind: "TAKE_PROFIT" | "STOP_LOSS", o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    return this.write<T.CancelTriggerResult>("POST", `/accounts/${id}/triggers/cancel`, { marketId, kind, ...(o.validUntil ? { validUntil: o.validUntil } : {}) }, o);
  }
  /** POST /accounts/{id}/deadman: the dead-man deadline (unix seconds of the chain's clock, ≥ now + 5 s), 0 = off. */
  setDeadman(accountId: number | bigint | string, deadline: number, o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    return this.write<T.DeadmanResult>("POST", `/accounts/${id}/deadman`, { deadline, ...(o.validUntil ? { validUntil: o.validUntil } : {}) }, o);
  }
  /** POST /accounts/{id}/orders/cancel-all: every open order of the account (of `marketId` when given), one transaction. */
  cancelAll(accountId: number | bigint | string, o: WriteOptions & { marketId?: Hex; validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    if (o.marketId) checkBytes32("marketId", o.marketId);
    return this.write<T.CancelAllResult>("POST", `/accounts/${id}/orders/cancel-all`, { ...(o.marketId ? { marketId: o.marketId } : {}), ...(o.validUntil ? { validUntil: o.validUntil } : {}) }, o);
  }
  /** POST /accounts/{id}/orders/batch: up to 32 places (built like placeOrder) and cancels in one transaction. */
  async batch(accountId: number | bigint | string, items: BatchSpec[], o: WriteOptions & { atomic?: boolean; validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    const body = { items: await batchItems(this, items, false), ...(o.atomic !== undefined ? { atomic: o.atomic } : {}), ...(o.validUntil ? { validUntil: o.validUntil } : {}) };
    return this.write<T.BatchOrdersResult>("POST", `/accounts/${id}/orders/batch`, body, o);
  }
  /** GET /operators/typed-data: the EIP-712 approval of the relayer to sign. */
  operatorTypedData(q: { owner: string; expiry?: number; deadline?: number; maxLeverage?: number; bandBps?: number; budgetBps?: number }) {
    return this.call<T.OperatorTypedData>("GET", "/operators/typed-data", { query: q, auth: "none" });
  }
  /** POST /operators/approve: the signed approval, sent by the relayer (setOperatorWithSig). */
  approveOperator(b: T.OperatorApproveRequest, o?: WriteOptions) {
    return this.write<T.OperatorApprovalResult>("POST", "/operators/approve", b, o);
  }
}

// ─── the gateway (/v1) ─────────────────────────────────────────────────────────────────────

export type GatewayClientOptions = BaseOptions & { apiKey?: string };

/** The gateway's /v1 (X-API-Key; snake_case on the wire, camelCase in and out of this client). */
export class GatewayClient extends BaseClient {
  protected readonly prefix = "/v1";
  protected readonly snake = true;
  apiKey: string | undefined;

  constructor(o: GatewayClientOptions) {
    super(o);
    this.apiKey = o.apiKey;
  }

  protected async authHeaders(kind: "read" | "write"): Promise<Record<string, string>> {
    if (!this.apiKey) {
      if (kind === "read") return {};
      throw new VenueError("UNAUTHENTICATED", "the gateway's writes need an API key (apiKey)");
    }
    return { "X-API-Key": this.apiKey };
  }

  /** GET /health (no key). */
  health() {
    return this.http.request<Record<string, unknown>>("GET", "/health").then((a) => a.data);
  }
  /** GET /health/{service} (no key). */
  serviceHealth(service: string) {
    return this.http.request<Record<string, unknown>>("GET", `/health/${encodeURIComponent(service)}`).then((a) => a.data);
  }

  createAccount(b: { owner: string; operatorApproval?: { expiry: string; deadline: string; signature: string; maxLeverage?: number; bandBps?: number; budgetBps?: number }; validUntil?: number }, o?: WriteOptions) {
    return this.write<T.CreateAccountResult>("POST", "/accounts/create", b, o);
  }
  /** POST /v1/accounts/{id}/trade (side and order_type as 0/1 on the wire). */
  async placeOrder(accountId: number | bigint | string, spec: OrderSpec, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    const b = buildPlaceOrder(spec, await this.rulesOf(spec.marketId));
    const body = {
      marketId: b.marketId, collateral: b.collateralAmount, side: b.side === "LONG" ? 0 : 1, leverage: b.leverage, orderType: b.orderType === "MARKET" ? 0 : 1,
      ...(b.limitPrice !== undefined ? { limitPrice: b.limitPrice } : {}), clientKey: b.clientKey, ...(b.validUntil !== undefined ? { validUntil: b.validUntil } : {}),
      // the order options, snake_cased on the wire (time_in_force, reduce_only, expires_at)
      ...(b.timeInForce !== undefined ? { timeInForce: b.timeInForce } : {}),
      ...(b.reduceOnly !== undefined ? { reduceOnly: b.reduceOnly } : {}),
      ...(b.expiresAt !== undefined ? { expiresAt: b.expiresAt } : {}),
    };
    return this.write<T.PlaceOrderResult>("POST", `/accounts/${id}/trade`, body, o);
  }
  cancelOrder(accountId: number | bigint | string, marketId: Hex, clientKey: Hex, o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    checkBytes32("clientKey", clientKey);
    return this.write<T.CancelOrderResult>("POST", `/accounts/${id}/orders/cancel`, { marketId, clientKey, ...(o.validUntil ? { validUntil: o.validUntil } : {}) }, o);
  }
  /** POST /v1/accounts/{id}/orders/modify: a resting order's new price and remaining size in place (by orderId or clientKey). */
  async modifyOrder(accountId: number | bigint | string, spec: ModifySpec, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    const b = buildModify(spec, await this.rulesOf(spec.marketId));
    return this.write<T.ModifyOrderResult>("POST", `/accounts/${id}/orders/modify`, { ...b, ...(b.validUntil !== undefined ? { validUntil: String(b.validUntil) } : {}) }, o);
  }
  /** POST /v1/accounts/{id}/positions/{market}/close (the gateway takes no client key for a close). */
  async closePosition(accountId: number | bigint | string, marketId: Hex, spec: Omit<CloseSpec, "clientKey"> = { type: "MARKET" }, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    const b = buildClose(spec, await this.rulesOf(marketId));
    const body = { orderType: b.orderType === "MARKET" ? 0 : 1, ...(b.limitPrice !== undefined ? { limitPrice: b.limitPrice } : {}), ...(b.validUntil !== undefined ? { validUntil: b.validUntil } : {}) };
    return this.write<T.ClosePositionResult>("POST", `/accounts/${id}/positions/${marketId}/close`, body, o);
  }
  adjustMargin(accountId: number | bigint | string, marketId: Hex, action: T.MarginAction, amount6: bigint, o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    return this.write<T.PositionMarginResult>("POST", `/accounts/${id}/positions/${marketId}/margin`, buildMargin(action, amount6, o.validUntil), o);
  }
  /** POST /v1/accounts/{id}/triggers: set (or replace) the take-profit or stop-loss of the account's position (order_type 0/1 on the wire). */
  async setTrigger(accountId: number | bigint | string, spec: TriggerSpec, o?: WriteOptions) {
    const id = checkAccountId(accountId);
    const b = buildTrigger(spec, spec.type === "LIMIT" ? await this.rulesOf(spec.marketId) : undefined);
    const body = { ...b, orderType: b.orderType === "MARKET" ? 0 : 1, ...(b.validUntil !== undefined ? { validUntil: String(b.validUntil) } : {}) };
    return this.write<T.SetTriggerResult>("POST", `/accounts/${id}/triggers`, body, o);
  }
  /** POST /v1/accounts/{id}/triggers/cancel. */
  cancelTrigger(accountId: number | bigint | string, marketId: Hex, kind: "TAKE_PROFIT" | "STOP_LOSS", o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    checkBytes32("marketId", marketId);
    return this.write<T.CancelTriggerResult>("POST", `/accounts/${id}/triggers/cancel`, { marketId, kind, ...(o.validUntil ? { validUntil: String(o.validUntil) } : {}) }, o);
  }
  /** POST /v1/accounts/{id}/deadman: the dead-man deadline (unix seconds of the chain's clock, ≥ now + 5 s), 0 = off. */
  setDeadman(accountId: number | bigint | string, deadline: number, o: WriteOptions & { validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    return this.write<T.DeadmanResult>("POST", `/accounts/${id}/deadman`, { deadline: String(deadline), ...(o.validUntil ? { validUntil: String(o.validUntil) } : {}) }, o);
  }
  /** POST /v1/accounts/{id}/orders/cancel-all: every open order of the account (of `marketId` when given), one transaction. */
  cancelAll(accountId: number | bigint | string, o: WriteOptions & { marketId?: Hex; validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    if (o.marketId) checkBytes32("marketId", o.marketId);
    return this.write<T.CancelAllResult>("POST", `/accounts/${id}/orders/cancel-all`, { ...(o.marketId ? { marketId: o.marketId } : {}), ...(o.validUntil ? { validUntil: String(o.validUntil) } : {}) }, o);
  }
  /** POST /v1/accounts/{id}/orders/batch: up to 32 places (built like placeOrder) and cancels in one transaction. */
  async batch(accountId: number | bigint | string, items: BatchSpec[], o: WriteOptions & { atomic?: boolean; validUntil?: number } = {}) {
    const id = checkAccountId(accountId);
    const body = { items: await batchItems(this, items, true), ...(o.atomic !== undefined ? { atomic: o.atomic } : {}), ...(o.validUntil ? { validUntil: String(o.validUntil) } : {}) };
    return this.write<T.BatchOrdersResult>("POST", `/accounts/${id}/orders/batch`, body, o);
  }
  operatorTypedData(q: { owner?: string; expiry?: number; deadline?: number; maxLeverage?: number; bandBps?: number; budgetBps?: number } = {}) {
    return this.call<T.OperatorTypedData>("GET", "/operators/typed-data", { query: q, auth: "write" });
  }
  approveOperator(b: { owner: string; operator?: string; expiry: string; deadline: string; maxLeverage?: number; bandBps?: number; budgetBps?: number; signature: string; validUntil?: number }, o?: WriteOptions) {
    return this.write<T.OperatorApprovalResult>("POST", "/operators/approve", b, o);
  }

  // the keeper's liquidation routes (their answers have no shared schema in core/: typed loosely)
  accountHealth(accountId: number | bigint | string, o: ReadOptions = {}) {
    return this.call<Record<string, unknown>>("GET", `/liquidation/accounts/${checkAccountId(accountId)}/health`, { signal: o.signal });
  }
  marketLiquidations(marketId: Hex, o: ReadOptions = {}) {
    checkBytes32("marketId", marketId);
    return this.call<Record<string, unknown>>("GET", `/liquidation/market/${marketId}`, { signal: o.signal });
  }
  accountLiquidationData(accountId: number | bigint | string, o: ReadOptions = {}) {
    return this.call<Record<string, unknown>>("GET", `/liquidation/account/${checkAccountId(accountId)}`, { signal: o.signal });
  }
  positionLiquidationData(positionId: Hex, o: ReadOptions = {}) {
    checkBytes32("positionId", positionId);
    return this.call<Record<string, unknown>>("GET", `/liquidation/position/${positionId}`, { signal: o.signal });
  }
  liquidateAccount(accountId: number | bigint | string, o?: WriteOptions) {
    return this.write<Record<string, unknown>>("POST", `/liquidation/account/${checkAccountId(accountId)}/liquidate`, undefined, o);
  }
  liquidatePosition(positionId: Hex, o?: WriteOptions) {
    checkBytes32("positionId", positionId);
    return this.write<Record<string, unknown>>("POST", `/liquidation/position/${positionId}/liquidate`, undefined, o);
  }
}

// ─── batches ─────────────────────────────────────────────────────────────────────────────────

/** One item of `batch()`: a place (an OrderSpec, as placeOrder takes it) or a cancel by client key or order id. */
export type BatchSpec =
  | { action: "PLACE"; order: OrderSpec }
  | { action: "CANCEL"; marketId: Hex; clientKey?: Hex; orderId?: string | bigint }
  | { action: "MODIFY"; modify: ModifySpec };

/** The wire items (camelCase; the gateway's side and orderType as 0/1, converted to snake_case by the client). */
async function batchItems(c: BaseClient, items: BatchSpec[], gateway: boolean) {
  if (items.length > 32) throw new VenueError("BATCH_TOO_LARGE", `at most 32 items in one batch (got ${items.length})`);
  const out: Record<string, unknown>[] = [];
  for (const i of items) {
    if (i.action === "CANCEL") {
      checkBytes32("marketId", i.marketId);
      if ((i.clientKey === undefined) === (i.orderId === undefined)) throw new VenueError("VALIDATION_ERROR", "a cancel needs exactly one of clientKey and orderId");
      if (i.clientKey !== undefined) checkBytes32("clientKey", i.clientKey);
      out.push({ action: "CANCEL", marketId: i.marketId, ...(i.clientKey !== undefined ? { clientKey: i.clientKey } : { orderId: String(i.orderId) }) });
      continue;
    }
    if (i.action === "MODIFY") {
      const { validUntil: _v, ...m } = buildModify(i.modify, await c.rulesOf(i.modify.marketId));
      out.push({ action: "MODIFY", ...m });
      continue;
    }
    const b = buildPlaceOrder(i.order, await c.rulesOf(i.order.marketId));
    out.push(
      gateway
        ? {
            action: "PLACE", marketId: b.marketId, collateral: b.collateralAmount, side: b.side === "LONG" ? 0 : 1, leverage: b.leverage, orderType: b.orderType === "MARKET" ? 0 : 1,
            ...(b.limitPrice !== undefined ? { limitPrice: b.limitPrice } : {}), clientKey: b.clientKey,
          }
        : { action: "PLACE", ...b },
    );
  }
  return out;
}
