/**
 * The market schedule the keeper applies (docs/CONTRACTS.md "Weekends and gaps"): a weekly FX
 * week in UTC, e.g. reduce-only from Fri 20:00, closed from Fri 21:00, open again Sun 21:00.
 * `sessionAt` is pure (tests drive it with explicit times); `SessionScheduler.round(now)` sets
 * every market whose on-chain session differs from the schedule's (Engine.setMarketSession,
 * SCHEDULE_ROLE: the keeper's key).
 */
import type { Address, PublicClient } from "viem";
import type { Logger } from "pino";
import { engineAbi, marketAbi } from "../../../abis/index.js";
import { errorName, type Signer } from "../chain/clients.js";
import type { MarketDirectory } from "../chain/markets.js";

export const SESSIONS = ["OPEN", "REDUCE_ONLY", "CLOSED"] as const;
export type SessionName = (typeof SESSIONS)[number];
/** Seconds since Monday 00:00 UTC of each switch. */
export type WeeklySchedule = { reduceOnlyAt: number; closeAt: number; reopenAt: number };

const WEEK = 7 * 86_400;
const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** "Fri 20:00" → seconds since Monday 00:00 UTC. */
export function weekTime(text: string): number {
  const m = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!m) throw new Error(`not a weekly time (e.g. "Fri 20:00"): ${text}`);
  return DAYS.indexOf(m[1]!) * 86_400 + Number(m[2]) * 3_600 + Number(m[3]) * 60;
}

/** The session at unix time `now` (seconds): REDUCE_ONLY in [reduceOnlyAt, closeAt), CLOSED in [closeAt, reopenAt), cyclically. */
export function sessionAt(s: WeeklySchedule, now: number): SessionName {
  // 1970-01-01 was a Thursday: the first Monday 00:00 is 4 days later
  const t = (((now - 4 * 86_400) % WEEK) + WEEK) % WEEK;
  const since = (a: number) => (t - a + WEEK) % WEEK;
  const closed = (s.reopenAt - s.closeAt + WEEK) % WEEK;
  const window = (s.closeAt - s.reduceOnlyAt + WEEK) % WEEK;
  if (since(s.closeAt) < closed) return "CLOSED";
  if (since(s.reduceOnlyAt) < window) return "REDUCE_ONLY";
  return "OPEN";
}

export class SessionScheduler {
  constructor(
    private readonly client: PublicClient,
    private readonly signer: Signer,
    private readonly engine: Address,
    private readonly markets: MarketDirectory,
    private readonly schedule: WeeklySchedule,
    private readonly log: Logger,
  ) {}

  /** Sets each market to the schedule's session at `now` (seconds); returns how many changed. */
  async round(now = Math.floor(Date.now() / 1000)): Promise<number> {
    const want = sessionAt(this.schedule, now);
    let changed = 0;
    for (const m of await this.markets.list()) {
      const [current] = (await this.client.readContract({ address: m.address, abi: marketAbi, functionName: "session" })) as readonly [number, bigint, bigint];
      if (SESSIONS[current] === want) continue;
      try {
        await this.signer.write({ address: this.engine, abi: engineAbi, functionName: "setMarketSession", args: [m.marketId, SESSIONS.indexOf(want)] });
        changed++;
        this.log.info({ market: m.symbol, from: SESSIONS[current], to: want }, "market session switched");
      } catch (e) {
        this.log.warn({ market: m.symbol, to: want, err: errorName(e) }, "setMarketSession failed");
      }
    }
    return changed;
  }
}
