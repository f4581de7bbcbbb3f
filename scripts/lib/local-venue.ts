/** `.venue/local.json` (written by `npm start`; VENUE_DIR moves it), for the scripts that talk to the running local venue. */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PROJECT_ROOT } from "../../core/deployment.js";
import type { LocalJson } from "../start.js";

/** The running local venue's URLs, markets and demo wallets; a clear error when `npm start` has not written them. */
export function readLocalJson(): LocalJson {
  const file = join(resolve(process.env.VENUE_DIR ?? join(PROJECT_ROOT, ".venue")), "local.json");
  if (!existsSync(file)) throw new Error(`no ${file}: start the local venue first (npm start)`);
  return JSON.parse(readFileSync(file, "utf8")) as LocalJson;
}
