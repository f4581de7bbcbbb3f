/**
 * The gas bench's measurements (`npm run bench:gas`, and the unit test that compares a fresh run
 * with `bench/gas-snapshot.json`). Deterministic: every transaction after the deployment is mined
 * in its own second (`evm_setNextBlockTimestamp`: the previous block's + 1), so funding accrues in
 * each and the figures do not depend on the wall clock or the machine's load. Representative: the
 * measured orders and cancels are sent as services/relayer sends them — by the relayer's operator
 * key, for an account that approved it, with a client key supplied — into a live book (resting
 * bids and asks on several levels on both sides).
 */
import {
  createTestClient, encodeAbiParameters, encodeFunctionData, http, zeroHash, keccak256, parseEventLogs, parseUnits, stringToHex,
  type Abi, type Address, type Hex, type TransactionReceipt,
} from "viem";
import { depositTokenAbi, engineAbi, marketAbi, marketBackstopBytecode, oracleAbi, triggerBookAbi } from "../abis/index.js";
import { startAnvil } from "../core/chain/anvil.js";
import { formatProfile, profileSteps, traceSteps } from "./gas-profile.js";
import { KEY_INDEX, LOCAL_CHAIN_ID, devAccount } from "../core/config.js";
import type { OperatorPolicy } from "../core/operator-policy.js";
import { deployVenue, marketIdOf } from "../scripts/deploy.js";
import { publicClientFor, walletClientFor, type PublicClientT, type WalletClientT } from "../scripts/lib/clients.js";

/** The relayer's policy on the bench's accounts: 50x, the market's operator band, the whole account per 24 h. */
const BENCH_OPERATOR_POLICY: OperatorPolicy = { maxLeverage: 50, bandBps: 10_000, budgetBps: 10_000 };

const LONG = 0;
const SHORT = 1;
const MARKET = 0;
const LIMIT = 1;
const EUR = marketIdOf("EUR/USD");
const usd = (v: string) => parseUnits(v, 6);
const px = (v: string) => parseUnits(v, 18);

export type GasResult = { gasUsed: number; target?: string; withinTarget?: boolean; note?: string };
export type GasRun = { results: Record<string, GasResult>; sizes: Record<string, number>; profiles?: string[] };
/** What `measure` leaves for profiling: each key's receipt and the contracts' names. */
type Measured = GasRun & { receipts: Record<string, TransactionReceipt>; names: Record<string, string> };

/** One wallet with its venue account (the relayer approved as its operator). */
type Actor = { wallet: WalletClientT; address: Address; accountId: bigint };

/**
 * Starts anvil (a free port), deploys, measures, stops. `fillCap: false` leaves out the 50-maker
 * fill-cap order (60 makers of setup): the keys the snapshot caps come before it either way.
 */
/**
 * The chain's clock: genesis at GENESIS, and every measured transaction from MEASURED_FROM on, one
 * second each. Timestamps go into calldata (a dead-man deadline: a zero byte costs 4 gas, another
 * 16), so a clock taken from the wall made a figure move by 12 gas on some days.
 */
const GENESIS = 1_800_000_000;
const MEASURED_FROM = GENESIS + 3_600;

export async function runGasBench(opts: { fillCap?: boolean; log?: (m: string) => void; profile?: string[] } = {}): Promise<GasRun> {
  const log = opts.log ?? (() => {});
  const profile = opts.profile ?? [];
  const anvil = await startAnvil({ accounts: 20, extraArgs: ["--timestamp", String(GENESIS), ...(profile.length ? ["--steps-tracing"] : [])] });
  try {
    log(`anvil ${anvil.rpcUrl} (pid ${anvil.pid})`);
    const { results, sizes, receipts, names } = await measure(anvil.rpcUrl, opts.fillCap ?? true, log);
    const profiles: string[] = [];
    const client = publicClientFor(anvil.rpcUrl, LOCAL_CHAIN_ID);
    for (const key of profile) {
      const r = receipts[key];
      if (!r) throw new Error(`--profile ${key}: not a measured key (${Object.keys(receipts).join(", ")})`);
      const { gas } = await client.getTransaction({ hash: r.transactionHash });
      profiles.push(formatProfile(key, profileSteps(await traceSteps(anvil.rpcUrl, r.transactionHash), r.to!, Number(gas), Number(r.gasUsed), names)));
    }
    return { results, sizes, ...(profile.length ? { profiles } : {}) };
  } finally {
    await anvil.stop().catch(() => {});
  }
}

async function measure(rpcUrl: string, fillCap: boolean, log: (m: string) => void): Promise<Measured> {
  const client = publicClientFor(rpcUrl, LOCAL_CHAIN_ID);
  const testClient = createTestClient({ mode: "anvil", transport: http(rpcUrl) });
  const deployer = walletClientFor(rpcUrl, LOCAL_CHAIN_ID, devAccount(KEY_INDEX.deployer).privateKey);
  // the bench's clock runs one second per transaction, not with the wall: a day of staleness bound
  const d = await deployVenue(deployer, client as never, { maxAgeSeconds: 86_400n });
  const engine = d.contracts.engine;
  const token = d.contracts.depositToken;
  const market = d.markets.find((m) => m.marketId === EUR.toLowerCase())!.marketAddress;
  log(`deployed: engine ${engine}, EUR/USD ${market}`);
  const sizes = await deployedSizes(client, d.contracts, market);

  const deployed = Number((await client.getBlock()).timestamp);
  if (deployed >= MEASURED_FROM) throw new Error(`the deployment ended at ${deployed}, after the measured clock's start ${MEASURED_FROM}`);
  let now = MEASURED_FROM;
  const send = async (w: WalletClientT, address: Address, abi: Abi, functionName: string, args: readonly unknown[]) => {
    now += 1;
    await client.request({ method: "evm_setNextBlockTimestamp" as never, params: [now] as never });
    return tx(client, w, address, abi, functionName, args);
  };
  const results: Record<string, GasResult> = {};
  const receipts: Record<string, TransactionReceipt> = {};
  const record = (name: string, r: TransactionReceipt, target?: { max: number; label: string }, note?: string) => {
    receipts[name] = r;
    const gasUsed = Number(r.gasUsed);
    results[name] = {
      gasUsed,
      ...(target ? { target: target.label, withinTarget: gasUsed <= target.max } : {}),
      ...(note ? { note } : {}),
    };
  };

  const relayer = walletClientFor(rpcUrl, LOCAL_CHAIN_ID, devAccount(KEY_INDEX.relayer).privateKey);
  await testClient.setBalance({ address: relayer.account.address, value: parseUnits("1000", 18) });
  /** A wallet (mnemonic index) with ether, tokens, approval, an account, a deposit, the relayer as operator. */
  const actor = async (index: number, deposit6: bigint, measureSetup = false): Promise<Actor> => {
    const acct = devAccount(index);
    await testClient.setBalance({ address: acct.address, value: parseUnits("1000", 18) });
    const wallet = walletClientFor(rpcUrl, LOCAL_CHAIN_ID, acct.privateKey);
    await send(deployer, token, depositTokenAbi, "mint", [acct.address, deposit6]);
    await send(wallet, token, depositTokenAbi, "approve", [engine, deposit6]);
    const created = await send(wallet, engine, engineAbi, "createAccount", [acct.address]);
    const accountId = (await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [acct.address] })) as bigint;
    const deposited = await send(wallet, engine, engineAbi, "deposit", [accountId, deposit6]);
    // under a policy (each order the relayer sends pays its budget charge): wide enough for the
    // scenario's 48x long and its band-edge MARKET orders (the gas does not depend on the values)
    await send(wallet, engine, engineAbi, "setOperator", [relayer.account.address, 2n ** 63n, BENCH_OPERATOR_POLICY]);
    if (measureSetup) {
      record("createAccount", created);
      record("deposit", deposited, undefined, "first deposit of the account");
    }
    return { wallet, address: acct.address, accountId };
  };

  // client keys as the relayer's callers supply them: distinct, never zero
  let keys = 0;
  const clientKey = (): Hex => keccak256(stringToHex(`bench-${++keys}`));
  /** As services/relayer sends it: the operator key, the account's id, a client key. */
  const place = (a: Actor, side: number, type: number, collateral6: bigint, leverage: bigint, limit = 0n, key = clientKey()) =>
    send(relayer, engine, engineAbi, "placeOrder", [
      { accountId: a.accountId, marketId: EUR, side, orderType: type, collateral6, leverage, limitPriceX18: limit, clientKey: key, timeInForce: 0, reduceOnly: false, expiresAt: 0n },
    ]);
  const fills = (r: TransactionReceipt) =>
    parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderFilled" }).length;
  const placedIds = (r: TransactionReceipt) => parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderPlaced" }).map((l) => l.args.orderId);
  /**
   * A live maker's key map: the market keeps an account's client keys in 256 buckets picked by
   * the key's hash (MarketBase._claimKey: the low byte of keccak256(accountId, key)), and a new key
   * rewrites its bucket once the account has used it. A maker sending random keys has used every
   * bucket after about 1,600 orders; here `a` uses each once with 256 keys chosen for that, placed
   * (post-only bids behind the book's best, 32 a batch) and cancelled.
   */
  const useEveryKeyBucket = async (a: Actor) => {
    const bucketOf = (key: Hex) =>
      Number(BigInt(keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "bytes32" }], [a.accountId, key]))) & 0xffn);
    const unused = new Set(Array.from({ length: 256 }, (_, i) => i));
    const keys: Hex[] = [];
    for (let i = 0; unused.size; i++) {
      const key = keccak256(stringToHex(`bench-bucket-${a.accountId}-${i}`));
      if (unused.delete(bucketOf(key))) keys.push(key);
    }
    for (let i = 0; i < keys.length; i += 32) {
      const calls = keys.slice(i, i + 32).map((k) => encodeFunctionData({
        abi: engineAbi, functionName: "placeOrder",
        args: [{ accountId: a.accountId, marketId: EUR, side: LONG, orderType: LIMIT, collateral6: usd("10.75"), leverage: 10n, limitPriceX18: px("1.075"), clientKey: k, timeInForce: 3, reduceOnly: false, expiresAt: 0n }],
      }));
      const ids = placedIds(await send(relayer, engine, engineAbi, "batch", [calls, true]));
      await send(relayer, engine, engineAbi, "cancelOrders", [a.accountId, EUR, ids]);
    }
  };

  // ── accounts and money ───────────────────────────────────────────────────────────────
  const taker = await actor(0, usd("100000"), true);
  record("withdraw", await send(taker.wallet, engine, engineAbi, "withdraw", [taker.accountId, usd("1000")]));
  const m0 = await actor(1, usd("100000"));
  const m1 = await actor(3, usd("100000"));

  // ── a live book: bids 1.075–1.077 and asks 1.083–1.085 (the mark 1.08, operator band ± 89 bps)
  const askKeys: Hex[] = [];
  const bidKeys: Hex[] = [];
  for (let i = 0; i < 3; i++) {
    bidKeys.push(clientKey());
    await place(m1, LONG, LIMIT, usd("10.75"), 10n, px("1.075") + BigInt(i) * px("0.001"), bidKeys[i]);
    askKeys.push(clientKey());
    await place(m1, SHORT, LIMIT, usd("10.85"), 10n, px("1.083") + BigInt(i) * px("0.001"), askKeys[i]);
  }

  // ── resting orders and cancel ────────────────────────────────────────────────────────
  // The measured maker has traded in this market before, as a live book's makers have: its
  // position's first word (size, open orders, last settlement) is then never empty. An account
  // that never traded here writes that word fresh with its first resting order and clears it with
  // its last cancel (a refund): `limitOrderFirstOfAccount` reports the first. A round trip
  // against m1's quotes leaves m0 flat.
  await place(m0, LONG, MARKET, usd("1.09"), 10n); // 10 @ 1.083
  await send(relayer, engine, engineAbi, "closePosition", [m0.accountId, EUR, MARKET, 0n, clientKey()]); // 10 @ 1.077
  // issue 29's targets ("must")
  // a new tick in a bitmap word the book already uses (issue 29's definition): 1.0852 is tick
  // 108,520, in the leaf word of the asks at 108,300–108,500 (ticks of 0.00001; 256 a word)
  // The book so far has only ever added orders: these two take new storage slots (reported), and
  // their cancels free two slots, as a live book's fills and cancels do all the time; the measured
  // orders below take those (docs/CONTRACTS.md "Order ids and slots").
  const freshKeys = [clientKey(), clientKey()];
  record("limitOrderNewLevelFreshSlot", await place(m0, SHORT, LIMIT, usd("10.9"), 10n, px("1.0852"), freshKeys[0]), undefined, "the first order ever in a new storage slot (reported)");
  record("limitOrderExistingLevelFreshSlot", await place(m0, SHORT, LIMIT, usd("10.9"), 10n, px("1.0852"), freshKeys[1]), undefined, "in a new storage slot (reported)");
  for (const k of freshKeys) await send(relayer, engine, engineAbi, "cancelOrder", [m0.accountId, EUR, k]);
  // the measured makers have placed orders here before (their keys' buckets are used): above
  await useEveryKeyBucket(m0);
  await useEveryKeyBucket(m1);
  record("limitOrderNewLevel", await place(m0, SHORT, LIMIT, usd("10.9"), 10n, px("1.0852")), { max: 200_000, label: "<= 200k" }); // ~100 @ 1.0852
  const key = clientKey();
  record("limitOrderExistingLevel", await place(m0, SHORT, LIMIT, usd("10.9"), 10n, px("1.0852"), key), { max: 170_000, label: "<= 170k" });
  record("cancel", await send(relayer, engine, engineAbi, "cancelOrder", [m0.accountId, EUR, key]), { max: 75_000, label: "<= 75k" });
  const newcomer = await actor(4, usd("1000"));
  const firstKey = clientKey();
  record("limitOrderFirstOfAccount", await place(newcomer, SHORT, LIMIT, usd("10.9"), 10n, px("1.0852"), firstKey), undefined, "an account that never traded here: its first resting order, at an existing level (reported)");
  await send(relayer, engine, engineAbi, "cancelOrder", [newcomer.accountId, EUR, firstKey]);

  // ── market orders (the relayer's operator band: up to mark + 89 bps) ─────────────────
  // m1's asks make way, so that the market orders below fill the makers they name
  for (const k of askKeys) await send(relayer, engine, engineAbi, "cancelOrder", [m1.accountId, EUR, k]);
  const one = await place(taker, LONG, MARKET, usd("10.9"), 10n); // ~100: m0's order at 1.0852
  if (fills(one) !== 1) throw new Error(`expected 1 fill, got ${fills(one)}`);
  record("marketOrder1Maker", one);

  // the fill-cap part comes last, so every key before it is the same with or without it
  log("setting up 10 makers …");
  const makers: Actor[] = [];
  for (let i = 0; i < 10; i++) makers.push(await actor(20 + i, usd("1000")));
  for (const m of makers.slice(0, 10)) await place(m, SHORT, LIMIT, usd("1.087"), 10n, px("1.087")); // 10 each
  const ten = await place(taker, LONG, MARKET, usd("10.9"), 10n); // 100
  if (fills(ten) !== 10) throw new Error(`expected 10 fills, got ${fills(ten)}`);
  record("marketOrder10Makers", ten);
  const perFresh = Math.round((Number(ten.gasUsed) - Number(one.gasUsed)) / 9);
  results.extraFreshMakerFill = { gasUsed: perFresh, note: "(10 makers - 1 maker) / 9, makers without a position (reported)" };
  // issue 29's "extra maker": makers that already hold a position on that side (the 10 above,
  // short 10 each now), filled by a taker that holds one too
  await place(makers[0]!, SHORT, LIMIT, usd("1.087"), 10n, px("1.087"));
  const onePos = await place(taker, LONG, MARKET, usd("1.09"), 10n); // 10
  if (fills(onePos) !== 1) throw new Error(`expected 1 fill, got ${fills(onePos)}`);
  record("marketOrder1MakerWithPosition", onePos);
  for (const m of makers.slice(0, 10)) await place(m, SHORT, LIMIT, usd("1.087"), 10n, px("1.087"));
  const tenPos = await place(taker, LONG, MARKET, usd("10.9"), 10n); // 100
  if (fills(tenPos) !== 10) throw new Error(`expected 10 fills, got ${fills(tenPos)}`);
  record("marketOrder10MakersWithPositions", tenPos);
  const perFill = Math.round((Number(tenPos.gasUsed) - Number(onePos.gasUsed)) / 9);
  results.extraMakerFill = {
    gasUsed: perFill, target: "<= 70k", withinTarget: perFill <= 70_000, note: "(10 makers - 1 maker) / 9, makers and taker holding a position on their side",
  };

  // ── close: into m1's resting bids (1.075–1.077) and a 1000 bid at 1.074 ───────────────
  const bidKey = clientKey();
  await place(m0, LONG, LIMIT, usd("107.4"), 10n, px("1.074"), bidKey); // 1000 bid
  const close = await send(relayer, engine, engineAbi, "closePosition", [taker.accountId, EUR, MARKET, 0n, clientKey()]);
  record("close", close, undefined, `reduce-only market, ${fills(close)} maker fills`);
  // the bids the close left (m0's, m1's): cancelled so the liquidation below meets one maker
  for (const [a, k] of [[m0, bidKey], ...bidKeys.map((b) => [m1, b] as const)] as const) {
    const left = await client.readContract({ address: market, abi: marketAbi, functionName: "orderIdOf", args: [a.accountId, k] });
    if (left !== 0n) await send(relayer, engine, engineAbi, "cancelOrder", [a.accountId, EUR, k]);
  }

  // ── liquidation: a 48x long (50x at the mark is below initial margin), the index drops 1.3 %
  const lev = await actor(2, usd("1000"));
  await place(m0, SHORT, LIMIT, usd("108"), 10n, px("1.08")); // 1000 ask
  await place(lev, LONG, MARKET, usd("22.5"), 48n); // 1000 at 48x
  // the oracle moves at most 1 % per update: two updates, each in its own second; then a 2000 bid
  // within the band of the new mark
  await send(deployer, d.contracts.oracle, oracleAbi, "setPrice", [EUR, px("1.0692")]);
  await send(deployer, d.contracts.oracle, oracleAbi, "setPrice", [EUR, px("1.066")]);
  await place(makers[0]!, LONG, LIMIT, usd("213"), 10n, px("1.065")); // 2000 bid
  const keeper = walletClientFor(rpcUrl, LOCAL_CHAIN_ID, devAccount(KEY_INDEX.keeper).privateKey);
  const liq = await send(keeper, engine, engineAbi, "liquidatePosition", [lev.accountId, EUR]);
  record("liquidate", liq, undefined, `${fills(liq)} maker fill; reported, not capped`);

  // ── Market v2: a batch of 10 at existing levels, cancel-all of 20, a dead-man refresh ─
  // m0 opens 10 ask levels (1.0700–1.0709, inside the operator band of the mark after the
  // liquidation's 1.066); m1 rests 10 orders at them in one batch, then 10 more one by one
  const tick = px("0.0001");
  const orderArgs = (a: Actor, i: number) => ({
    accountId: a.accountId, marketId: EUR, side: SHORT, orderType: LIMIT, collateral6: usd("10.7"), leverage: 10n,
    limitPriceX18: px("1.07") + BigInt(i) * tick, clientKey: clientKey(), timeInForce: 0, reduceOnly: false, expiresAt: 0n,
  });
  const m0Ids: bigint[] = [];
  for (let i = 0; i < 10; i++) m0Ids.push(...placedIds(await send(relayer, engine, engineAbi, "placeOrder", [orderArgs(m0, i)])));
  // m1 quotes at them and takes its quotes back (a live book's churn: the batch's orders take the
  // slots these free, as in any book with fills and cancels)
  const churn: bigint[] = [];
  for (let i = 0; i < 10; i++) churn.push(...placedIds(await send(relayer, engine, engineAbi, "placeOrder", [orderArgs(m1, i)])));
  await send(relayer, engine, engineAbi, "cancelOrders", [m1.accountId, EUR, churn]);
  const calls = Array.from({ length: 10 }, (_, i) => encodeFunctionData({ abi: engineAbi, functionName: "placeOrder", args: [orderArgs(m1, i)] }));
  const batch = await send(relayer, engine, engineAbi, "batch", [calls, false]);
  const m1Ids = placedIds(batch);
  if (m1Ids.length !== 10) throw new Error(`expected 10 orders placed by the batch, got ${m1Ids.length}`);
  record("batch10ExistingLevels", batch, { max: 950_000, label: "<= 950k" }, "Engine.batch of 10 placeOrder at existing levels");
  for (let i = 0; i < 10; i++) m1Ids.push(...placedIds(await send(relayer, engine, engineAbi, "placeOrder", [orderArgs(m1, i)])));
  record("cancelAll20", await send(relayer, engine, engineAbi, "cancelOrders", [m1.accountId, EUR, m1Ids]), { max: 500_000, label: "<= 500k" }, "Engine.cancelOrders of 20 resting orders");
  await send(relayer, engine, engineAbi, "setDeadman", [m1.accountId, BigInt(now + 60)]);
  record("deadmanRefresh", await send(relayer, engine, engineAbi, "setDeadman", [m1.accountId, BigInt(now + 61)]), { max: 40_000, label: "<= 40k" }, "Engine.setDeadman over an armed deadline");
  // modify one of m1's orders at an existing level: its size down in place, then to another level
  const [mod] = placedIds(await send(relayer, engine, engineAbi, "placeOrder", [orderArgs(m1, 3)]));
  record("modifyShrink", await send(relayer, engine, engineAbi, "modifyOrder", [m1.accountId, EUR, mod, zeroHash, px("1.07") + 3n * tick, px("50")]), undefined, "size down at the same price (time kept)");
  record("modifyMove", await send(relayer, engine, engineAbi, "modifyOrder", [m1.accountId, EUR, mod, zeroHash, px("1.07") + 5n * tick, px("50")]), undefined, "to another existing level");
  await send(relayer, engine, engineAbi, "cancelOrders", [m1.accountId, EUR, [mod!]]);
  await send(relayer, engine, engineAbi, "cancelOrders", [m0.accountId, EUR, m0Ids]); // the fill cap below meets only its own makers

  // ── a stop-loss on m0's short (1000 from the liquidation's setup), set by the relayer as its
  // operator, fired by the keeper against one maker's ask once the index rises 0.14 %
  const book = d.contracts.triggerBook;
  const short = (await client.readContract({ address: market, abi: marketAbi, functionName: "getPosition", args: [m0.accountId] })).sizeQty;
  if (short >= 0n) throw new Error(`expected m0 short before the trigger, got ${short}`);
  const mark0 = (await client.readContract({ address: market, abi: marketAbi, functionName: "markPrice" })) as bigint;
  const STOP_LOSS = 1;
  record("triggerSet", await send(relayer, book, triggerBookAbi, "setTrigger", [m0.accountId, EUR, STOP_LOSS, mark0 + px("0.0005"), MARKET, 0n, false]), undefined, "TriggerBook.setTrigger: a stop-loss, MARKET");
  await send(deployer, d.contracts.oracle, oracleAbi, "setPrice", [EUR, px("1.0675")]);
  const askKey = clientKey();
  await place(makers[1]!, SHORT, LIMIT, usd("130"), 10n, px("1.0676"), askKey); // ~1200 ask
  const fired = await send(keeper, book, triggerBookAbi, "executeTrigger", [m0.accountId, EUR, STOP_LOSS]);
  if (fills(fired) !== 1) throw new Error(`expected the stop-loss to fill one maker, got ${fills(fired)}`);
  record("triggerExecute", fired, undefined, "TriggerBook.executeTrigger: the reduce-only MARKET close, 1 maker fill");
  await send(relayer, engine, engineAbi, "cancelOrder", [makers[1]!.accountId, EUR, askKey]);

  if (fillCap) {
    // the fill cap (50): 50 makers of 10 each over 5 levels, a taker wanting 600
    log("setting up 50 more makers …");
    for (let i = 10; i < 60; i++) makers.push(await actor(20 + i, usd("1000")));
    // the index back from the liquidation's 1.066 to 1.08 (at most 1 % per update, one a second)
    await send(deployer, d.contracts.oracle, oracleAbi, "setPrice", [EUR, px("1.0735")]);
    await send(deployer, d.contracts.oracle, oracleAbi, "setPrice", [EUR, px("1.08")]);
    for (const [k, m] of makers.slice(10, 60).entries()) {
      const level = px("1.087") + BigInt(Math.floor(k / 10)) * px("0.00001");
      await place(m, SHORT, LIMIT, usd("1.1"), 10n, level);
    }
    const cap = await place(taker, LONG, MARKET, usd("65.4"), 10n); // 600 at 1.087…
    if (fills(cap) !== 50) throw new Error(`expected 50 fills (the cap), got ${fills(cap)}`);
    record("marketOrderFillCap", cap, { max: 15_000_000, label: "< 15M" }, "50 maker fills over 5 levels");
    const per = (Number(cap.gasUsed) - Number(one.gasUsed)) / 49;
    results.extraMakerFillAtCap = { gasUsed: Math.round(per), target: "<= 100k", withinTarget: per <= 100_000, note: "(cap - 1 maker) / 49" };
  }
  const names: Record<string, string> = { [market.toLowerCase()]: "EUR/USD market" };
  for (const [k, v] of Object.entries(d.contracts)) if (typeof v === "string") names[v.toLowerCase()] ??= k;
  return { results, sizes, receipts, names };
}

/** Deployed (runtime) bytecode size of each contract, in bytes. */
async function deployedSizes(client: PublicClientT, contracts: Record<string, Address>, market: Address): Promise<Record<string, number>> {
  const size = (code: Hex | undefined) => (code ? (code.length - 2) / 2 : 0);
  const at = async (address: Address) => size(await client.getCode({ address }));
  const extension = (await client.readContract({ address: market, abi: marketAbi, functionName: "extension" })) as Address;
  // the backstop's address is an immutable of the extension: its runtime code is what its creation code returns
  const backstop = await client.call({ data: marketBackstopBytecode as Hex });
  return {
    Engine: await at(contracts.engine!),
    Market: await at(contracts.marketImplementation!),
    MarketExtension: await at(extension),
    MarketBackstop: size(backstop.data),
    MarketOrders: await at((await client.readContract({ address: market, abi: marketAbi, functionName: "orderModule" })) as Address),
    MarketFactory: await at(contracts.marketFactory!),
    Oracle: await at(contracts.oracle!),
    VenueLens: await at(contracts.venueLens!),
    TriggerBook: await at(contracts.triggerBook!),
    VenueTimelock: await at(contracts.timelock!),
    DepositToken: await at(contracts.depositToken!),
  };
}

/** Simulates (for a readable revert), sends, and waits for a successful receipt. */
async function tx(
  client: PublicClientT, w: WalletClientT, address: Address, abi: Abi, functionName: string, args: readonly unknown[],
): Promise<TransactionReceipt> {
  const { request } = await client
    .simulateContract({ address, abi, functionName, args, account: w.account } as never)
    .catch((e: { shortMessage?: string; message?: string }) => {
      throw new Error(`${functionName} failed: ${e.shortMessage ?? e.message}`);
    });
  // the estimate runs at another timestamp than the mined block (funding accrues there: more
  // storage writes), so an exact estimate could run out of gas
  const estimate = await client.estimateContractGas({ address, abi, functionName, args, account: w.account } as never);
  const hash = await w.writeContract({ ...(request as object), gas: (estimate * 13n) / 10n } as never);
  const r = await client.waitForTransactionReceipt({ hash });
  if (r.status !== "success") {
    throw new Error(`${functionName} reverted (${hash}, gas used ${r.gasUsed} of ${(estimate * 13n) / 10n})`);
  }
  return r;
}
