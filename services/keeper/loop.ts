/**
 * A periodic task: runs `fn`, waits `intervalMs` after it ends (never overlapping itself), logs
 * failures and keeps going. `stop()` waits for a run in progress; `state()` feeds /health.
 */
import type { Logger } from "pino";

export type LoopState = { runs: number; failures: number; lastRunAt: string | null; lastError: string | null };
export type Loop = { stop: () => Promise<void>; state: () => LoopState };

export function startLoop(name: string, intervalMs: number, fn: () => Promise<unknown>, log: Logger): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const st: LoopState = { runs: 0, failures: 0, lastRunAt: null, lastError: null };

  const tick = async () => {
    try {
      await fn();
      st.lastError = null;
    } catch (e) {
      st.failures++;
      st.lastError = e instanceof Error ? e.message : String(e);
      log.warn({ loop: name, err: st.lastError }, "loop run failed");
    } finally {
      st.runs++;
      st.lastRunAt = new Date().toISOString();
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, intervalMs);
  };
  running = tick().finally(schedule);
  log.info({ loop: name, intervalMs }, "loop started");

  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    state: () => ({ ...st }),
  };
}
