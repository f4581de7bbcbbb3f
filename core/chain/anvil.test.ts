import { describe, expect, it } from "vitest";
import { freePort, portAllocator } from "./anvil.js";

describe("port allocation", () => {
  it("skips a port the OS offers again after handing it out", async () => {
    const offered = [5, 5, 5, 6];
    const next = portAllocator(async () => offered.shift()!);
    expect([await next(), await next()]).toEqual([5, 6]);
  });

  it("gives up when the OS offers nothing new", async () => {
    const next = portAllocator(async () => 7);
    expect(await next()).toBe(7);
    await expect(next()).rejects.toThrow(/handed out before/);
  });

  it("freePort hands out distinct ports when asked concurrently", async () => {
    const ports = await Promise.all(Array.from({ length: 300 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
  });
});
