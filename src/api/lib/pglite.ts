/**
 * Ponder's embedded PGlite (the default database, `npm start`): one Postgres session in this
 * process, used by indexing and by the API alike. PGlite 0.2 commits synchronously with
 * `wal_sync_method = open_datasync`: every live block's COMMIT waited for an O_DSYNC write of
 * its WAL, on the path of every indexed block (docs/PERFORMANCE.md, "Freshness on PGlite and Ponder's block commit").
 * `synchronous_commit = off` on that session lets a commit return once its WAL is in memory. It
 * changes durability only, never visibility or atomicity: a crash can lose the last commits (on
 * PGlite a block is several autocommitted statements, the checkpoint last: pgliteGate.ts), and
 * Ponder's crash recovery reverts a block's rows past the checkpoint and re-indexes it from the
 * chain on restart. Postgres (DATABASE_URL) is left as it is.
 * `PGLITE_SYNCHRONOUS_COMMIT=on` keeps PGlite's synchronous commits.
 */
export async function relaxPgliteCommits(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Ponder's driver is internal (as in blockStream.ts)
  const driver = (globalThis as any).PONDER_DATABASE?.driver as { dialect: string; instance?: { exec: (q: string) => Promise<unknown> } } | undefined;
  if (driver?.dialect !== "pglite" || !driver.instance || process.env.PGLITE_SYNCHRONOUS_COMMIT === "on") return;
  await driver.instance.exec("SET synchronous_commit = off");
}
