/**
 * The baseline of bench/reads.ts: a bare Hono route in a process of its own, serving fixed
 * bodies (`GET /bare/{i}`, the i-th string of the JSON array in BENCH_BARE_BODIES) the way the
 * read service serves a held answer. PORT, HOST as usual.
 *
 * With CEILING_PORT also the load generator's ceiling: a TCP server that parses nothing but the
 * request line and writes the same response's bytes, made once (no HTTP server, no headers
 * object, no Date). No server that parses HTTP answers faster, so a ratio the benchmark asks for
 * above ceiling / call cannot be measured on the machine, whatever serves the route.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const bodies = JSON.parse(readFileSync(process.env.BENCH_BARE_BODIES!, "utf8")) as string[];
const app = new Hono();
app.get("/health", (c) => c.text("ok"));
app.get("/bare/:i", (c) => {
  const body = bodies[Number(c.req.param("i"))];
  if (body === undefined) return c.notFound();
  return c.body(body, 200, { "Content-Type": "application/json", "X-Indexed-Block": "1" });
});
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: process.env.HOST ?? "127.0.0.1" });

if (process.env.CEILING_PORT) {
  const responses = bodies.map((b) => {
    const body = Buffer.from(b);
    const head = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Indexed-Block: 1\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`;
    return Buffer.concat([Buffer.from(head), body]);
  });
  const END = Buffer.from("\r\n\r\n");
  createServer((socket) => {
    let pending: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      // GETs without a body: each request ends at its blank line
      for (let end = pending.indexOf(END); end >= 0; end = pending.indexOf(END)) {
        const line = pending.subarray(0, pending.indexOf(13)).toString("latin1"); // "GET /bare/3 HTTP/1.1"
        const i = Number(line.split(" ")[1]?.split("/")[2]);
        socket.write(responses[i] ?? responses[0]!);
        pending = pending.subarray(end + 4);
      }
    });
    socket.on("error", () => socket.destroy());
  }).listen(Number(process.env.CEILING_PORT), process.env.HOST ?? "127.0.0.1");
}
