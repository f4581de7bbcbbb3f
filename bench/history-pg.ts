/** CPU time of given processes (Postgres backends), from /proc (Linux only). */
import { readFileSync } from "node:fs";

const CLK_TCK = 100;

/** utime + stime (ms) summed over `pids` (a pid gone meanwhile counts 0). */
export function pidsCpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return (ticks * 1000) / CLK_TCK;
}
