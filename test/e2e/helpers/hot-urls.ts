/**
 * The hot routes' URLs that the read tests ask: test/e2e/reads-golden.test.ts (the golden files)
 * and test/e2e/reads-batch.test.ts (POST /internal/answers, at most 50 paths and only held keys,
 * no `?minBlock=`). The routes themselves are core/reads/routes.ts's.
 */
export const UNKNOWN_MARKET = `0x${"ab".repeat(32)}`;

export type HotIds = {
  EUR: string;
  GBP: string;
  /** account 0: resting orders on EUR (more than one page of one) */
  acct: bigint;
  /** account 3: a taker with a position on EUR and on GBP */
  a3: bigint;
  /** `nextCursor` of account 0's orders at `limit=1` */
  cursor: string;
};

/** EUR's market id in upper-case hex (0x kept): the same market to every route. */
export const upperCase = (marketId: string) => marketId.toUpperCase().replace("0X", "0x");

/** URLs that answer 200. */
export function hotOk({ EUR, GBP, acct, a3, cursor }: HotIds): string[] {
  const upper = upperCase(EUR);
  return [
    "/markets",
    `/markets/${EUR}`,
    `/markets/${upper}`,
    `/markets/${GBP}`,
    `/markets/${EUR}/funding`,
    `/markets/${EUR}/price`,
    `/markets/${GBP}/price`,
    `/markets/${EUR}/orderbook`,
    `/markets/${EUR}/orderbook?depth=1`,
    `/markets/${EUR}/orderbook?depth=100`,
    `/accounts/${acct}`,
    `/accounts/${a3}`,
    `/accounts/${acct}/orders`,
    `/accounts/${acct}/orders?limit=1`,
    `/accounts/${acct}/orders?limit=1&cursor=${cursor}`,
    `/accounts/${acct}/orders?status=active&marketId=${upper}&limit=2`,
    `/accounts/${a3}/orders?status=filled`,
    `/accounts/${acct}/positions/${EUR}`,
    `/accounts/${a3}/positions/${EUR}`,
    `/accounts/${a3}/positions/${GBP}`,
    `/accounts/${acct}/positions/${EUR}/funding`,
    `/accounts/${a3}/positions/${EUR}/funding`,
  ];
}

/** URLs that answer an error envelope (400 or 404). */
export function hotErrors({ EUR, acct }: HotIds): string[] {
  return [
    `/accounts/0`,
    "/accounts/999999",
    "/accounts/999999/orders?cursor=nope!",
    `/accounts/999999/positions/${EUR}`,
    `/accounts/${acct}/positions/${UNKNOWN_MARKET}/funding`,
    `/accounts/${acct}/orders?marketId=${UNKNOWN_MARKET}&cursor=nope!`,
    `/accounts/${acct}/orders?status=foo`,
    `/accounts/${acct}/orders?limit=1&limit=2`,
    `/accounts/${acct}/orders?cursor=nope!`,
    `/accounts/${acct}?page=2`,
    `/markets/${UNKNOWN_MARKET}/orderbook`,
    `/markets/${EUR}/orderbook?depth=0`,
    `/markets/${EUR}/price?depth=3`,
    "/markets?foo=1",
  ];
}
