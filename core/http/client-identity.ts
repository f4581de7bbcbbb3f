/**
 * The client's identity on an internal hop. The first process that sees a request counts it
 * against its client (`ip:<address>` by core/http/client-address.ts, `key:<id>` for an API key)
 * and passes that identity on in `X-Venue-Client`, beside its own service token. The receiving
 * process believes the header only when the request carries a valid `X-Internal-Token`
 * (core/auth/service-tokens.ts); from anyone else it is ignored, and the first process replaces
 * whatever a client sent in it.
 */
export const CLIENT_IDENTITY_HEADER = "X-Venue-Client";

const IDENTITY_RE = /^(ip|key):[0-9A-Za-z:._-]{1,128}$/;

/** `ip:<address>` or `key:<id>`, else undefined (a malformed header counts as none). */
export function parseClientIdentity(value: string | undefined): string | undefined {
  return value !== undefined && IDENTITY_RE.test(value) ? value : undefined;
}

/** The identity of a client counted by its address (`unknown` when the peer is not known). */
export const addressIdentity = (address: string | undefined) => `ip:${address ?? "unknown"}`;
