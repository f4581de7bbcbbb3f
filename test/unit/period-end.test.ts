import { describe, expect, it } from "vitest";
import { endsAnHour } from "../../core/history/period-end.js";

describe("endsAnHour (the PnL route's last block at or before an hour end)", () => {
  it("a block stamped exactly on the hour is that hour's end, not the block before it", () => {
    expect(endsAnHour(3_599n, 3_600n)).toBe(false);
    expect(endsAnHour(3_600n, 3_601n)).toBe(true);
  });
  it("crossing an hour, or several, from inside a period", () => {
    expect(endsAnHour(3_599n, 3_601n)).toBe(true);
    expect(endsAnHour(3_601n, 7_199n)).toBe(false);
    expect(endsAnHour(3_601n, 18_001n)).toBe(true);
  });
  it("agrees with a direct search for H with last <= H < next", () => {
    for (let last = 7_190n; last < 7_210n; last++)
      for (let next = last + 1n; next < 7_215n; next++) {
        let found = false;
        for (let h = 0n; h <= next; h += 3_600n) if (last <= h && h < next) found = true;
        expect(endsAnHour(last, next), `${last} → ${next}`).toBe(found);
      }
  });
});
