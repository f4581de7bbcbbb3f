/**
 * Port checks of a local venue, right before each process starts: a port another program holds
 * is named within seconds with the fix (VENUE_BASE_PORT), not found out as a start that never
 * gets ready.
 */
import { createServer } from "node:net";
import { VENUE_SERVICES, portsFromBase } from "../../core/ports.js";

/** True when nothing may listen on `host:port` now (a listener, or another socket bound to it). */
export function portTaken(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" || e.code === "EACCES" ? resolve(true) : reject(e)));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** A VENUE_BASE_PORT below 32768 whose seven ports are all free now (undefined if none is). */
export async function freeBasePort(from = 20000, to = 32000, step = 100): Promise<number | undefined> {
  for (let base = from; base <= to; base += step) {
    const taken = await Promise.all(Object.values(portsFromBase(base)).map((p) => portTaken(p)));
    if (!taken.includes(true)) return base;
  }
  return undefined;
}

/** Throws naming each taken port and its service, with a VENUE_BASE_PORT that is free. */
export async function assertPortsFree(ports: Partial<Record<string, number>>): Promise<void> {
  const entries = Object.entries(ports).filter((e): e is [string, number] => e[1] !== undefined);
  const results = await Promise.all(entries.map(([, port]) => portTaken(port)));
  const busy = entries.filter((_, i) => results[i]);
  if (busy.length === 0) return;
  const base = await freeBasePort();
  throw new Error(
    `port${busy.length > 1 ? "s" : ""} ${busy.map(([name, port]) => `${port} (${name})`).join(", ")} ${busy.length > 1 ? "are" : "is"} in use by another program. ` +
      `Stop it, or move every venue port with VENUE_BASE_PORT (${VENUE_SERVICES.join(", ")} on N, N+1, …)` +
      (base ? `, e.g. VENUE_BASE_PORT=${base} npm start` : ""),
  );
}
