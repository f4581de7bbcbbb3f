/**
 * services/reads/plans.ts `answersAt`: the runs of a mergeable statement (several accounts,
 * markets, positions, books) go as one statement whose rows carry their run's position, and each
 * answer gets exactly its own run's rows; the others (orders: their rows' order matters) as before.
 * The statements' rows against a database: test/e2e/reads-batch.test.ts (each answer Ponder's bytes).
 */
import { describe, expect, it } from "vitest";
import { answerPlans, answersAt, mergedStatement, type Raw, type Statement } from "../../services/reads/plans.js";

// a checkpoint of block 7 (timestamp, chain id, block number, transaction index, event type, event index)
const CHECKPOINT = `${"1".padStart(10, "0")}${"31337".padStart(16, "0")}${"7".padStart(16, "0")}${"0".padStart(16, "0")}5${"0".padStart(16, "0")}`;
const ADDRESS = `0x${"ab".repeat(20)}`;
const account = (id: string, i?: number): Raw => ({
  ...(i === undefined ? {} : { __i: i }),
  "a.account_id": id,
  "a.owner": ADDRESS,
  "a.account_address": ADDRESS,
  "a.available_wad": `${id}000`,
  "a.committed_wad": "0",
  "a.total_wad": `${id}000`,
  "a.created_block": "1",
  "a.created_at": "1",
  "a.updated_block": "1",
});

function db() {
  const ran: { s: Statement; values: unknown[] }[] = [];
  const exec = async (s: Statement, values: unknown[]): Promise<Raw[]> => {
    ran.push({ s, values });
    if (s.name.endsWith("state")) return [{ latest_checkpoint: CHECKPOINT, block_hash: "0x01", log_index: 0 }];
    if (s.name.endsWith("account_m")) {
      // the merged statement's rows: one per run, tagged with its position (in no set order)
      const runs = JSON.parse(values[0] as string) as string[][];
      return runs.map((r, i) => account(r[0]!, i + 1)).reverse();
    }
    if (s.name.endsWith("account")) return [account(String(values[0]))];
    return [{}];
  };
  return { ran, exec };
}

describe("answersAt merges the runs of a mergeable statement", () => {
  const plans = answerPlans({ schema: "s", withState: false });

  it("three accounts: one statement, each answer its own row (the same bytes as unmerged)", async () => {
    const keys = ["/accounts/1", "/accounts/2", "/accounts/1", "/accounts/3"];
    const a = db();
    const merged = await answersAt(plans, keys, 7n, a.exec);
    expect(a.ran.map((r) => r.s.name)).toEqual(["b_state", "b_account_m"]);
    expect(JSON.parse(a.ran[1]!.values[0] as string)).toEqual([["1"], ["2"], ["3"]]);
    const b = db();
    const single = await answersAt(plans, keys, 7n, b.exec, { merge: false });
    expect(b.ran.map((r) => r.s.name)).toEqual(["b_state", "b_account", "b_account", "b_account"]);
    expect(merged.answers).toEqual(single.answers);
    expect(merged.answers!.map((x) => (JSON.parse(x.body) as { data: { accountId: number } }).data.accountId)).toEqual([1, 2, 1, 3]);
  });

  it("one run alone is the statement itself; the merged text reads each run's values from $1, cast as before", () => {
    const s: Statement = { name: "x", text: "SELECT a FROM t WHERE id = $1::numeric AND m = $2::text LIMIT $3::int", mergeable: true };
    expect(mergedStatement(s).text).toBe(
      `SELECT u."__i", r.* FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS u(e, "__i") CROSS JOIN LATERAL (SELECT a FROM t WHERE id = (u.e->>0)::numeric AND m = (u.e->>1)::text LIMIT (u.e->>2)::int) r`,
    );
  });
});
