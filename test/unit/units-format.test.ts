import { describe, expect, it } from "vitest";
import { formatUnits as viemFormatUnits } from "viem";
import { formatUnits } from "../../core/units.js";

const MAX_UINT256 = 2n ** 256n - 1n;
const MIN_INT256 = -(2n ** 255n);

/** A random integer of 1..80 digits, either sign, with a random run of trailing zeros. */
function randomInt(rnd: () => number): bigint {
  const digits = 1 + Math.floor(rnd() * 60);
  let s = String(1 + Math.floor(rnd() * 9));
  for (let i = 1; i < digits; i++) s += String(Math.floor(rnd() * 10));
  s += "0".repeat(Math.floor(rnd() * 20));
  return rnd() < 0.3 ? -BigInt(s) : BigInt(s);
}

describe("formatUnits", () => {
  it("equals viem's formatUnits on edge values and random integers, from a bigint or its decimal string", () => {
    const values = [0n, 1n, -1n, 9n, 10n, 100n, 10n ** 6n, 10n ** 18n, -(10n ** 18n), 10n ** 18n - 1n, 10n ** 18n + 1n, 5n * 10n ** 17n, -(5n * 10n ** 17n), 1079600000000000000n, 10n ** 36n, MAX_UINT256, -MAX_UINT256, MIN_INT256, 2n ** 255n - 1n];
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 5_000; i++) values.push(randomInt(rnd));
    for (const v of values) {
      for (const d of [0, 1, 2, 6, 8, 18, 30]) {
        const want = viemFormatUnits(v, d);
        expect(formatUnits(v, d), `${v} / 10^${d}`).toBe(want);
        expect(formatUnits(v.toString(), d), `"${v}" / 10^${d}`).toBe(want);
      }
    }
  });
  it("prints the edge cases exactly", () => {
    expect(formatUnits(0n, 18)).toBe("0");
    expect(formatUnits(1n, 18)).toBe("0.000000000000000001");
    expect(formatUnits(-1n, 18)).toBe("-0.000000000000000001");
    expect(formatUnits(1_500_000n, 6)).toBe("1.5");
    expect(formatUnits(-2_000_000n, 6)).toBe("-2");
    expect(formatUnits("120", 2)).toBe("1.2");
  });
});
