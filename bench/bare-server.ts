/**
 * The baseline of bench/reads.ts: a bare Hono route in a process of its own, serving fixed
 * bodies (`GET /bare/{i}`, the i-th string of the JSON array in BENCH_BARE_BODIES) the way the
 * read service serves a held answer. PORT, HOST as usual.
 */
import { readFileSync } from "node:fs";
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
