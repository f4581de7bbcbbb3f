/**
 * A periodic task: runs `fn`, waits `intervalMs` after it ends (never overlapping itself), logs
 * failures and keeps going. `stop()` waits for a run in progress.
 */
import type { Logger } from "pino";

export type Loop = { stop: () => Promise<void>; runNow: () => Promise<void> };

export function startLoop(name: string, intervalMs: number, fn: () => Promise<void>, log: Logger): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = async () => {
    try {
      await fn();
    } catch (e) {
      log.warn({ loop: name, err: e instanceof Error ? e.message : String(e) }, "loop run failed");
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
    runNow: () => (running = running.then(tick)),
  };
}
