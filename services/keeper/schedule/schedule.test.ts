import { describe, expect, it } from "vitest";
import { sessionAt, weekTime } from "./schedule.js";

const fx = { reduceOnlyAt: weekTime("Fri 20:00"), closeAt: weekTime("Fri 21:00"), reopenAt: weekTime("Sun 21:00") };
const at = (iso: string) => Date.parse(iso) / 1000;

describe("weekly FX schedule", () => {
  it("parses weekly times and refuses others", () => {
    expect(weekTime("Mon 00:00")).toBe(0);
    expect(weekTime("Fri 20:00")).toBe(4 * 86_400 + 20 * 3_600);
    expect(() => weekTime("Fri 24:00")).toThrow();
    expect(() => weekTime("friday 20:00")).toThrow();
  });

  it("OPEN in the week, REDUCE_ONLY in the hour before the close, CLOSED over the weekend", () => {
    // 2026-11-27 is a Friday
    expect(sessionAt(fx, at("2026-11-25T12:00:00Z"))).toBe("OPEN");
    expect(sessionAt(fx, at("2026-11-27T19:59:59Z"))).toBe("OPEN");
    expect(sessionAt(fx, at("2026-11-27T20:00:00Z"))).toBe("REDUCE_ONLY");
    expect(sessionAt(fx, at("2026-11-27T20:59:59Z"))).toBe("REDUCE_ONLY");
    expect(sessionAt(fx, at("2026-11-27T21:00:00Z"))).toBe("CLOSED");
    expect(sessionAt(fx, at("2026-11-28T12:00:00Z"))).toBe("CLOSED");
    expect(sessionAt(fx, at("2026-11-29T20:59:59Z"))).toBe("CLOSED");
    expect(sessionAt(fx, at("2026-11-29T21:00:00Z"))).toBe("OPEN");
    expect(sessionAt(fx, at("2026-11-30T00:00:00Z"))).toBe("OPEN");
  });

  it("windows that wrap the week's start", () => {
    const s = { reduceOnlyAt: weekTime("Sun 23:00"), closeAt: weekTime("Sun 23:30"), reopenAt: weekTime("Mon 01:00") };
    expect(sessionAt(s, at("2026-11-29T23:10:00Z"))).toBe("REDUCE_ONLY");
    expect(sessionAt(s, at("2026-11-30T00:30:00Z"))).toBe("CLOSED");
    expect(sessionAt(s, at("2026-11-30T01:00:00Z"))).toBe("OPEN");
  });
});
