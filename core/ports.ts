/**
 * The venue's ports, in one table: `npm start` (VENUE_BASE_PORT moves them all), each service
 * started alone (its PORT default) and the URLs services use to find each other by default.
 *
 * Every default lies below 32768: Linux hands out 32768–60999 (macOS and Windows 49152–65535) as
 * the local ports of outgoing connections, so any program's connection could hold a port there
 * (it once held Ponder's, which then moved to the stream service's port).
 */
export const VENUE_SERVICES = ["anvil", "reads", "relayer", "keeper", "gateway", "indexer", "streams"] as const;
export type VenueService = (typeof VENUE_SERVICES)[number];

/** `npm start`'s ports without VENUE_BASE_PORT; also each service's own default. */
export const DEFAULT_PORTS: Readonly<Record<VenueService, number>> = {
  anvil: 8545,
  reads: 24069, // the integration API as clients see it (the read service in front of Ponder)
  relayer: 24070,
  keeper: 24071,
  gateway: 8080,
  indexer: 24072, // Ponder's own server
  streams: 24073,
};

/** With VENUE_BASE_PORT=N: anvil N, reads N+1, relayer N+2, keeper N+3, gateway N+4, indexer N+5, streams N+6. */
export function portsFromBase(base: number): Record<VenueService, number> {
  return Object.fromEntries(VENUE_SERVICES.map((s, i) => [s, base + i])) as Record<VenueService, number>;
}

/** The ports of a venue from its environment (VENUE_BASE_PORT, else the defaults). */
export function venuePorts(env: NodeJS.ProcessEnv = process.env): Record<VenueService, number> {
  const raw = env.VENUE_BASE_PORT;
  if (raw === undefined || raw === "") return { ...DEFAULT_PORTS };
  const base = Number(raw);
  if (!Number.isInteger(base) || base < 1024 || base + VENUE_SERVICES.length - 1 > 65535) {
    throw new Error(`VENUE_BASE_PORT must be a whole number from 1024 to ${65536 - VENUE_SERVICES.length} (got "${raw}")`);
  }
  return portsFromBase(base);
}

/** `http://127.0.0.1:<default port of service>`: a service's default URL of another. */
export const defaultUrl = (service: VenueService) => `http://127.0.0.1:${DEFAULT_PORTS[service]}`;
