/**
 * The market maker as the keeper runs it: its reads through the client's `VenueClient` against
 * the integration API, its re-quotes driven by the stream service's `market` channels (the
 * client's `StreamClient`), and a poll as the fallback: every `intervalMs` while the stream is
 * down (or not up yet), every `streamPollMs` while it is connected (a fill deep in the book moves
 * none of a market's values). Neither service being up yet stops the keeper: the maker logs that
 * it waits and tries again. With the dead-man switch on, the poll is at most a quarter of its
 * period. `close()` ends the stream (no reconnect) and the loop (the deadline stays armed: the
 * quotes are cancelled from it unless a maker runs again).
 */
import type { PublicClient } from "viem";
import type { Logger } from "pino";
import { StreamClient, VenueClient, type WebSocketFactory } from "../../../packages/client/src/index.js";
import type { Signer } from "../chain/clients.js";
import { startLoop, type Loop } from "../loop.js";
import { MarketFollower } from "./follow.js";
import { MarketMaker, type MakerOptions, type VenueAddresses } from "./maker.js";

export type MarketMakerRunOptions = {
  /** the integration API (INTEGRATION_URL) */
  integrationUrl: string;
  /** the stream service's base URL (STREAMS_URL, http://…): its WebSocket is `/ws` */
  streamsUrl: string;
  /** sent as X-Internal-Token: the keeper's own reads are not counted against a client's rate limit */
  internalToken?: string;
  /** the poll while the stream is down (ms) */
  intervalMs: number;
  /** the poll while the stream is connected (ms) */
  streamPollMs: number;
  /** per-request timeout (ms) */
  timeoutMs?: number;
  chain: PublicClient;
  maker: Signer;
  deployer: Signer;
  addresses: VenueAddresses;
  opts: MakerOptions;
  log: Logger;
  /** tests: a stream reconnect backoff of their own */
  reconnect?: { initialMs?: number; maxMs?: number };
  webSocket?: WebSocketFactory;
};

export type RunningMarketMaker = { maker: MarketMaker; loop: Loop; follower: MarketFollower; api: VenueClient; close: () => Promise<void> };

/** `http://host:port` → `ws://host:port/ws` (https → wss). */
export const streamsWsUrl = (base: string) => `${base.replace(/\/+$/, "").replace(/^http/, "ws")}/ws`;

export function startMarketMaker(o: MarketMakerRunOptions): RunningMarketMaker {
  const token = o.internalToken;
  const api = new VenueClient({
    baseUrl: o.integrationUrl,
    timeoutMs: o.timeoutMs,
    // a read at minBlock not indexed within the server's bound answers 503 with Retry-After
    retry: { retries: 2, maxWaitMs: 5_000 },
    ...(token ? { fetch: (input: string | URL | Request, init: RequestInit = {}) => globalThis.fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), "X-Internal-Token": token } }) } : {}),
  });
  const maker = new MarketMaker({ api, chain: o.chain, maker: o.maker, deployer: o.deployer, addresses: o.addresses, log: o.log }, o.opts);
  const streams = new StreamClient({
    url: streamsWsUrl(o.streamsUrl),
    reconnect: { initialMs: o.reconnect?.initialMs ?? 1_000, maxMs: o.reconnect?.maxMs ?? 10_000 },
    webSocket: o.webSocket,
  });
  let loop: Loop | undefined;
  const follower = new MarketFollower(streams, () => loop?.wake(), o.log);
  // with the dead-man switch on, a round at least every quarter period (a quiet one refreshes the
  // deadline when less than half is left)
  const deadmanMs = (o.opts.deadmanSeconds ?? 0) > 0 ? ((o.opts.deadmanSeconds ?? 0) * 1_000) / 4 : Infinity;
  loop = startLoop("market-maker", () => Math.min(follower.connected ? o.streamPollMs : o.intervalMs, deadmanMs), async () => {
    const sent = await maker.round();
    if (maker.quoted.length) follower.follow(maker.quoted);
    return sent;
  }, o.log);
  const running = loop;
  return {
    maker, loop: running, follower, api,
    close: async () => {
      follower.close();
      await running.stop();
    },
  };
}
