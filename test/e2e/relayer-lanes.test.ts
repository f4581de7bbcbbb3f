/**
 * Nobody starves another's account lane (automine off: a write holds its lane until a test
 * mines): a flood of writes on someone else's account is refused before queueing (ownership and
 * operator approval are checked first), so it leaves no queue rows and the owner's next write is
 * the next one dispatched in its lane; lanes and callers have caps (429); liquidations run in a
 * lane of their own, so they are answered while the owner's lane is busy.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "./helpers/wait.js";
import { dropSchema, POSTGRES_URL, query, relayerCall, rpc, startRelayer, startTestChain, uniqueSchema, type RelayerDbOpt, type RelayerProc, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
beforeAll(async () => {
  chain = await startTestChain({ prepared: 2 });
  await rpc(chain.rpcUrl, "evm_setAutomine", [false]);
});
afterAll(async () => {
  await chain?.stop();
});

const mine = () => rpc(chain.rpcUrl, "evm_mine");

describe.each(["pglite", "postgres"] as const)("account lanes on %s", (kind) => {
  const schema = uniqueSchema(`lanes_${kind}`);
  let db: RelayerDbOpt;
  const procs: RelayerProc[] = [];
  const start = async (env: Record<string, string>, name: string) => {
    const r = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "500", BUMP_AFTER_MS: "600000", ...env }, { name: `${kind}-${name}` });
    procs.push(r);
    return r;
  };
  beforeAll(() => {
    db = kind === "postgres" ? { url: POSTGRES_URL, schema } : { pgliteDir: join(chain.dir, `lanes-${kind}`) };
  });
  afterAll(async () => {
    for (const p of procs) await p.stop();
    if (kind === "postgres") await dropSchema(schema).catch(() => {});
  });

  const status = async (r: RelayerProc, id: string) => (await relayerCall(r.url, "GET", `/internal/transactions/${id}`)).body.data;
  const confirmed = (r: RelayerProc, id: string) =>
    until(`${id} confirmed`, async () => {
      await mine();
      return (await status(r, id)).transactionStatus === "CONFIRMED";
    }, 30_000, 200);

  it("a flood on another's account leaves no queue rows; the owner's write is dispatched next; liquidations do not wait in the owner's lane", async () => {
    const relayer = await start({}, "flood");
    const [owner, attacker] = [chain.accounts[0]!, chain.accounts[1]!];
    const eur = chain.deployment.markets[0]!;
    const acct = `/internal/accounts/${owner.accountId}`;
    const w1 = await relayerCall(relayer.url, "POST", `${acct}/deposit`, { caller: owner.address, body: { amount: "1000001" } });
    expect(w1.status).toBe(202); // sent, holds the owner's lane until mined

    const floods: Array<[string, string, unknown?]> = [
      ["POST", `${acct}/deposit`, { amount: "1" }],
      ["POST", `${acct}/withdraw`, { amount: "1" }],
      ["POST", `${acct}/orders`, { marketId: eur.marketId, collateralAmount: "1000000", side: "LONG", leverage: 2, orderType: "MARKET" }],
      ["DELETE", `${acct}/orders/0x${"ab".repeat(32)}?marketId=${eur.marketId}`],
      ["POST", `${acct}/positions/${eur.marketId}/close`, { orderType: "MARKET" }],
    ];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const [method, path, body] = floods[i % floods.length]!;
        return relayerCall(relayer.url, method, path, { caller: attacker.address, body });
      }),
    );
    for (const a of answers) expect([a.status, a.body.error?.code]).toEqual([403, "UNAUTHORIZED"]);
    const unknown = await relayerCall(relayer.url, "POST", `/internal/accounts/999999/deposit`, { caller: attacker.address, body: { amount: "1" } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "ACCOUNT_NOT_FOUND"]);

    // a liquidation of the owner's (healthy) account is answered while the owner's lane is busy
    const liq = await relayerCall(relayer.url, "POST", "/internal/liquidations/account", { caller: attacker.address, body: { accountId: owner.accountId } });
    expect([liq.status, liq.body.error?.code]).toEqual([409, "NOT_LIQUIDATABLE"]);
    expect((await status(relayer, w1.body.data.requestId)).transactionStatus).toBe("PENDING");

    const w2 = await relayerCall(relayer.url, "POST", `${acct}/deposit`, { caller: owner.address, body: { amount: "1000002" } });
    expect(w2.status).toBe(202);
    await confirmed(relayer, w1.body.data.requestId);
    await confirmed(relayer, w2.body.data.requestId);
    const [s1, s2] = [await status(relayer, w1.body.data.requestId), await status(relayer, w2.body.data.requestId)];
    expect(s2.nonce).toBe(s1.nonce + 1);

    if (kind === "postgres") {
      expect(await query(`SELECT id FROM "${schema}".request WHERE caller = $1 AND lane = $2`, [attacker.address.toLowerCase(), `account:${owner.accountId}`])).toHaveLength(0);
      // the owner's lane, in the order its writes were dispatched: W1, then W2, nothing between
      const lane = await query<{ id: string }>(`SELECT id FROM "${schema}".request WHERE lane = $1 ORDER BY created_at`, [`account:${owner.accountId}`]);
      expect(lane.map((r) => r.id)).toEqual([w1.body.data.requestId, w2.body.data.requestId]);
      const liqRows = await query<{ lane: string }>(`SELECT lane FROM "${schema}".request WHERE kind = 'liquidateAccount'`);
      expect(liqRows.map((r) => r.lane)).toEqual([`liquidation:${owner.accountId}`]);
    }
  });

  it("caps: a lane holds at most LANE_MAX_PENDING writes, a caller at most CALLER_MAX_PENDING (429)", async () => {
    const owner = chain.accounts[0]!;
    const deposit = (r: RelayerProc, amount: string) =>
      relayerCall(r.url, "POST", `/internal/accounts/${owner.accountId}/deposit`, { caller: owner.address, body: { amount } });
    const laneCapped = await start({ LANE_MAX_PENDING: "3" }, "lane-cap");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await deposit(laneCapped, `${2_000_000 + i}`);
      expect(r.status).toBe(202);
      ids.push(r.body.data.requestId);
    }
    const refused = await deposit(laneCapped, "2000009");
    expect([refused.status, refused.body.success, refused.body.error.code]).toEqual([429, false, "RATE_LIMITED"]);
    expect(refused.body.error.message).toMatch(/on this account/);
    expect(refused.headers.get("retry-after")).toBe("1");
    await laneCapped.stop();

    const callerCapped = await start({ CALLER_MAX_PENDING: "3" }, "caller-cap");
    const refused2 = await deposit(callerCapped, "2000010");
    expect([refused2.status, refused2.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    expect(refused2.body.error.message).toMatch(/of your writes/);
    for (const id of ids) await confirmed(callerCapped, id);
    const after = await deposit(callerCapped, "2000011");
    expect(after.status).toBe(202);
    await confirmed(callerCapped, after.body.data.requestId);
  });
});
