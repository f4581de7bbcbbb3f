/**
 * Units and formatting, in one place. bigint inside; decimal strings only at the edge.
 *   amount6  deposit-token base units (6 decimals)
 *   wad      internal margin, PnL, fees (18 decimals)       wad = amount6 * 10^12
 *   priceX18 prices (18 decimals), qty base-asset quantities (18 decimals)
 *   rateX18  funding rate per hour (18 decimals)
 *   bps      basis points (100 = 1 %)
 * `...Formatted` companions are exact decimals (`formatUnits`: viem's output, no floats).
 */

export const WAD = 10n ** 18n;
export const AMOUNT6_TO_WAD = 10n ** 12n;
export const BPS = 10_000n;

export const toWad = (amount6: bigint) => amount6 * AMOUNT6_TO_WAD;

/**
 * An integer in base units → its exact decimal string with `decimals` places, trailing zeros and
 * a bare point dropped: viem's `formatUnits` to the byte (a test compares them), done on the
 * digits without its padStart and trailing-zero regex. Also takes the integer's decimal string
 * (the history lists keep Postgres' numeric text and never build the bigint).
 */
export function formatUnits(value: bigint | string, decimals: number): string {
  let s = typeof value === "string" ? value : value.toString();
  let sign = "";
  if (s.charCodeAt(0) === 45 /* - */) {
    sign = "-";
    s = s.slice(1);
  }
  if (decimals <= 0) return sign + s;
  const n = s.length;
  const intLen = n - decimals;
  let end = n; // the fraction's digits end before the trailing zeros
  while (end > 0 && end > intLen && s.charCodeAt(end - 1) === 48 /* 0 */) end--;
  if (intLen > 0) return end > intLen ? `${sign}${s.slice(0, intLen)}.${s.slice(intLen, end)}` : sign + s.slice(0, intLen);
  return end === 0 ? `${sign}0` : `${sign}0.${"0".repeat(-intLen)}${s.slice(0, end)}`;
}

export const formatWad = (wad: bigint) => formatUnits(wad, 18);
export const formatAmount6 = (amount6: bigint) => formatUnits(amount6, 6);
/** bps → percent string: 250 → "2.5". */
export const bpsToPercent = (bps: bigint) => formatUnits(bps, 2);
/** An 18-decimal fraction → percent string: 0.0125e18 → "1.25". */
export const x18ToPercent = (x18: bigint) => formatUnits(x18 * 100n, 18);
/**
 * Unix seconds → ISO 8601 UTC ("2026-09-14T17:55:18.000Z", as Date#toISOString). The history
 * lists print one per row: the date part is kept for the last day seen (a page's rows mostly
 * share their day), the time of day is arithmetic; other inputs go through Date as before.
 */
export function secondsToISO(seconds: bigint | number): string {
  const s = Number(seconds);
  if (!Number.isSafeInteger(s) || s < 0 || s >= MAX_ISO_S) return new Date(s * 1000).toISOString();
  const day = Math.floor(s / 86_400);
  if (day !== isoDay) {
    isoDate = new Date(day * 86_400_000).toISOString().slice(0, 11);
    isoDay = day;
  }
  const t = s - day * 86_400;
  const h = Math.floor(t / 3600);
  const m = Math.floor(t / 60) % 60;
  const sec = t % 60;
  return `${isoDate}${h < 10 ? "0" : ""}${h}:${m < 10 ? "0" : ""}${m}:${sec < 10 ? "0" : ""}${sec}.000Z`;
}
/** 10000-01-01T00:00:00Z: from there toISOString prints a 6-digit signed year */
const MAX_ISO_S = 253_402_300_800;
let isoDay = -1;
let isoDate = "";

