/**
 * `npm run bench:gas`: gas used by each venue operation on a real anvil (started here on a free
 * port, stopped on exit), with the contracts deployed from `abis/` by `deployVenue()`; each
 * transaction in its own second, orders sent by the relayer's operator key (bench/gas-measure.ts).
 *   npm run bench:gas                       a table (targets beside the figures), the contracts' sizes,
 *                                           each capped key against the snapshot's baseline, and
 *                                           every figure that differs from the snapshot's
 *   npm run bench:gas -- --json             one JSON object: { gasUsed: {...}, results: {...}, sizes: {...} }
 *   npm run bench:gas -- --check            exit 1 when a capped key is over its allowance or a figure
 *                                           differs from the snapshot
 *   npm run bench:gas -- --write-snapshot   record this run's figures and sizes in the snapshot (the
 *                                           baseline stays)
 *   npm run bench:gas -- --profile k1,k2    also where each named key's gas goes: per opcode, contract
 *                                           and storage slot (bench/gas-profile.ts)
 * The test test/unit/gas-snapshot.test.ts runs the same checks on every `npm test` (bench/gas-check.ts).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CAPPED_KEYS, REPORTED_KEYS, allowance, driftFromSnapshot, overBaseline, type GasSnapshot } from "./gas-check.js";
import { runGasBench, type GasResult } from "./gas-measure.js";

export const SNAPSHOT_PATH = join(dirname(fileURLToPath(import.meta.url)), "gas-snapshot.json");

async function main() {
  const json = process.argv.includes("--json");
  const log = (msg: string) => {
    if (!json) console.log(msg);
  };
  const at = process.argv.indexOf("--profile");
  const profile = at === -1 ? [] : (process.argv[at + 1] ?? "").split(",").filter(Boolean);
  const { results, sizes, profiles } = await runGasBench({ log, profile });
  const gasUsed = Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.gasUsed]));
  const snapshot = JSON.parse(readFileSync(SNAPSHOT_PATH, "utf8")) as GasSnapshot;
  if (process.argv.includes("--write-snapshot")) {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const next: GasSnapshot = { commit, note: "npm run bench:gas -- --write-snapshot (figures of the commit's parent plus its own change)", gasUsed, sizes, baseline: snapshot.baseline };
    writeFileSync(SNAPSHOT_PATH, `${JSON.stringify(next, null, 2)}\n`);
    log(`wrote ${SNAPSHOT_PATH} (commit ${commit})`);
    Object.assign(snapshot, next);
  }
  const over = [...overBaseline(snapshot.baseline, gasUsed), ...driftFromSnapshot(snapshot, gasUsed, sizes)];
  if (json) console.log(JSON.stringify({ gasUsed, results, sizes }, null, 2));
  else {
    printTable(results);
    console.log(`\n${"contract".padEnd(26)}${"bytes".padStart(12)}  (EIP-170: 24,576; Market: its args at 23,936)`);
    for (const [name, b] of Object.entries(sizes)) console.log(`${name.padEnd(26)}${b.toLocaleString("en-US").padStart(12)}`);
    const base = snapshot.baseline;
    console.log(`\nagainst the baseline of ${SNAPSHOT_PATH} (commit ${base.commit}): each key at most +5 % or +8k gas`);
    for (const k of CAPPED_KEYS) {
      console.log(`${k.padEnd(26)}${String(gasUsed[k]).padStart(12)}  baseline ${base.gasUsed[k]}, allowed ${allowance(base.gasUsed[k] ?? 0)}`);
    }
    for (const k of REPORTED_KEYS) console.log(`${k.padEnd(26)}${String(gasUsed[k]).padStart(12)}  baseline ${base.gasUsed[k]} (reported only)`);
    console.log(over.length ? `DIFFERS: ${over.join("; ")}` : `within the baseline's allowance, every figure as the snapshot's (commit ${snapshot.commit})`);
  }
  for (const p of profiles ?? []) console.log(p);
  if (process.argv.includes("--check") && over.length) process.exitCode = 1;
}

function printTable(results: Record<string, GasResult>) {
  console.log(`\n${"operation".padEnd(26)}${"gas used".padStart(12)}  ${"target".padEnd(16)}note`);
  for (const [name, r] of Object.entries(results)) {
    const flag = r.withinTarget === undefined ? "" : r.withinTarget ? " ok" : " MISSED";
    console.log(
      `${name.padEnd(26)}${r.gasUsed.toLocaleString("en-US").padStart(12)}  ${((r.target ?? "") + flag).padEnd(16)}${r.note ?? ""}`,
    );
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
