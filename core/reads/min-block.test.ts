import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeOnError } from "../http/errors.js";
import { errorBuilt } from "./plans.js";
import { waitForMinBlock, type BlockRead } from "./min-block.js";

/** A read that sees the blocks of `blocks` in turn (the last one from then on), counting its calls. */
function reads(blocks: bigint[]) {
  let calls = 0;
  const read = async (): Promise<BlockRead<string>> => {
    const block = blocks[Math.min(calls, blocks.length - 1)]!;
    calls++;
    return { block, value: `rows@${block}` };
  };
  return { read, calls: () => calls };
}

const BODY_503 = '{"success":false,"error":{"code":"SERVICE_UNAVAILABLE","message":"block 9 is not indexed yet (indexed: 7); retry"}}';

describe("waitForMinBlock (core/reads/min-block.ts)", () => {
  // The clock is vitest's fake one: each wait takes exactly the polls it should, whatever the machine's load.
  afterEach(() => {
    vi.useRealTimers();
  });

  it("at or above minBlock: the first read, at once (no timer), no error", async () => {
    vi.useFakeTimers();
    for (const min of [0n, 5n]) {
      const r = reads([5n]);
      const t0 = Date.now();
      const w = waitForMinBlock(r.read, min, 5_000);
      await expect(w).resolves.toEqual({ block: 5n, value: "rows@5" });
      expect(r.calls()).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
      expect(Date.now() - t0).toBe(0);
    }
  });

  it("below it: reads again every poll until the block is there, and returns that read", async () => {
    vi.useFakeTimers();
    const r = reads([3n, 3n, 4n, 6n, 9n]);
    const t0 = Date.now();
    const w = waitForMinBlock(r.read, 6n, 5_000, 10);
    await vi.advanceTimersByTimeAsync(29);
    expect(r.calls()).toBe(3); // reads at 0, 10 and 20 ms
    await vi.advanceTimersByTimeAsync(1);
    await expect(w).resolves.toEqual({ block: 6n, value: "rows@6" });
    expect(r.calls()).toBe(4);
    expect(Date.now() - t0).toBe(30); // three polls of 10 ms
  });

  it("never there: after the bound, the last read and blockNotIndexed's 503 at its block", async () => {
    vi.useFakeTimers();
    const r = reads([5n, 6n, 7n]);
    const t0 = Date.now();
    let done = false;
    const w = waitForMinBlock(r.read, 9n, 60, 10).finally(() => (done = true));
    await vi.advanceTimersByTimeAsync(59);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const got = await w;
    expect(Date.now() - t0).toBe(60);
    expect(r.calls()).toBe(7); // at 0, 10, …, 60 ms
    expect([got.block, got.value]).toEqual([7n, "rows@7"]);
    expect([got.error?.code, got.error?.status, got.error?.message]).toEqual(["SERVICE_UNAVAILABLE", 503, "block 9 is not indexed yet (indexed: 7); retry"]);
  });

  it("a bound of 0: one read, then the 503 (no wait)", async () => {
    const r = reads([7n]);
    const w = await waitForMinBlock(r.read, 9n, 0);
    expect([r.calls(), w.block, w.error?.status]).toEqual([1, 7n, 503]);
  });

  it("the 503's bytes: Ponder's middleware and batch route (thrown, onError) and the read service's builds (errorBuilt) answer the same", async () => {
    const app = new Hono();
    app.onError(makeOnError());
    // as indexedBlock.ts and routes/answers.ts do with the result
    app.get("/read", async (c) => {
      const w = await waitForMinBlock(reads([7n]).read, 9n, 30, 10);
      c.header("X-Indexed-Block", w.block.toString());
      if (w.error) throw w.error;
      return c.json({ success: true, data: w.value });
    });
    const res = await app.request("/read");
    expect([res.status, res.headers.get("retry-after"), res.headers.get("x-indexed-block"), res.headers.get("content-type")]).toEqual([503, "1", "7", "application/json"]);
    expect(await res.text()).toBe(BODY_503);
    // as services/reads/tables.ts does: the held answer's status, bytes and block
    const w = await waitForMinBlock(reads([7n]).read, 9n, 0);
    expect(errorBuilt(w.error!, w.block)).toEqual({ status: 503, body: BODY_503, block: "7" });
  });
});
