import { afterEach, describe, expect, it, vi } from "vitest";
import { StreamClient } from "../src/streams.js";
import { socketFactory } from "./fakes.js";

const EUR = `0x${"a9".repeat(32)}`;
const lvl = (price: string, quantity: string) => ({ price, priceFormatted: price, quantity, quantityFormatted: quantity, orderCount: quantity === "0" ? 0 : 1 });
const snap = (sid: string, seq: number, block: number, bids: ReturnType<typeof lvl>[], asks: ReturnType<typeof lvl>[], epoch = "e1") =>
  ({ subscriptionId: sid, type: "snapshot", channel: "orderbook", marketId: EUR, depth: 10, epoch, data: { bids, asks }, seq, blockNumber: String(block) });
const upd = (sid: string, seq: number, block: number, bids: ReturnType<typeof lvl>[], asks: ReturnType<typeof lvl>[] = []) =>
  ({ subscriptionId: sid, type: "update", data: { bids, asks }, seq, blockNumber: String(block) });

afterEach(() => vi.useRealTimers());

describe("stream client", () => {
  it("subscribes with a handle, keeps the book from snapshot + deltas, unsubscribes", () => {
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false });
    const book = c.orderBook(EUR, 10);
    const ws = sockets[0]!;
    ws.serverOpen();
    const sub = ws.subscribes()[0]!;
    expect(sub).toMatchObject({ op: "subscribe", channel: "orderbook", marketId: EUR, depth: 10 });
    ws.serverSend({ type: "subscribed", subscriptionId: "s1", channel: "orderbook", id: sub.id });
    ws.serverSend(snap("s1", 4, 100, [lvl("108", "5"), lvl("107", "1")], [lvl("109", "2")]));
    expect(book.stale).toBe(false);
    expect(book.bestBid).toBe(108n);
    ws.serverSend(upd("s1", 5, 101, [lvl("108", "0"), lvl("1075", "3")], [lvl("110", "4")]));
    expect(book.bids.map((l) => l.price)).toEqual(["1075", "107"]);
    expect(book.asks.map((l) => l.price)).toEqual(["109", "110"]);
    expect(book.levels("asks")[1]).toEqual({ price: 110n, quantity: 4n, orderCount: 1 });
    expect(book.blockNumber).toBe(101);
    // an update at or below the snapshot's block is never applied
    ws.serverSend(snap("s1", 6, 105, [lvl("100", "1")], []));
    ws.serverSend(upd("s1", 7, 105, [lvl("99", "1")]));
    expect(book.bids.map((l) => l.price)).toEqual(["100"]);
    book.close();
    expect(ws.sent.at(-1)).toEqual({ op: "unsubscribe", subscriptionId: "s1" });
    ws.serverSend(upd("s1", 8, 106, [lvl("98", "1")]));
    expect(book.bids.map((l) => l.price)).toEqual(["100"]);
  });

  it("the service's error on the book's subscription reaches the book's error event", () => {
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false });
    const book = c.orderBook(`0x${"77".repeat(32)}`, 10);
    const errors: string[] = [];
    book.on("error", (e) => errors.push(e.code));
    const ws = sockets[0]!;
    ws.serverOpen();
    ws.serverSend({ type: "error", id: ws.subscribes()[0]!.id, code: "MARKET_NOT_FOUND", message: "no such market" });
    expect(errors).toEqual(["MARKET_NOT_FOUND"]);
    expect(book.stale).toBe(true);
  });

  it("a gap in seq: stale, resubscribe with resume; replay resyncs; a fresh snapshot does too", () => {
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false });
    const book = c.orderBook(EUR, 10);
    const events: string[] = [];
    book.on("stale", () => events.push("stale"));
    book.on("resynced", () => events.push("resynced"));
    const ws = sockets[0]!;
    ws.serverOpen();
    ws.serverSend({ type: "subscribed", subscriptionId: "s1", id: ws.subscribes()[0]!.id });
    ws.serverSend(snap("s1", 10, 200, [lvl("5", "1")], []));
    events.length = 0;
    ws.serverSend(upd("s1", 12, 202, [lvl("6", "1")])); // 11 lost
    expect(book.stale).toBe(true);
    expect(book.bids.map((l) => l.price)).toEqual(["5"]); // the gapped update is not applied
    expect(ws.sent.at(-2)).toEqual({ op: "unsubscribe", subscriptionId: "s1" });
    const again = ws.sent.at(-1)!;
    expect(again).toMatchObject({ op: "subscribe", channel: "orderbook", resume: { epoch: "e1", seq: 10 } });
    ws.serverSend(upd("s1", 13, 203, [lvl("7", "1")])); // the old subscription: ignored
    ws.serverSend({ type: "subscribed", subscriptionId: "s2", id: again.id });
    ws.serverSend(upd("s2", 11, 201, [lvl("55", "1")]));
    expect(book.stale).toBe(false);
    ws.serverSend(upd("s2", 12, 202, [lvl("6", "1")]));
    expect(book.bids.map((l) => l.price)).toEqual(["55", "6", "5"]);
    expect(events).toEqual(["stale", "resynced"]);
    // another gap; the service cannot resume: a fresh snapshot (new epoch)
    ws.serverSend(upd("s2", 14, 204, [lvl("9", "1")]));
    const third = ws.sent.at(-1)!;
    expect(third).toMatchObject({ resume: { epoch: "e1", seq: 12 } });
    ws.serverSend({ type: "subscribed", subscriptionId: "s3", id: third.id });
    ws.serverSend(snap("s3", 0, 204, [lvl("9", "2")], [], "e2"));
    expect(book.stale).toBe(false);
    expect(book.bids.map((l) => l.quantity)).toEqual(["2"]);
    ws.serverSend(upd("s3", 1, 205, [lvl("9", "0")]));
    expect(book.bids).toEqual([]);
  });

  it("a reorg makes the book stale until the snapshot that follows", () => {
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false });
    const book = c.orderBook(EUR);
    const ws = sockets[0]!;
    ws.serverOpen();
    ws.serverSend({ type: "subscribed", subscriptionId: "s1", id: ws.subscribes()[0]!.id });
    ws.serverSend(snap("s1", 1, 10, [lvl("1", "1")], []));
    ws.serverSend({ subscriptionId: "s1", type: "reorg", commonAncestor: "8", seq: 2, blockNumber: "9" });
    expect(book.stale).toBe(true);
    ws.serverSend(snap("s1", 3, 9, [lvl("2", "1")], []));
    expect(book.stale).toBe(false);
    expect(book.bids.map((l) => l.price)).toEqual(["2"]);
  });

  it("reconnects with backoff, signs in again and resumes every subscription", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0.5); // no jitter
    const { sockets, factory } = socketFactory();
    const tokens = ["t1", "t2"];
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false, token: () => tokens.shift() });
    const delays: number[] = [];
    c.on("reconnecting", (r) => delays.push(r.delayMs));
    const got: number[] = [];
    c.subscribe({ channel: "account", accountId: 3 }, { snapshot: (m) => got.push(m.seq), update: (m) => got.push(m.seq) });
    sockets[0]!.serverOpen();
    await vi.advanceTimersByTimeAsync(0);
    expect(sockets[0]!.sent).toEqual([{ op: "auth", token: "t1" }]); // nothing before the sign-in is confirmed
    sockets[0]!.serverSend({ type: "authenticated", wallet: "0xabc" });
    const s1 = sockets[0]!.subscribes()[0]!;
    sockets[0]!.serverSend({ type: "subscribed", subscriptionId: "s1", id: s1.id });
    sockets[0]!.serverSend({ subscriptionId: "s1", type: "snapshot", epoch: "E", seq: 0, blockNumber: "5", data: {} });
    sockets[0]!.serverClose(1006);
    expect(delays).toEqual([1000]);
    await vi.advanceTimersByTimeAsync(999);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(2);
    sockets[1]!.serverClose(1006); // refused again: 2 s
    expect(delays).toEqual([1000, 2000]);
    await vi.advanceTimersByTimeAsync(2000);
    const ws = sockets[2]!;
    ws.serverOpen();
    await vi.advanceTimersByTimeAsync(0);
    expect(ws.sent[0]).toEqual({ op: "auth", token: "t2" });
    ws.serverSend({ type: "authenticated", wallet: "0xabc" });
    expect(ws.subscribes()[0]).toMatchObject({ channel: "account", accountId: 3, resume: { epoch: "E", seq: 0 } });
    ws.serverSend({ type: "subscribed", subscriptionId: "s9", id: ws.subscribes()[0]!.id });
    ws.serverSend({ subscriptionId: "s9", type: "update", seq: 1, blockNumber: "6", data: {} });
    expect(got).toEqual([0, 1]);
    ws.serverClose(1006);
    expect(delays.at(-1)).toBe(1000); // a connection that signed in resets the backoff
    c.close();
  });

  it("heartbeats: a ping every interval; no answer closes and reconnects", async () => {
    vi.useFakeTimers();
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: { intervalMs: 1000, timeoutMs: 500 } });
    c.subscribe({ channel: "trades", marketId: EUR });
    sockets[0]!.serverOpen();
    await vi.advanceTimersByTimeAsync(1000);
    expect(sockets[0]!.sent.at(-1)).toEqual({ op: "ping" });
    sockets[0]!.serverSend({ type: "pong", blockNumber: "1" });
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(499);
    expect(sockets[0]!.readyState).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets[0]!.readyState).toBe(3); // dead: closed
    await vi.advanceTimersByTimeAsync(2000);
    expect(sockets.length).toBe(2);
    c.close();
  });

  it("while disconnected: buffered and sent on connect, or refused", async () => {
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://x/ws", webSocket: factory, heartbeat: false });
    c.send({ op: "ping" });
    sockets[0]!.serverOpen();
    await Promise.resolve();
    expect(sockets[0]!.sent).toEqual([{ op: "ping" }]);
    const r = socketFactory();
    const strict = new StreamClient({ url: "ws://x/ws", webSocket: r.factory, heartbeat: false, whileDisconnected: "refuse", reconnect: false });
    expect(() => strict.send({ op: "ping" })).toThrow(/not connected/);
    expect(() => strict.subscribe({ channel: "trades", marketId: EUR })).toThrow(/not connected/);
    const p = strict.connect();
    r.sockets[0]!.serverOpen();
    await p;
    expect(() => strict.subscribe({ channel: "trades", marketId: EUR })).not.toThrow();
    c.close();
    strict.close();
  });

  it("the gateway's /v1/ws: the API key first, snake_case messages in camelCase", async () => {
    const { sockets, factory } = socketFactory();
    const c = new StreamClient({ url: "ws://gw/v1/ws", webSocket: factory, heartbeat: false, apiKey: "vgw_1" });
    const data: unknown[] = [];
    c.subscribe({ channel: "transactions" }, { snapshot: (m) => data.push(m.data) });
    const ws = sockets[0]!;
    ws.serverOpen();
    await Promise.resolve();
    expect(ws.sent).toEqual([{ op: "auth", api_key: "vgw_1" }]);
    ws.serverSend({ type: "authenticated", wallet: "0x1" });
    ws.serverSend({ type: "subscribed", subscription_id: "s1", id: ws.subscribes()[0]!.id });
    ws.serverSend({ subscription_id: "s1", type: "snapshot", epoch: "e", seq: 0, block_number: "3", data: { transactions: [{ request_id: "r" }] } });
    expect(data).toEqual([{ transactions: [{ requestId: "r" }] }]);
    // a revoked key ends it: no reconnect
    const closes: number[] = [];
    c.on("close", (e) => closes.push(e.code));
    ws.serverClose(4401, "API key revoked");
    expect(closes).toEqual([4401]);
    expect(sockets).toHaveLength(1);
  });
});
