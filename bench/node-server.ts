/**
 * Opt-in baseline of bench/reads.ts (`BENCH_NODE_CEILING=1`): Node's own HTTP server doing no work
 * at all, `GET /bare/{i}` answered with the i-th body of BENCH_BARE_BODIES and the headers made
 * once, in NODE_WORKERS processes (node:cluster: the primary accepts, the workers answer; 1: this
 * process). What any Node HTTP server can reach on the machine, with one process or with every
 * core, beside the bare Hono route (bare-server.ts). PORT, HOST as usual.
 */
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const workers = Number(process.env.NODE_WORKERS ?? 1);
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // a worker that dies takes the baseline with it: say so instead of measuring fewer processes
  cluster.on("exit", (w, code) => {
    process.stderr.write(`node-server: worker ${w.process.pid} exited (${code})\n`);
    process.exit(1);
  });
} else {
  const answers = (JSON.parse(readFileSync(process.env.BENCH_BARE_BODIES!, "utf8")) as string[]).map((b) => {
    const body = Buffer.from(b);
    return { body, head: ["Content-Type", "application/json", "Content-Length", String(body.length), "X-Indexed-Block", "1"] };
  });
  createServer((req, res) => {
    const a = answers[Number(req.url?.slice("/bare/".length))];
    if (!a) {
      res.writeHead(req.url === "/health" ? 200 : 404).end();
      return;
    }
    res.writeHead(200, a.head);
    res.end(a.body);
  }).listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1");
}
