/** The key of a held answer: path and query without `minBlock` (it only says how long to wait), parameters sorted. */
export function answerKey(path: string, search: string): string {
  if (!search) return path;
  const q = new URLSearchParams(search);
  q.delete("minBlock");
  q.sort();
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

const ID = "0x[0-9a-fA-F]{64}";
/** The held routes (path parameters are validated by the first build: tables.ts on Postgres, Ponder's route on PGlite). */
export const HOT = new RegExp(`^/(markets(/${ID}(/(funding|orderbook|price))?)?|accounts/[0-9]{1,30}(/(orders|positions/${ID}(/funding)?))?)$`);
