/**
 * Every error code of both HTTP surfaces, its HTTP status, and the mapping from the contracts'
 * custom errors to codes. The only such table: services throw `ApiError`, one `onError` per app
 * turns it into the envelope.
 */
export const ERROR_CODES = {
  // spec codes
  ACCOUNT_EXISTS: 400,
  ACCOUNT_NOT_FOUND: 404,
  INVALID_AMOUNT: 400,
  INSUFFICIENT_BALANCE: 422,
  INSUFFICIENT_ALLOWANCE: 422,
  INSUFFICIENT_MARGIN: 422,
  UNAUTHORIZED: 403,
  MARKET_NOT_FOUND: 404,
  MARKET_NOT_ACTIVE: 409,
  MARKET_CLOSED: 409,
  MARKET_REDUCE_ONLY: 409,
  MARKET_POST_ONLY: 409,
  MARKET_CANCEL_ONLY: 409,
  EXCEEDS_MAX_LEVERAGE: 400,
  ORDER_NOT_FOUND: 404,
  NO_POSITION: 404,
  // venue rules (documented in docs/ERRORS.md)
  OPERATOR_NOT_APPROVED: 403,
  INVALID_PRICE: 400,
  ORDER_TOO_SMALL: 400,
  PRICE_STALE: 503,
  SELF_TRADE: 409,
  INVALID_SIGNATURE: 400,
  NOT_REGISTERED: 403,
  CLIENT_KEY_IN_USE: 409,
  NO_LIQUIDITY: 409,
  NOT_LIQUIDATABLE: 409,
  TOO_MANY_ORDERS: 422,
  /** an operator's (the relayer's) order priced beyond the market's operator band around the mark */
  OPERATOR_PRICE_TOO_FAR: 400,
  /** an operator's (the relayer's) write beyond the policy the account's owner set for it */
  OPERATOR_LIMIT_EXCEEDED: 403,
  POSITION_CAP_EXCEEDED: 422,
  OPEN_INTEREST_CAP_EXCEEDED: 422,
  /** a post-only order priced at or beyond the best opposite price (it would have taken) */
  POST_ONLY_WOULD_CROSS: 409,
  /** a fill-or-kill order that could not fill whole at once (nothing changed) */
  FILL_OR_KILL_UNFILLED: 409,
  /** a fill-or-kill reduce-only order sized beyond the position */
  REDUCE_ONLY_EXCEEDS_POSITION: 422,
  POSITION_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  /** the write's validUntil passed before it was mined: its nonce went to a no-op (or nothing was sent) */
  EXPIRED: 409,
  /** cancelled by its caller before it was mined (POST /transactions/{requestId}/cancel) */
  CANCELLED: 409,
  /** the write is already final (mined, reverted, failed or expired): nothing to cancel */
  NOT_CANCELLABLE: 409,
  /** the relayer's signer is low on ether: writes are refused until it is funded (nothing queued) */
  RELAYER_OUT_OF_FUNDS: 503,
  /** `/sql` on PGlite: the query is not of the bounded shape PGlite answers (one table, indexed equality, LIMIT ≤ 1000) */
  SQL_NOT_SUPPORTED_ON_PGLITE: 400,
  /** `/sql` on Postgres: the statement ran longer than SQL_TIMEOUT_MS and was cancelled */
  SQL_TIMEOUT: 400,
  /** a dead-man deadline sooner than now + 5 s (0 turns the switch off) */
  DEADMAN_TOO_SOON: 400,
  /** a batch (or a cancel list) longer than the engine takes in one call (32) */
  BATCH_TOO_LARGE: 400,
  /** no such take-profit / stop-loss on the account's position in the market */
  TRIGGER_NOT_FOUND: 404,
  /** the mark has not reached the trigger's price (executeTrigger) */
  TRIGGER_NOT_REACHED: 409,
  // HTTP / infrastructure
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_CONFLICT: 409,
  RATE_LIMITED: 429,
  TRANSACTION_REVERTED: 422,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode];

/**
 * What each code means for a client: docs/ERRORS.md is generated from this and ERROR_CODES
 * (`npm run docs:errors`; a unit test fails when the file is stale). Every code needs one.
 */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  ACCOUNT_EXISTS: "The wallet already has an account (one per wallet).",
  ACCOUNT_NOT_FOUND: "No account with this id.",
  INVALID_AMOUNT: "The amount is 0 (deposit, withdraw) or otherwise not allowed.",
  INSUFFICIENT_BALANCE: "The owner holds too little of the deposit token.",
  INSUFFICIENT_ALLOWANCE: "The owner's allowance of the deposit token to the engine is too low.",
  INSUFFICIENT_MARGIN: "Not enough available margin for the withdrawal or the order, or the fill would leave the position below initial margin (value at the mark ÷ max leverage), or a margin removal would (an unrealized profit is not removable).",
  UNAUTHORIZED: "The caller is not the account's owner (or, for `userAddress`/`owner` fields, not the signed-in wallet).",
  MARKET_NOT_FOUND: "No market with this id.",
  MARKET_NOT_ACTIVE: "The market is paused: it takes only reduce-only orders and closes.",
  MARKET_CLOSED: "The market is closed for its session break (FX weekend): no orders and no liquidation until it reopens; cancels and withdrawals of free margin work. The message names the reopening (ISO 8601 UTC) from the market's on-chain calendar.",
  MARKET_REDUCE_ONLY: "The market is in its pre-close window, or the guardian set it REDUCE_ONLY: only orders that reduce a position (closes) are accepted. The message names the reopening (ISO 8601 UTC) from the market's on-chain calendar.",
  MARKET_POST_ONLY: "The guardian set the market POST_ONLY: only post-only orders (and modifies, which never take) are accepted; cancels work.",
  MARKET_CANCEL_ONLY: "The guardian set the market CANCEL_ONLY: no orders are accepted, only cancels.",
  EXCEEDS_MAX_LEVERAGE: "Leverage is 0 or above the market's maximum.",
  ORDER_NOT_FOUND: "No open order of the account with this client key or order id (it does not exist, is filled, cancelled or expired, or is another account's).",
  NO_POSITION: "No open position in this market to close or to move margin of.",
  OPERATOR_NOT_APPROVED: "The account's owner has not approved the relayer as operator (or the approval expired).",
  INVALID_PRICE: "The price is zero, off the tick, or outside the band around the mark price.",
  ORDER_TOO_SMALL: "The order's quantity is below the market's minimum.",
  PRICE_STALE: "The index price is older than the oracle's staleness bound: trading waits for a fresh price.",
  SELF_TRADE: "The order would trade against the same account.",
  INVALID_SIGNATURE: "A signature (operator approval, registration) is invalid or past its deadline.",
  NOT_REGISTERED: "Closed beta: the wallet is not in the relayer's registry, so it may not write (or get an API key).",
  CLIENT_KEY_IN_USE: "An open order of this account and market already uses this client key.",
  NO_LIQUIDITY: "A MARKET order found no opposite orders to trade against.",
  NOT_LIQUIDATABLE: "The position or account is healthy: nothing to liquidate.",
  TOO_MANY_ORDERS: "The account already has 100 resting orders in this market: cancel one first.",
  OPERATOR_PRICE_TOO_FAR: "An order the relayer (the account's operator) places must be priced, and for a MARKET order fillable, within the market's `operatorBandBps` of the mark price; the account's owner, signing itself, may use the whole price band.",
  OPERATOR_LIMIT_EXCEEDED: "A write the relayer (the account's operator) submits goes beyond the policy the owner set for it on chain (`Engine.setOperator`, or the signed operator approval): a leverage above the policy's `maxLeverage`, or more than its adverse-execution budget (`budgetBps` of the account's value per rolling 24 h: what orders may cost beyond the mark, plus fees). The owner, signing itself, is not bounded by it.",
  POSITION_CAP_EXCEEDED: "The order would take the account's position in this market beyond the market's `maxPositionQty`.",
  OPEN_INTEREST_CAP_EXCEEDED: "The order would take the market's open interest beyond its `maxOpenInterestQty`; orders that only reduce are never refused for it.",
  POST_ONLY_WOULD_CROSS: "A POST_ONLY order, or a modify, is priced at or beyond the best opposite price: it would have taken liquidity instead of resting (nothing was sent or changed). Price it behind the best opposite price, or use GTC.",
  FILL_OR_KILL_UNFILLED: "A FOK order could not fill its whole quantity at once within the price band: nothing filled, nothing changed.",
  REDUCE_ONLY_EXCEEDS_POSITION: "A FOK reduce-only order's quantity (collateral × leverage / price, as an opening order is sized) is larger than the position it reduces; a GTC or IOC one is capped at the position instead.",
  POSITION_NOT_FOUND: "No position with this id.",
  TRANSACTION_NOT_FOUND: "No write with this request id for this caller.",
  EXPIRED: "The write's validUntil passed before it was mined: its nonce went to a no-op, or nothing was sent.",
  CANCELLED: "The write was cancelled by its caller before it was mined.",
  NOT_CANCELLABLE: "The write is already final (mined, reverted, failed or expired): nothing to cancel.",
  RELAYER_OUT_OF_FUNDS: "The relayer's signer is low on ether: writes are refused (nothing queued) until it is funded.",
  SQL_NOT_SUPPORTED_ON_PGLITE: "`/sql` on PGlite (which cannot stop a running statement) answers only one venue table, a WHERE with an equality on an indexed column, LIMIT ≤ 1000, no joins or subqueries; run anything else on Postgres (`DATABASE_URL`, docs/SQL.md).",
  SQL_TIMEOUT: "`/sql` on Postgres: the statement ran longer than `SQL_TIMEOUT_MS` (default 5 s) and was cancelled; narrow the query (an indexed filter, a LIMIT).",
  DEADMAN_TOO_SOON: "The dead-man deadline is in the past or sooner than the chain's time + 5 s (`MIN_DEADMAN_DELAY`); send a later one, or 0 to turn the switch off.",
  BATCH_TOO_LARGE: "A batch has more than 32 items (`MAX_BATCH`): split it; nothing was sent.",
  TRIGGER_NOT_FOUND: "The account has no take-profit (or stop-loss) on its position in this market: never set, cancelled, fired, or ended with its position.",
  TRIGGER_NOT_REACHED: "The mark has not reached the trigger's price: it fires only once the mark is at or beyond it (the trigger is kept).",
  VALIDATION_ERROR: "Malformed input: the message names the field (wrong type, not an integer string, beyond uint256, unknown enum or parameter).",
  UNAUTHENTICATED: "Missing, invalid or expired credentials: bearer token (integration API), X-API-Key (gateway), service or admin token (internal).",
  INSUFFICIENT_SCOPE: "Internal APIs: the calling service's token is valid but its scopes do not include this route.",
  NOT_FOUND: "No such route or resource.",
  METHOD_NOT_ALLOWED: "The route exists but not with this method (the Allow header lists the methods).",
  PAYLOAD_TOO_LARGE: "The request body is larger than the surface accepts.",
  IDEMPOTENCY_CONFLICT: "This Idempotency-Key was already used by the caller with another request body.",
  RATE_LIMITED: "Too many requests: wait for Retry-After seconds (RateLimit-* headers tell the budget).",
  TRANSACTION_REVERTED: "The transaction reverted on chain for a reason without a code of its own.",
  UPSTREAM_ERROR: "An internal service answered something unexpected (the fault is behind the surface you called).",
  SERVICE_UNAVAILABLE: "An internal service or the chain is down or not ready: retry later (Retry-After).",
  UPSTREAM_TIMEOUT: "An internal service did not answer in time; a write may still complete (follow its requestId).",
  INTERNAL_ERROR: "A bug on our side; never caused by what a client sends.",
};

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = ERROR_CODES[code];
  }
}

/** Contract custom error name (contracts/src/interfaces/IVenueErrors.sol) → API code. */
export const CONTRACT_ERROR_CODES: Record<string, ErrorCode> = {
  AccountExists: "ACCOUNT_EXISTS",
  AccountNotFound: "ACCOUNT_NOT_FOUND",
  InvalidAmount: "INVALID_AMOUNT",
  InsufficientBalance: "INSUFFICIENT_BALANCE",
  InsufficientAllowance: "INSUFFICIENT_ALLOWANCE",
  InsufficientMargin: "INSUFFICIENT_MARGIN",
  Unauthorized: "UNAUTHORIZED",
  OperatorNotApproved: "OPERATOR_NOT_APPROVED",
  MarketNotFound: "MARKET_NOT_FOUND",
  MarketNotActive: "MARKET_NOT_ACTIVE",
  MarketClosed: "MARKET_CLOSED",
  MarketReduceOnly: "MARKET_REDUCE_ONLY",
  MarketPostOnly: "MARKET_POST_ONLY",
  MarketCancelOnly: "MARKET_CANCEL_ONLY",
  ExceedsMaxLeverage: "EXCEEDS_MAX_LEVERAGE",
  OrderNotFound: "ORDER_NOT_FOUND",
  NoPosition: "NO_POSITION",
  InvalidPrice: "INVALID_PRICE",
  OrderTooSmall: "ORDER_TOO_SMALL",
  PriceStale: "PRICE_STALE",
  SelfTrade: "SELF_TRADE",
  InvalidSignature: "INVALID_SIGNATURE",
  ClientKeyInUse: "CLIENT_KEY_IN_USE",
  NoLiquidity: "NO_LIQUIDITY",
  NotLiquidatable: "NOT_LIQUIDATABLE",
  // the fill would leave the opened or increased position below initial margin
  BelowInitialMargin: "INSUFFICIENT_MARGIN",
  TooManyOrders: "TOO_MANY_ORDERS",
  // every order storage slot of the market holds a resting order (docs/CONTRACTS.md "Order ids and slots")
  BookFull: "TOO_MANY_ORDERS",
  OperatorPriceTooFar: "OPERATOR_PRICE_TOO_FAR",
  OperatorLimitExceeded: "OPERATOR_LIMIT_EXCEEDED",
  PositionCapExceeded: "POSITION_CAP_EXCEEDED",
  OpenInterestCapExceeded: "OPEN_INTEREST_CAP_EXCEEDED",
  InvalidParameters: "VALIDATION_ERROR",
  // a liquidation's list of deleveraging candidates longer than the market ranks in one call
  TooManyAdlCandidates: "VALIDATION_ERROR",
  // reduceFundPosition before its 300 s interval (the keeper's call; no API route sends it)
  FundReductionNotDue: "VALIDATION_ERROR",
  // Market v2 order options (docs/CONTRACTS.md "Time in force")
  PostOnlyWouldCross: "POST_ONLY_WOULD_CROSS",
  FillOrKillUnfilled: "FILL_OR_KILL_UNFILLED",
  ReduceOnlyExceedsPosition: "REDUCE_ONLY_EXCEEDS_POSITION",
  // a combination of time in force, order type and expiry that does not exist; an expiry not after now
  InvalidOrderOptions: "VALIDATION_ERROR",
  InvalidExpiry: "VALIDATION_ERROR",
  // OpenZeppelin's Ownable guards the tokens' mint; the venue's roles revert Unauthorized
  OwnableUnauthorizedAccount: "UNAUTHORIZED",
  // Engine.setDeadman sooner than now + MIN_DEADMAN_DELAY; Engine.batch / cancelOrders beyond MAX_BATCH
  DeadmanTooSoon: "DEADMAN_TOO_SOON",
  BatchTooLarge: "BATCH_TOO_LARGE",
  // TriggerBook (docs/CONTRACTS.md "Triggers"); a trigger price of 0 or on the side of the mark where it would fire at once
  TriggerNotFound: "TRIGGER_NOT_FOUND",
  TriggerNotReached: "TRIGGER_NOT_REACHED",
  InvalidTrigger: "VALIDATION_ERROR",
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  ACCOUNT_EXISTS: "the wallet already has an account",
  ACCOUNT_NOT_FOUND: "account does not exist",
  INVALID_AMOUNT: "amount must be greater than 0",
  INSUFFICIENT_BALANCE: "not enough of the deposit token",
  INSUFFICIENT_ALLOWANCE: "the engine's allowance of the deposit token is too low",
  INSUFFICIENT_MARGIN: "not enough available margin",
  UNAUTHORIZED: "caller is not the account owner",
  OPERATOR_NOT_APPROVED: "the account owner has not approved the relayer as operator",
  MARKET_NOT_FOUND: "market does not exist",
  MARKET_NOT_ACTIVE: "market is paused",
  MARKET_CLOSED: "market is closed until it reopens",
  MARKET_REDUCE_ONLY: "market is reduce-only before its close: only closes are accepted",
  MARKET_POST_ONLY: "market accepts only post-only orders now",
  MARKET_CANCEL_ONLY: "market accepts only cancels now",
  EXCEEDS_MAX_LEVERAGE: "leverage must be between 1 and the market's maximum",
  ORDER_NOT_FOUND: "no open order with this client key",
  NO_POSITION: "no open position in this market",
  INVALID_PRICE: "price is zero, off the tick, or outside the band around the mark price",
  ORDER_TOO_SMALL: "order quantity is below the market minimum",
  PRICE_STALE: "the index price is stale",
  SELF_TRADE: "the order would trade against the same account",
  INVALID_SIGNATURE: "the signature is invalid or expired",
  CLIENT_KEY_IN_USE: "an open order already uses this client key",
  NO_LIQUIDITY: "no opposite orders to trade against",
  NOT_LIQUIDATABLE: "the position is healthy",
  EXPIRED: "the write was not mined before its validUntil",
  CANCELLED: "the write was cancelled by its caller",
  NOT_CANCELLABLE: "the write is already final",
  RELAYER_OUT_OF_FUNDS: "the relayer's signer is low on ether; retry later",
  INSUFFICIENT_SCOPE: "the calling service's token does not allow this route",
  TOO_MANY_ORDERS: "the account already has the maximum of resting orders (100) in this market",
  OPERATOR_PRICE_TOO_FAR: "an order placed by an operator (the relayer) must be priced within the market's operator band around the mark price",
  OPERATOR_LIMIT_EXCEEDED: "the write goes beyond the policy the account's owner set for the relayer (leverage or daily budget)",
  POSITION_CAP_EXCEEDED: "the order would take the position beyond the market's maximum position size",
  OPEN_INTEREST_CAP_EXCEEDED: "the order would take the market's open interest beyond its cap",
  DEADMAN_TOO_SOON: "the dead-man deadline must be 0 (off) or at least 5 s after the chain's time",
  BATCH_TOO_LARGE: "at most 32 items in one batch",
  TRIGGER_NOT_FOUND: "no such trigger on the account's position in this market",
  TRIGGER_NOT_REACHED: "the mark has not reached the trigger price",
  POST_ONLY_WOULD_CROSS: "the post-only order would cross the best opposite price",
  FILL_OR_KILL_UNFILLED: "the fill-or-kill order could not fill whole at once",
  REDUCE_ONLY_EXCEEDS_POSITION: "the fill-or-kill reduce-only order is larger than the position",
};

/** Turns a decoded contract error (name + args) into an ApiError. */
export function contractError(errorName: string, args?: readonly unknown[]): ApiError {
  const code = CONTRACT_ERROR_CODES[errorName];
  if (!code) return new ApiError("TRANSACTION_REVERTED", `transaction reverted: ${errorName}`);
  const detail = args?.length ? ` (${errorName}: ${args.map(String).join(", ")})` : "";
  return new ApiError(code, `${MESSAGES[code] ?? errorName}${detail}`);
}

export function defaultMessage(code: ErrorCode): string {
  return MESSAGES[code] ?? code.toLowerCase().replaceAll("_", " ");
}
