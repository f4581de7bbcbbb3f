/**
 * vitest globalSetup of the e2e project: once per run, one stack on the run's main database
 * (`mainKind()`: Postgres unless `E2E_DB=pglite`) on its own anvil (see test/e2e/stack.ts).
 * Tests read it with `sharedStack()` (test/e2e/helpers/stacks.ts). Teardown stops every process
 * group and drops the run's Postgres database. A stack that does not start fails the run.
 * Chains of the same setup are deployed once per run (test/e2e/helpers/chain-fixture.ts).
 * Logs: the temp dir printed at start (`E2E_VERBOSE=1` prints progress).
 */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { checkPostgres, dbKinds, mainKind, startStack, type StackInfo } from "./stack.js";
import { startStackLock } from "./helpers/stack-lock.js";

declare module "vitest" {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

export default async function setup(project: TestProject) {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  const kind = mainKind();
  const runId = `${Date.now().toString(36).slice(-5)}${Math.random().toString(36).slice(2, 5)}`;
  const log = (m: string) => {
    if (process.env.E2E_VERBOSE) console.log(`[e2e] ${m}`);
  };
  if (dbKinds().includes("postgres")) await checkPostgres();
  // this run's deployed-chain fixtures (test/e2e/helpers/chain-fixture.ts); the test workers
  // inherit the variable; removed at teardown
  const fixtures = join(tmpdir(), "venue-chain-fixtures", runId);
  process.env.E2E_FIXTURE_DIR = fixtures;
  // the run's claimed ports (test/e2e/helpers/ports.ts: files run side by side) and the shared
  // stack's lock (test/e2e/helpers/stack-lock.ts: one file on it at a time)
  process.env.E2E_PORT_DIR = join(fixtures, "ports");
  mkdirSync(process.env.E2E_PORT_DIR, { recursive: true });
  const lock = await startStackLock();

  const t0 = Date.now();
  const running = await startStack(kind, runId, { log }).catch(async (e) => {
    await lock.close();
    rmSync(fixtures, { recursive: true, force: true });
    throw e;
  });
  console.log(`[e2e] ${kind} stack up in ${Date.now() - t0} ms; logs: ${running.info.logDir}`);
  // The keeper's market maker reads through the integration API (issue 30), so it quotes only
  // once the indexer answers, seconds after the stack is up: files that trade at once need its book.
  const quoted = await makerQuotes(running.info, 120_000);
  console.log(quoted ? `[e2e] the market maker quotes every market (${Date.now() - t0} ms)` : "[e2e] the market maker has not quoted every market within 120 s");
  project.provide("stack", running.info);
  return async () => {
    await running.stop();
    await lock.close();
    rmSync(fixtures, { recursive: true, force: true });
  };
}

/** Every market's REST book has a bid and an ask (the keeper's market maker), within `timeoutMs`. */
async function makerQuotes(s: StackInfo, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const quoted = await Promise.all(s.deployment.markets.map(async (m) => {
      const res = await fetch(`${s.integrationUrl}/markets/${m.marketId}/orderbook?depth=1`).catch(() => null);
      const book = (await res?.json().catch(() => null)) as { data?: { bids: unknown[]; asks: unknown[] } } | null;
      return !!book?.data && book.data.bids.length > 0 && book.data.asks.length > 0;
    }));
    if (quoted.every(Boolean)) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
