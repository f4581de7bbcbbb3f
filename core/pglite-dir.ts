/**
 * A fresh PGlite data directory from a template instead of initdb. PGlite runs initdb in its wasm
 * Postgres on every new directory: 4.5 s and 7 s of CPU on the CI machine, for each of the
 * relayer's, the gateway's and the indexer's databases of every local stack a test or `npm start
 * -- --fresh` starts. Opening a copy of a directory initdb made once costs about 1 s. A directory
 * is a cluster of one PGlite version: one template per version, made by that version's PGlite (the
 * indexer's Ponder bundles an older one than the services), in the OS's temporary directory, made
 * once per machine (atomically: made aside, then renamed into place).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** What a template needs of a PGlite module: its constructor on a directory. */
type PgliteCtor = new (dataDir: string) => { waitReady: Promise<void>; close(): Promise<void> };

/**
 * Seeds `dir` with a copy of the template of the PGlite that `from` (a file or file URL) resolves
 * `@electric-sql/pglite` to (default: the services' own; the indexer's is Ponder's copy) when `dir`
 * holds no database yet (missing or empty); a directory that holds one is left alone. A path
 * (not `memory://`) names an existing directory afterwards. Returns whether it seeded.
 */
export async function seedPgliteDir(dir: string, from: string = import.meta.url): Promise<boolean> {
  if (dir.startsWith("memory://") || (existsSync(dir) && readdirSync(dir).length > 0)) return false;
  const entry = createRequire(from).resolve("@electric-sql/pglite");
  const mod = (await import(pathToFileURL(entry).href)) as { PGlite?: PgliteCtor; default?: { PGlite: PgliteCtor } };
  const PGlite = mod.PGlite ?? mod.default!.PGlite;
  const template = await pgliteTemplate(PGlite, packageVersion(entry));
  mkdirSync(dir, { recursive: true });
  cpSync(template, dir, { recursive: true });
  return true;
}

/** The version in the package.json above a resolved entry of @electric-sql/pglite. */
function packageVersion(entry: string): string {
  for (let d = dirname(entry); dirname(d) !== d; d = dirname(d)) {
    const file = join(d, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
    if (pkg.name === "@electric-sql/pglite" && pkg.version) return pkg.version;
  }
  throw new Error(`no @electric-sql/pglite package.json above ${entry}`);
}

/** The template directory of `version`, made if missing. */
async function pgliteTemplate(PGlite: PgliteCtor, version: string): Promise<string> {
  const template = join(tmpdir(), `venue-pglite-template-${version}`);
  if (existsSync(join(template, "PG_VERSION"))) return template;
  const aside = mkdtempSync(`${template}.making-`);
  const db = new PGlite(aside);
  await db.waitReady;
  await db.close();
  try {
    renameSync(aside, template);
  } catch {
    // another process put its template first: use that one
    rmSync(aside, { recursive: true, force: true });
  }
  if (!existsSync(join(template, "PG_VERSION"))) throw new Error(`PGlite ${version} made no data directory at ${template}`);
  return template;
}
