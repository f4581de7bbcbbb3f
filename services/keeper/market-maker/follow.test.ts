import { describe, expect, it } from "vitest";
import pino from "pino";
import { StreamClient } from "../../../packages/client/src/index.js";
import { socketFactory } from "../../../packages/client/test/fakes.js";
import { MarketFollower, marketFingerprint } from "./follow.js";

const EUR = `0x${"a9".repeat(32)}`;
const log = pino({ level: "silent" });
const data = (index: string, mark = index, long = "0") => ({
  market: { marketId: EUR, openInterest: { long, longFormatted: long, short: "0", shortFormatted: "0" } },
  price: { indexPrice: index, markPrice: mark, bestBid: null, bestAsk: null },
  funding: {},
});

describe("the maker's market channels", () => {
  it("calls back on a snapshot and on an update that moves index, mark or open interest, not on one that moves nothing", () => {
    const { sockets, factory } = socketFactory();
    const streams = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false, reconnect: false });
    const changes: string[] = [];
    const f = new MarketFollower(streams, (id) => changes.push(id), log);
    f.follow([EUR, EUR.toUpperCase().replace("0X", "0x")]);
    const ws = sockets[0]!;
    ws.serverOpen();
    expect(f.connected).toBe(true);
    expect(changes).toEqual(["*"]);
    const sub = ws.subscribes();
    expect(sub).toHaveLength(1);
    expect(sub[0]).toMatchObject({ channel: "market", marketId: EUR });
    ws.serverSend({ type: "subscribed", subscriptionId: "s1", id: sub[0]!.id });
    const msg = (type: string, seq: number, d: unknown) => ws.serverSend({ type, subscriptionId: "s1", channel: "market", epoch: "e", seq, blockNumber: String(100 + seq), data: d });
    msg("snapshot", 1, data("1080"));
    msg("update", 2, data("1080"));
    msg("update", 3, data("1081"));
    msg("update", 4, data("1081", "1082"));
    msg("update", 5, data("1081", "1082", "7"));
    msg("update", 6, data("1081", "1082", "7"));
    expect(changes).toEqual(["*", EUR, EUR, EUR, EUR]);

    // the connection drops: the follower reports it (the poll takes over)
    ws.serverClose(1006, "gone");
    expect(f.connected).toBe(false);
    expect(changes.at(-1)).toBe("*");
    // following no market any more unsubscribes; close ends the client
    f.follow([]);
    f.close();
    expect(f.connected).toBe(false);
  });

  it("fingerprints the values that make the maker look again", () => {
    expect(marketFingerprint(data("1", "2", "3"))).not.toBe(marketFingerprint(data("1", "2", "4")));
    expect(marketFingerprint({})).toBe("|||||");
  });
});
