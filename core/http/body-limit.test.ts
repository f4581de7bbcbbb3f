import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { refuseOversizedBody } from "./body-limit.js";

/** A node server that refuses declared bodies over 1,000 bytes (not under /sql) and else echoes the body's length. */
async function server() {
  const s = http.createServer((req, res) => {
    if (refuseOversizedBody(req, res, 1_000, { exempt: (p) => p.startsWith("/sql"), headers: () => ({ "Access-Control-Allow-Origin": "*" }) })) return;
    let n = 0;
    req.on("data", (c: Buffer) => (n += c.length));
    req.on("end", () => res.end(JSON.stringify({ read: n })));
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return { s, port: (s.address() as AddressInfo).port };
}

function send(port: number, agent: http.Agent, path: string, body: string, chunked = false) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; socketPort: number }>((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!chunked) headers["content-length"] = String(Buffer.byteLength(body));
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", agent, headers }, (res) => {
      const socketPort = res.socket.localPort!;
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, socketPort }));
    });
    req.on("error", reject);
    if (chunked) req.write(body); // written before end: no Content-Length, chunked
    req.end(chunked ? undefined : body);
  });
}

describe("refuseOversizedBody", () => {
  it("a declared body over the limit is 413 in the envelope, and the same connection answers the next request", async () => {
    const { s, port } = await server();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const bytes of [1_001, 64 * 1024, 3 * 1024 * 1024]) {
        const r = await send(port, agent, "/auth/login", "x".repeat(bytes));
        expect(r.status).toBe(413);
        expect(JSON.parse(r.text)).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE" } });
        expect(r.headers["access-control-allow-origin"]).toBe("*");
        const next = await send(port, agent, "/auth/login", "{}");
        expect(next.status).toBe(200);
        expect(next.socketPort).toBe(r.socketPort);
      }
      // at the limit, an exempt path, or a chunked body: left to the app
      expect(JSON.parse((await send(port, agent, "/x", "x".repeat(1_000))).text)).toEqual({ read: 1_000 });
      expect(JSON.parse((await send(port, agent, "/sql/db", "x".repeat(5_000))).text)).toEqual({ read: 5_000 });
      expect(JSON.parse((await send(port, agent, "/x", "x".repeat(5_000), true)).text)).toEqual({ read: 5_000 });
    } finally {
      agent.destroy();
      s.close();
    }
  });
});
