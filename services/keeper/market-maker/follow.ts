/**
 * The maker's stream: the `market` channel of each market it quotes, through the client's
 * `StreamClient` (reconnects with backoff, resumes after a gap). A market's values arrive once
 * per indexed block; when its index, mark, best bid or ask, or open interest differ from the
 * last seen, `changed` is called (the maker re-quotes at once instead of at its next poll). A
 * snapshot (a first subscribe, a resync after a gap or a reconnect) calls it too: what happened
 * meanwhile is unknown. `connected` tells the poll how often to run (slowly while the stream
 * drives re-quotes, often while it is down).
 */
import type { Logger } from "pino";
import type { Market, MarkPrice, StreamClient, StreamMessage, Subscription } from "../../../packages/client/src/index.js";

/** A `market` channel message's data (GET /markets/{id}, /price and /funding at its block). */
export type MarketChannelData = { market?: Partial<Market>; price?: Partial<MarkPrice>; funding?: unknown };

/** What of a market's values makes the maker look again. */
export function marketFingerprint(d: MarketChannelData): string {
  const p = d.price ?? {};
  const oi = d.market?.openInterest;
  return [p.indexPrice, p.markPrice, p.bestBid, p.bestAsk, oi?.long, oi?.short].map((v) => v ?? "").join("|");
}

export class MarketFollower {
  private readonly subs = new Map<string, Subscription<MarketChannelData>>();
  private readonly seen = new Map<string, string>();
  private everOpen = false;
  private downSince: number | null = null;

  constructor(
    private readonly streams: StreamClient,
    private readonly changed: (marketId: string) => void,
    private readonly log: Logger,
  ) {
    streams.on("open", () => {
      if (!this.everOpen || this.downSince !== null) {
        this.log.info({ url: streams.o.url, downMs: this.downSince === null ? undefined : Date.now() - this.downSince }, "market maker following the market channels");
      }
      this.everOpen = true;
      this.downSince = null;
      this.changed("*");
    });
    streams.on("close", (c) => {
      if (this.downSince !== null) return;
      this.downSince = Date.now();
      if (this.everOpen) this.log.warn({ url: streams.o.url, code: c.code, reason: c.reason }, "market maker's stream lost: polling until it is back");
      else this.log.info({ url: streams.o.url }, "market maker waiting for the stream service (polling meanwhile)");
      this.changed("*");
    });
    streams.on("error", (e) => this.log.warn({ code: e.code, err: e.message }, "market maker stream error"));
  }

  get connected(): boolean {
    return this.streams.connected;
  }

  /** Follows these markets (subscribes to the new ones, drops the others). Idempotent. */
  follow(marketIds: readonly string[]): void {
    const want = new Set(marketIds.map((id) => id.toLowerCase()));
    for (const [id, s] of this.subs) {
      if (want.has(id)) continue;
      s.unsubscribe();
      this.subs.delete(id);
      this.seen.delete(id);
    }
    for (const id of want) {
      if (this.subs.has(id)) continue;
      const look = (m: StreamMessage<MarketChannelData>, always: boolean) => {
        const f = marketFingerprint(m.data);
        if (!always && this.seen.get(id) === f) return;
        this.seen.set(id, f);
        this.changed(id);
      };
      this.subs.set(id, this.streams.subscribe<MarketChannelData>({ channel: "market", marketId: id }, {
        snapshot: (m) => look(m, true),
        update: (m) => look(m, false),
        error: (e) => {
          // the service ended the subscription (e.g. an unknown market): the next follow() asks again
          this.log.warn({ market: id, code: e.code, err: e.message }, "market channel ended");
          this.subs.get(id)?.unsubscribe();
          this.subs.delete(id);
          this.seen.delete(id);
        },
      }));
    }
  }

  /** Ends every subscription and the connection (no reconnect). */
  close(): void {
    for (const s of this.subs.values()) s.unsubscribe();
    this.subs.clear();
    this.streams.close();
  }
}
