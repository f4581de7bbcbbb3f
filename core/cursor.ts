/**
 * Opaque keyset cursors for every paged list (both surfaces): the sort key of a page's last item,
 * tagged with the list's name, as base64url JSON. A client passes `nextCursor` back as `cursor`
 * and gets the items after it in the same order, so rows inserted meanwhile (newer, sorting
 * first) neither repeat nor shift the next page, as an offset would. Clients must treat the
 * string as opaque; its layout may change.
 */
import { ApiError } from "./errors.js";

/** Sort-key values: bigints travel as decimal strings. */
export type CursorKey = readonly (string | bigint)[];

type Payload = { l: string; k: string[] };

export function encodeCursor(list: string, key: CursorKey): string {
  const payload: Payload = { l: list, k: key.map(String) };
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

const CURSOR_RE = /^[A-Za-z0-9_-]{1,512}$/;

/**
 * The sort key of a cursor made by `encodeCursor(list, ...)` with `arity` values; anything else
 * (another list's cursor, a hand-made string) is 400 VALIDATION_ERROR naming `field`.
 */
export function decodeCursor(list: string, cursor: string, arity: number, field = "cursor"): string[] {
  const bad = () => new ApiError("VALIDATION_ERROR", `${field}: not a cursor of this list (pass nextCursor back unchanged)`);
  if (!CURSOR_RE.test(cursor)) throw bad();
  let p: unknown;
  try {
    p = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  const { l, k } = (p ?? {}) as Partial<Payload>;
  if (l !== list || !Array.isArray(k) || k.length !== arity || !k.every((v) => typeof v === "string" && v.length <= 100)) throw bad();
  return k;
}

/** Decodes a cursor whose values are all unsigned integers (block numbers, ids). */
export function decodeUintCursor(list: string, cursor: string, arity: number, field = "cursor"): bigint[] {
  const k = decodeCursor(list, cursor, arity, field);
  if (!k.every((v) => /^\d{1,78}$/.test(v))) throw new ApiError("VALIDATION_ERROR", `${field}: not a cursor of this list (pass nextCursor back unchanged)`);
  return k.map(BigInt);
}
