import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { feedHub, type BlockFeed } from "../../core/indexer/blocks.js";
import { AnswerStore } from "./answers.js";
import { createReadsApp } from "./app.js";

// The read service fronts the integration API: what it answers from memory must count against
// the same per-client limit as Ponder's own routes (issue 11, defect 6), or fronting lifts it.
describe("read service limits", () => {
  it("a hot read held in memory is rate limited per client, with RateLimit-* and Retry-After", async () => {
    process.env.RATE_LIMIT_PER_MINUTE = "3";
    const hub = feedHub();
    const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
    hub.setLive(true);
    hub.push({ number: 7n, timestamp: 7n, hash: "0x07", state: "s7" });
    let builds = 0;
    const store = new AnswerStore(feed, async () => (builds++, { status: 200, body: '{"success":true,"data":[]}', block: "7" }), { hotMs: 60_000, maxAnswers: 10, concurrency: 1 });
    const app = createReadsApp({ store, feed, indexerUrl: "http://127.0.0.1:9", minBlockWaitMs: 100 });
    const get = () => app.request("/markets", { headers: { "X-Forwarded-For": "203.0.113.9" } });
    for (let i = 0; i < 3; i++) {
      const r = await get();
      expect(r.status).toBe(200);
      expect(r.headers.get("RateLimit-Limit") ?? r.headers.get("RateLimit-Policy")).toBeTruthy();
    }
    const over = await get();
    expect(over.status).toBe(429);
    expect(over.headers.get("Retry-After")).toBeTruthy();
    expect(await over.json()).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } });
    expect(builds).toBe(1); // the rest were served from memory, and the refusal built nothing
    delete process.env.RATE_LIMIT_PER_MINUTE;
  });

  it("X-Request-Id on held answers: a plain one is kept, a long or odd one replaced (the integration API's rule)", async () => {
    const hub = feedHub();
    const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
    hub.setLive(true);
    hub.push({ number: 7n, timestamp: 7n, hash: "0x07", state: "s7" });
    const store = new AnswerStore(feed, async () => ({ status: 200, body: "{}", block: "7" }), { hotMs: 60_000, maxAnswers: 10, concurrency: 1 });
    const app = createReadsApp({ store, feed, indexerUrl: "http://127.0.0.1:9", minBlockWaitMs: 100 });
    const plain = await app.request("/markets", { headers: { "X-Request-Id": "trace-123_abc" } });
    expect(plain.headers.get("X-Request-Id")).toBe("trace-123_abc");
    for (const bad of ["x".repeat(300), 'evil" level=60 msg=forged', "a b"]) {
      const r = await app.request("/markets", { headers: { "X-Request-Id": bad } });
      expect(r.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("a client's request passed to Ponder carries the service token and the client's identity, never the client's own", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const upstream = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { "content-type": "application/json" }).end('{"success":true,"data":{}}');
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    try {
      const hub = feedHub();
      const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
      const store = new AnswerStore(feed, async () => ({ status: 200, body: "{}", block: "7" }), { hotMs: 60_000, maxAnswers: 10, concurrency: 1 });
      const app = createReadsApp({ store, feed, indexerUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, minBlockWaitMs: 100, integrationToken: "reads-token" });
      const forged = { "X-Venue-Client": "ip:192.0.2.1", "X-Internal-Token": "not-a-service-token" };
      // a wrong token is no service: the client's identity header is replaced, the token too
      const r = await app.request("/auth/nonce", { headers: forged });
      expect(r.status).toBe(200);
      expect(seen.at(-1)!["x-internal-token"]).toBe("reads-token");
      expect(seen.at(-1)!["x-venue-client"]).toBe("ip:unknown"); // app.request has no socket peer
      // Ponder's internal routes are not reached with this service's token on a client's behalf
      const before = seen.length;
      const internal = await app.request("/internal/answers", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
      expect(internal.status).toBe(401);
      expect(seen.length).toBe(before);
    } finally {
      upstream.close();
    }
  });
});
