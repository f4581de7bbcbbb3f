/**
 * Ponder schema name for a persistent local venue. A schema belongs to one build of the indexer
 * and one chain (DESIGN.md, tool facts), so the name hashes the indexer's sources and the
 * deployment: a second `npm start` on the same chain and code resumes where it stopped, and a
 * code change or a fresh chain indexes into a new schema instead of failing.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../core/deployment.js";

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : /\.(ts|js|json)$/.test(f) ? [p] : [];
    });
}

export function indexerSchemaName(deploymentJson: string, prefix = "venue"): string {
  const h = createHash("sha256");
  for (const f of ["ponder.config.ts", "ponder.schema.ts"].map((f) => join(PROJECT_ROOT, f)).filter(existsSync)) h.update(readFileSync(f));
  for (const f of [...files(join(PROJECT_ROOT, "src")), ...files(join(PROJECT_ROOT, "abis")), ...files(join(PROJECT_ROOT, "core"))]) {
    h.update(f.slice(PROJECT_ROOT.length));
    h.update(readFileSync(f));
  }
  h.update(deploymentJson);
  return `${prefix}_${h.digest("hex").slice(0, 10)}`;
}
