/**
 * Ports for the e2e tests' processes, never handed out twice in one run, across every test
 * worker. core/chain/anvil.ts `freePort` remembers its ports per process only, and the OS offers
 * a probed port again once the probe closes: with e2e files running side by side (vitest.config.ts),
 * a Ponder of one worker (which binds seconds after its port was chosen) could lose its port to a
 * service of the other. Each port is claimed for the whole run by creating `<dir>/<port>`
 * (mkdir is atomic: one claimant wins), so a port a test frees and binds again (a restart on the
 * same port) stays its own too.
 *
 * The claims live under the run's directory (`E2E_PORT_DIR`, set by test/e2e/global-setup.ts and
 * removed at its teardown); without it (a bench, a script) this is plain `freePort`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../../core/chain/anvil.js";

export async function e2ePort(): Promise<number> {
  const dir = process.env.E2E_PORT_DIR;
  if (!dir) return freePort();
  for (let i = 0; i < 100; i++) {
    const port = await freePort();
    try {
      mkdirSync(join(dir, String(port)), { recursive: false });
      return port;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  throw new Error(`e2ePort: the OS offered only ports this run has claimed (${dir})`);
}
