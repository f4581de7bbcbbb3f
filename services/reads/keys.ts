/** The key of a held answer: path and query without `minBlock` (it only says how long to wait), parameters sorted. */
export function answerKey(path: string, search: string): string {
  if (!search) return path;
  const q = new URLSearchParams(search);
  q.delete("minBlock");
  q.sort();
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
