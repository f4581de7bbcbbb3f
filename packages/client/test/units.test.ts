import { describe, expect, it } from "vitest";
import { formatUnits as viemFormat, parseUnits as viemParse } from "viem";
import { amount6, big, formatAmount6, formatX18, parseUnits, roundToTick, x18 } from "../src/units.js";

describe("units", () => {
  it("parses exact decimals to base units and back", () => {
    expect(amount6("100.5")).toBe(100_500000n);
    expect(amount6("0.000001")).toBe(1n);
    expect(x18("1.0825")).toBe(1_082500000000000000n);
    expect(x18("-0.5")).toBe(-500000000000000000n);
    expect(parseUnits(".5", 6)).toBe(500000n);
    expect(parseUnits("7.", 6)).toBe(7_000000n);
    expect(parseUnits("1.500000000", 6)).toBe(1_500000n); // trailing zeros beyond the decimals are exact
    expect(formatAmount6(100_500000n)).toBe("100.5");
    expect(formatX18("1082500000000000000")).toBe("1.0825");
    for (const v of ["0", "1", "123.456789", "0.000001", "-42.1"]) expect(formatAmount6(amount6(v))).toBe(v);
  });

  it("agrees with viem where both are exact", () => {
    for (const v of ["0.1", "99999999.999999", "1", "0.000001"]) {
      expect(amount6(v)).toBe(viemParse(v, 6));
      expect(formatAmount6(amount6(v))).toBe(viemFormat(viemParse(v, 6), 6));
    }
  });

  it("refuses what is not exact", () => {
    expect(() => amount6("0.0000001")).toThrow(/more than 6 decimals/);
    expect(() => amount6("1e6")).toThrow(RangeError);
    expect(() => amount6("")).toThrow(RangeError);
    expect(() => amount6(" 1")).toThrow(RangeError);
    expect(() => amount6(".")).toThrow(RangeError);
    expect(() => big("1.5")).toThrow(RangeError);
  });

  it("reads integer fields and rounds to the tick", () => {
    expect(big("1082500000000000000")).toBe(1082500000000000000n);
    expect(big(null)).toBe(null);
    expect(roundToTick(x18("1.08257"), x18("0.0001"))).toBe(x18("1.0825"));
  });
});
