/**
 * Polls `fn` until it returns something truthy (its value is returned). A throw counts as "not
 * yet"; past `timeoutMs` the test fails, naming what it waited for and the last error.
 */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, stepMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
