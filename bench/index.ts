/**
 * `npm run bench`: runs the `run()` of each benchmark module that exists, one after another
 * (they start their own anvil/services and print their figures; nothing is asserted).
 *   npm run bench                   all of indexing, reads, relayer, gateway, streams, history, start
 *   npm run bench -- reads gateway  only these
 * Gas figures are separate: `npm run bench:gas`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ALL = ["indexing", "reads", "relayer", "gateway", "streams", "history", "start"] as const;
const here = dirname(fileURLToPath(import.meta.url));

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const unknown = wanted.filter((w) => !(ALL as readonly string[]).includes(w));
  if (unknown.length) throw new Error(`unknown benchmark(s): ${unknown.join(", ")} (have: ${ALL.join(", ")})`);
  const names = wanted.length ? wanted : [...ALL];
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  const results: { name: string; status: string; seconds: number }[] = [];
  for (const name of names) {
    const file = join(here, `${name}.ts`);
    if (!existsSync(file)) {
      console.log(`\n== ${name}: bench/${name}.ts does not exist, skipped`);
      results.push({ name, status: "missing", seconds: 0 });
      continue;
    }
    console.log(`\n== ${name}`);
    const t0 = Date.now();
    try {
      const mod = (await import(pathToFileURL(file).href)) as { run?: (opts?: { keep?: boolean }) => Promise<unknown> };
      if (typeof mod.run !== "function") throw new Error(`bench/${name}.ts exports no run()`);
      await mod.run();
      results.push({ name, status: "ok", seconds: (Date.now() - t0) / 1000 });
    } catch (e) {
      console.error(`${name} failed: ${e instanceof Error ? e.stack ?? e.message : e}`);
      results.push({ name, status: "failed", seconds: (Date.now() - t0) / 1000 });
    }
  }
  console.log("\n== summary");
  for (const r of results) console.log(`${r.name.padEnd(10)} ${r.status.padEnd(8)} ${r.seconds.toFixed(1)} s`);
  // benches may leave handles (servers, pools) open: exit explicitly
  process.exit(results.some((r) => r.status === "failed") ? 1 : 0);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
