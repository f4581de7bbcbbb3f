import { describe, expect, it } from "vitest";
import { secondsToISO } from "../../core/units.js";

describe("secondsToISO", () => {
  it("equals Date#toISOString for any second, bigint or number, in any order of days", () => {
    const samples = [0, 59, 60, 3599, 3600, 86_399, 86_400, 951_782_400 /* 2000-02-29 */, 1_789_408_518, 4_102_444_799, 253_402_300_799];
    for (let i = 0; i < 20_000; i++) samples.push(Math.floor(Math.random() * 253_402_300_800));
    for (const s of samples) {
      const want = new Date(s * 1000).toISOString();
      expect(secondsToISO(s)).toBe(want);
      expect(secondsToISO(BigInt(s))).toBe(want);
      expect(secondsToISO(s + 1)).toBe(new Date((s + 1) * 1000).toISOString());
    }
  });
  it("keeps Date's answers outside the fast range", () => {
    for (const s of [-1, -86_401, 253_402_300_800, 1.5]) expect(secondsToISO(s)).toBe(new Date(s * 1000).toISOString());
    expect(() => secondsToISO(Number.NaN)).toThrow(RangeError);
  });
});
