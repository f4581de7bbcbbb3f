import { describe, expect, it } from "vitest";
import { FX_WEEK, NO_CLOSE, calendarAt, firstOpenAt, lastReopen, nextSessionChange, reopensAt, sessionAt, weekMinute } from "./calendar.js";

const at = (iso: string) => Date.parse(iso) / 1000;

describe("market calendar (MarketCalendar.sol's arithmetic)", () => {
  it("parses weekly times and refuses others", () => {
    expect(weekMinute("Mon 00:00")).toBe(0);
    expect(weekMinute("Fri 20:00")).toBe(4 * 1_440 + 20 * 60);
    expect(() => weekMinute("Fri 24:00")).toThrow();
    expect(() => weekMinute("friday 20:00")).toThrow();
  });

  it("the FX week: OPEN in the week, REDUCE_ONLY in the hour before the close, CLOSED over the weekend", () => {
    // 2026-11-27 is a Friday
    expect(sessionAt(FX_WEEK, at("2026-11-25T12:00:00Z"))).toBe("OPEN");
    expect(sessionAt(FX_WEEK, at("2026-11-27T19:59:59Z"))).toBe("OPEN");
    expect(sessionAt(FX_WEEK, at("2026-11-27T20:00:00Z"))).toBe("REDUCE_ONLY");
    expect(sessionAt(FX_WEEK, at("2026-11-27T20:59:59Z"))).toBe("REDUCE_ONLY");
    expect(sessionAt(FX_WEEK, at("2026-11-27T21:00:00Z"))).toBe("CLOSED");
    expect(sessionAt(FX_WEEK, at("2026-11-28T12:00:00Z"))).toBe("CLOSED");
    expect(sessionAt(FX_WEEK, at("2026-11-29T20:59:59Z"))).toBe("CLOSED");
    expect(sessionAt(FX_WEEK, at("2026-11-29T21:00:00Z"))).toBe("OPEN");
    expect(sessionAt(FX_WEEK, at("2026-11-30T00:00:00Z"))).toBe("OPEN");
    expect(sessionAt(NO_CLOSE, at("2026-11-28T12:00:00Z"))).toBe("OPEN");
  });

  it("a close that wraps the week's start", () => {
    const c = { closeAtMin: weekMinute("Sun 23:30"), windowMin: 30, closedMin: 90 };
    expect(sessionAt(c, at("2026-11-29T23:10:00Z"))).toBe("REDUCE_ONLY");
    expect(sessionAt(c, at("2026-11-30T00:30:00Z"))).toBe("CLOSED");
    expect(sessionAt(c, at("2026-11-30T01:00:00Z"))).toBe("OPEN");
  });

  it("the next calendar from its start; the latest reopening; the first OPEN second", () => {
    const s = { current: FX_WEEK, next: NO_CLOSE, startsAt: at("2026-11-30T00:00:00Z") };
    expect(calendarAt(s, at("2026-11-28T00:00:00Z"))).toBe(FX_WEEK);
    expect(calendarAt(s, at("2026-12-04T21:30:00Z"))).toBe(NO_CLOSE);
    expect(lastReopen(s, at("2026-11-29T22:00:00Z"))).toBe(at("2026-11-29T21:00:00Z"));
    expect(lastReopen(s, at("2026-12-05T12:00:00Z"))).toBe(at("2026-11-29T21:00:00Z"));
    expect(lastReopen({ current: FX_WEEK, next: FX_WEEK, startsAt: 0 }, at("2026-11-28T00:00:00Z"))).toBe(0);
    expect(firstOpenAt(FX_WEEK, at("2026-11-27T20:30:00Z"))).toBe(at("2026-11-29T21:00:00Z"));
    expect(firstOpenAt(FX_WEEK, at("2026-11-28T20:30:00Z"))).toBe(at("2026-11-29T21:00:00Z"));
    expect(firstOpenAt(FX_WEEK, at("2026-11-25T20:30:00Z"))).toBe(at("2026-11-25T20:30:00Z"));
  });

  it("the next session change: window, close, reopening; none without closes; a pending calendar's start", () => {
    const fx = { current: FX_WEEK, next: FX_WEEK, startsAt: 0 };
    expect(nextSessionChange(fx, at("2026-11-25T12:00:00Z"))).toEqual({ at: at("2026-11-27T20:00:00Z"), session: "REDUCE_ONLY" });
    expect(nextSessionChange(fx, at("2026-11-27T20:00:00Z"))).toEqual({ at: at("2026-11-27T21:00:00Z"), session: "CLOSED" });
    expect(nextSessionChange(fx, at("2026-11-28T00:10:00Z"))).toEqual({ at: at("2026-11-29T21:00:00Z"), session: "OPEN" });
    expect(nextSessionChange(fx, at("2026-11-29T21:00:00Z"))).toEqual({ at: at("2026-12-04T20:00:00Z"), session: "REDUCE_ONLY" });
    expect(nextSessionChange({ current: NO_CLOSE, next: NO_CLOSE, startsAt: 0 }, at("2026-11-28T00:00:00Z"))).toBeNull();
    // a close cut short by a calendar without closes from Saturday noon
    const cut = { current: FX_WEEK, next: NO_CLOSE, startsAt: at("2026-11-28T12:00:00Z") };
    expect(nextSessionChange(cut, at("2026-11-28T00:00:00Z"))).toEqual({ at: at("2026-11-28T12:00:00Z"), session: "OPEN" });
    expect(nextSessionChange(cut, at("2026-11-28T12:00:00Z"))).toBeNull();
    // the FX week starting next Monday on a market without closes
    const later = { current: NO_CLOSE, next: FX_WEEK, startsAt: at("2026-11-30T00:00:00Z") };
    expect(nextSessionChange(later, at("2026-11-28T00:00:00Z"))).toEqual({ at: at("2026-12-04T20:00:00Z"), session: "REDUCE_ONLY" });
  });

  it("a refused order's reopening: from the window and from the close, to the same reopening; none when OPEN or never closing", () => {
    const fx = { current: FX_WEEK, next: FX_WEEK, startsAt: 0 };
    expect(reopensAt(fx, at("2026-11-27T20:15:00Z"))).toBe(at("2026-11-29T21:00:00Z"));
    expect(reopensAt(fx, at("2026-11-28T09:00:00Z"))).toBe(at("2026-11-29T21:00:00Z"));
    expect(reopensAt(fx, at("2026-11-25T12:00:00Z"))).toBeNull();
    expect(reopensAt({ current: NO_CLOSE, next: NO_CLOSE, startsAt: 0 }, at("2026-11-28T09:00:00Z"))).toBeNull();
    // a close cut short by a calendar without closes
    expect(reopensAt({ current: FX_WEEK, next: NO_CLOSE, startsAt: at("2026-11-28T12:00:00Z") }, at("2026-11-28T09:00:00Z"))).toBe(at("2026-11-28T12:00:00Z"));
  });
});
