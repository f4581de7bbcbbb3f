/**
 * A periodic task: runs `fn`, waits `intervalMs` after it ends (never overlapping itself), logs
 * failures and keeps going. `stop()` waits for a run in progress; `state()` feeds /health.
 * `intervalMs` may be a function (read after each run: e.g. slower while a stream drives the
 * task); `wake()` runs the task now instead of at the end of the wait (or, during a run, once
 * more right after it: wakes during one run collapse into one).
 */
import type { Logger } from "pino";

export type LoopState = { runs: number; failures: number; lastRunAt: string | null; lastError: string | null };
export type Loop = { stop: () => Promise<void>; state: () => LoopState; wake: () => void };

export function startLoop(name: string, intervalMs: number | (() => number), fn: () => Promise<unknown>, log: Logger): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let again = false;
  const st: LoopState = { runs: 0, failures: 0, lastRunAt: null, lastError: null };
  const interval = () => (typeof intervalMs === "function" ? intervalMs() : intervalMs);

  const tick = async () => {
    again = false;
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
  const run = () => {
    timer = undefined;
    running = tick().finally(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    if (again) return run();
    timer = setTimeout(run, interval());
  };
  run();
  log.info({ loop: name, intervalMs: interval() }, "loop started");

  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    state: () => ({ ...st }),
    wake: () => {
      if (stopped) return;
      if (timer) {
        clearTimeout(timer);
        return run();
      }
      // during a run, or between its end and the next wait: once more right after
      again = true;
    },
  };
}
