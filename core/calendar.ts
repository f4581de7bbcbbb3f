/**
 * The market calendar (docs/CONTRACTS.md "Weekends and gaps"), as contracts/src/libraries/
 * MarketCalendar.sol computes it: a market's session follows `block.timestamp` and the calendar
 * stored on chain (IMarket.Calendar: one weekly close), never a key. The deploy and start scripts
 * schedule calendars with it, the reads and the keeper derive sessions with it.
 */
export const SESSIONS = ["OPEN", "REDUCE_ONLY", "CLOSED"] as const;
export type SessionName = (typeof SESSIONS)[number];

/** IMarket.Calendar: CLOSED from `closeAtMin` (minutes since Monday 00:00 UTC) for `closedMin`, REDUCE_ONLY the `windowMin` before. */
export type Calendar = { closeAtMin: number; windowMin: number; closedMin: number };
/** What the market stores: the calendar in force until `startsAt` (seconds; 0: none scheduled), `next` from then. */
export type CalendarState = { current: Calendar; next: Calendar; startsAt: number };

const WEEK = 7 * 86_400;
const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
/** MarketCalendar.MAX_CLOSED: the longest CLOSED stretch (the FX weekend, 48 h, plus two holiday days). */
export const MAX_CLOSED_SECONDS = 96 * 3_600;

/** "Fri 20:00" → minutes since Monday 00:00 UTC. */
export function weekMinute(text: string): number {
  const m = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!m) throw new Error(`not a weekly time (e.g. "Fri 20:00"): ${text}`);
  return DAYS.indexOf(m[1]!) * 1_440 + Number(m[2]) * 60 + Number(m[3]);
}

/** No close: always OPEN (the local chain's `SCHEDULE_ENABLED=false`). */
export const NO_CLOSE: Calendar = { closeAtMin: 0, windowMin: 0, closedMin: 0 };
/** The FX week: REDUCE_ONLY from Friday 20:00, CLOSED Friday 21:00 to Sunday 21:00 UTC. */
export const FX_WEEK: Calendar = { closeAtMin: weekMinute("Fri 21:00"), windowMin: 60, closedMin: 48 * 60 };

export const sameCalendar = (a: Calendar, b: Calendar) =>
  a.closeAtMin === b.closeAtMin && a.windowMin === b.windowMin && a.closedMin === b.closedMin;

/** Seconds since the latest close start at or before `t` (cyclic over the week). */
function sinceClose(c: Calendar, t: number): number {
  // 1970-01-01 was a Thursday: Monday 00:00 is 4 days after the epoch
  const pos = (t + 3 * 86_400) % WEEK;
  return (((pos - c.closeAtMin * 60) % WEEK) + WEEK) % WEEK;
}

/** The session of calendar `c` at unix time `t` (seconds). */
export function sessionAt(c: Calendar, t: number): SessionName {
  if (c.closedMin === 0) return "OPEN";
  const d = sinceClose(c, t);
  if (d < c.closedMin * 60) return "CLOSED";
  if (d >= WEEK - c.windowMin * 60) return "REDUCE_ONLY";
  return "OPEN";
}

/** The calendar in force at `t`. */
export const calendarAt = (s: CalendarState, t: number): Calendar => (s.startsAt !== 0 && t >= s.startsAt ? s.next : s.current);

/** The end of the latest CLOSED stretch at or before `t` (0: none, or `t` is in one): MarketBase._lastReopen. */
export function lastReopen(s: CalendarState, t: number): number {
  const one = (c: Calendar, at: number) => {
    if (c.closedMin === 0) return 0;
    const d = sinceClose(c, at);
    const l = c.closedMin * 60;
    return d >= l && at >= d - l ? at - (d - l) : 0;
  };
  if (s.startsAt === 0 || t < s.startsAt) return one(s.current, t);
  const r = one(s.next, t);
  if (r >= s.startsAt) return r;
  return sessionAt(s.current, s.startsAt) === "CLOSED" ? s.startsAt : one(s.current, s.startsAt);
}

/** The latest session switch at or before `t` under the calendar in force (its start at the earliest); null: no close ever. */
export function lastSwitch(s: CalendarState, t: number): number | null {
  const c = calendarAt(s, t);
  const floor = s.startsAt !== 0 && t >= s.startsAt ? s.startsAt : 0;
  if (c.closedMin === 0) return floor === 0 ? null : floor;
  const d = sinceClose(c, t);
  const l = c.closedMin * 60;
  const at = d < l ? t - d : d >= WEEK - c.windowMin * 60 ? t - d + WEEK - c.windowMin * 60 : t - (d - l);
  return Math.max(at, floor);
}

/** The first second ≥ `from` at which `c` is OPEN (a calendar must start OPEN: IMarket.scheduleCalendar). */
export function firstOpenAt(c: Calendar, from: number): number {
  if (sessionAt(c, from) === "OPEN") return from;
  const d = sinceClose(c, from);
  // in the window: to the close's end; in the close: to its end
  return d < c.closedMin * 60 ? from + c.closedMin * 60 - d : from + (WEEK - d) + c.closedMin * 60;
}

/** The session of a market with calendar state `s` at unix time `t`. */
export const sessionOf = (s: CalendarState, t: number): SessionName => sessionAt(calendarAt(s, t), t);

/** The first boundary (window start, close, reopening) of `c` strictly after `t`; null: no close ever. */
function nextBoundary(c: Calendar, t: number): number | null {
  if (c.closedMin === 0) return null;
  const d = sinceClose(c, t);
  if (d < c.closedMin * 60) return t + c.closedMin * 60 - d; // the reopening
  const windowStart = WEEK - c.windowMin * 60;
  return d < windowStart ? t + windowStart - d : t + WEEK - d; // the window's start, else the close
}

/**
 * The next time after `t` the session changes, and to what (null: it never does): what `npm start`
 * prints and a refused order's reopening time.
 */
export function nextSessionChange(s: CalendarState, t: number): { at: number; session: SessionName } | null {
  const now = sessionOf(s, t);
  let x = t;
  // at most a window, a close and a reopening per calendar, plus the pending calendar's start
  for (let i = 0; i < 8; i++) {
    const candidates = [nextBoundary(calendarAt(s, x), x), s.startsAt > x ? s.startsAt : null].filter((v): v is number => v !== null);
    if (candidates.length === 0) return null;
    x = Math.min(...candidates);
    const session = sessionOf(s, x);
    if (session !== now) return { at: x, session };
  }
  return null;
}

/** The first time after `t` a market that is not OPEN at `t` opens again (null: OPEN at `t`, or never): a refused order's reopening. */
export function reopensAt(s: CalendarState, t: number): number | null {
  if (sessionOf(s, t) === "OPEN") return null;
  let x = t;
  // from REDUCE_ONLY: the close, then the reopening
  for (let i = 0; i < 3; i++) {
    const change = nextSessionChange(s, x);
    if (change === null) return null;
    if (change.session === "OPEN") return change.at;
    x = change.at;
  }
  return null;
}

/** The calendar columns of an indexed market state row (ponder.schema.ts marketState). */
export type CalendarColumns = {
  calendarCloseAtMin: number; calendarWindowMin: number; calendarClosedMin: number;
  nextCalendarCloseAtMin: number; nextCalendarWindowMin: number; nextCalendarClosedMin: number; calendarStartsAt: bigint;
};

export const calendarOf = (s: CalendarColumns): CalendarState => ({
  current: { closeAtMin: s.calendarCloseAtMin, windowMin: s.calendarWindowMin, closedMin: s.calendarClosedMin },
  next: { closeAtMin: s.nextCalendarCloseAtMin, windowMin: s.nextCalendarWindowMin, closedMin: s.nextCalendarClosedMin },
  startsAt: Number(s.calendarStartsAt),
});
