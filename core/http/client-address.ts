/**
 * The client's address behind reverse proxies: `X-Forwarded-For` is believed only when the TCP
 * peer is a trusted proxy (`TRUSTED_PROXIES`: addresses or CIDRs, comma-separated), and only up
 * to the first hop that is not one (walking from the right, as each proxy appends its peer).
 * Without trusted proxies the socket peer is the client, whatever the headers say.
 */
import { BlockList, isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/** `::ffff:10.0.0.1` → `10.0.0.1`, so one list covers both forms of an IPv4 peer. */
const unmap = (a: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a) ? a.slice(7) : a);

export type TrustedProxies = (address: string) => boolean;

/** Parses `TRUSTED_PROXIES` (e.g. `10.0.0.0/8, 127.0.0.1, fd00::/8`); throws on a bad entry. */
export function trustedProxies(list: string | undefined): TrustedProxies {
  const entries = (list ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0) return () => false;
  const blocks = new BlockList();
  for (const entry of entries) {
    const [addr, bits, extra] = entry.split("/");
    const family = isIP(addr ?? "");
    if (!family || extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an address or CIDR`);
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) blocks.addAddress(addr!, type);
    else blocks.addSubnet(addr!, Number(bits), type);
  }
  return (address) => {
    const a = unmap(address);
    const family = isIP(a);
    return family !== 0 && blocks.check(a, family === 4 ? "ipv4" : "ipv6");
  };
}

/** The client per the rules above; undefined when the peer is unknown. */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string | undefined {
  if (peer === undefined) return undefined;
  let client = unmap(peer);
  if (!trusted(client) || !forwardedFor) return client;
  const hops = forwardedFor.split(",").map((s) => unmap(s.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!isIP(hop)) return client; // garbage from further left cannot be believed
    client = hop;
    if (!trusted(hop)) return hop;
  }
  return client;
}

/** The socket peer under @hono/node-server (Ponder serves with it too); undefined elsewhere. */
export function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** `(c) => client address` of a request, from the socket peer (or `peer(c)`) and the trusted proxies. */
export const clientAddressOf =
  (trusted: TrustedProxies, peer: (c: Context) => string | undefined = socketAddress) =>
  (c: Context): string | undefined =>
    clientAddress(peer(c), c.req.header("x-forwarded-for"), trusted);
