/**
 * Deploys the venue to any chain (docs/CONTRACTS.md "Deployment") and writes
 * `deployments/<chainId>.json`.
 *
 *   npm run deploy                               local anvil, deployer = mnemonic index 10
 *   RPC_URL=… DEPLOYER_PRIVATE_KEY=0x… npm run deploy -- --markets markets.json [--out file]
 *
 * `markets.json`: [{ "base": "EUR", "quote": "USD", "maxLeverage": 50, "maintenanceMarginBps": 100,
 *   "indexPrice": "1.08" }, …] (other parameters default to the local ones below).
 * `deployVenue()` is the reusable part (tests, benches, `npm start`).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  concat, keccak256, parseEventLogs, parseUnits, toBytes, zeroAddress, zeroHash,
  type Abi, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient,
} from "viem";
import {
  depositTokenAbi, depositTokenBytecode, engineAbi, engineBytecode, marketAbi, marketBytecode, marketBackstopAbi, marketBackstopBytecode, marketOrdersAbi, marketOrdersBytecode,
  marketFactoryAbi, marketFactoryBytecode, oracleAbi, oracleBytecode, venueLensAbi, venueLensBytecode,
  venueTimelockAbi, venueTimelockBytecode, marginAccountBytecode, fxTokenBytecode, triggerBookAbi, triggerBookBytecode,
} from "../abis/index.js";
import { KEY_INDEX, LOCAL_CHAIN_ID, devAccount, roleKey } from "../core/config.js";
import { FX_WEEK, NO_CLOSE, firstOpenAt, type Calendar } from "../core/calendar.js";
import { deploymentPath, parseDeployment, serializeDeployment, type Deployment } from "../core/deployment.js";
import { publicClientFor, walletClientFor } from "./lib/clients.js";

export type MarketSpec = {
  base: string; // "EUR"
  quote: string; // "USD"
  maxLeverage: number;
  maintenanceMarginBps: number;
  /** Initial index price (18 decimals); set on the oracle right after creation when given. */
  indexPriceX18?: bigint;
  tickSizeX18?: bigint;
  lotSizeQty?: bigint;
  minOrderQty?: bigint;
  liquidationFeeBps?: number;
  makerFeeBps?: number;
  takerFeeBps?: number;
  priceBandBps?: number;
  markClampBps?: number;
  maxFillsPerTx?: number;
  maxFundingRateX18PerHour?: bigint;
  skewScaleX18PerHour?: bigint;
  operatorBandBps?: number;
  maxOpenInterestQty?: bigint;
  maxPositionQty?: bigint;
  /** Margin multiplier of the pre-close and closed sessions, bps (docs/CONTRACTS.md "Weekends
   *  and gaps"); default: maintenance + a typical weekend gap, over maintenance. */
  closeUpliftBps?: number;
};

const e18 = (v: string) => parseUnits(v, 18);

/** The three local markets (docs/CONTRACTS.md "Local market parameters"). */
export const LOCAL_MARKETS: MarketSpec[] = [
  { base: "EUR", quote: "USD", maxLeverage: 50, maintenanceMarginBps: 100, indexPriceX18: e18("1.08"), priceBandBps: 94, operatorBandBps: 90 },
  { base: "GBP", quote: "USD", maxLeverage: 25, maintenanceMarginBps: 200, indexPriceX18: e18("1.27"), priceBandBps: 150, operatorBandBps: 140 },
  { base: "AUD", quote: "USD", maxLeverage: 20, maintenanceMarginBps: 250, indexPriceX18: e18("0.66"), priceBandBps: 200, operatorBandBps: 190 },
];

/** The weekend gap the close uplift covers on top of maintenance (docs/CONTRACTS.md "Weekends and gaps"). */
export const TYPICAL_GAP_BPS = 200;
/** EUR/USD 1 % → 3 % (3×), GBP/USD 2 % → 4 % (2×), AUD/USD 2.5 % → 4.5 % (1.8×). */
export const closeUpliftBps = (s: MarketSpec): number =>
  s.closeUpliftBps ?? Math.ceil(((s.maintenanceMarginBps + TYPICAL_GAP_BPS) * 10_000) / s.maintenanceMarginBps);

/** Devnet oracle: stale after 60 s (the local feed pushes every 2 s), at most 1 % per update:
 *  ≤ 1/L − maintenance of every market it prices (EUR/USD: 2 % − 1 %), which MarketFactory checks. */
export const ORACLE_MAX_AGE_SECONDS = 60n;
export const ORACLE_MAX_MOVE_BPS = 100n;

/** The widest price band MarketFactory accepts: (band + maintenance + taker fee) × L < 10⁴. */
export function maxPriceBandBps(maxLeverage: number, maintenanceMarginBps: number, takerFeeBps: number): number {
  return Math.floor(9_999 / maxLeverage) - maintenanceMarginBps - takerFeeBps;
}
/** Devnet delay of the VenueTimelock (new updaters, oracle config, feeds, new markets). */
export const GOVERNANCE_DELAY_SECONDS = 3600n;
/** MarketCalendar.MIN_DELAY: the shortest calendar delay off the local chain (the longest window). */
export const CALENDAR_MIN_DELAY_SECONDS = 12n * 3600n;

/** keccak256 over the creation code of every contract deployVenue deploys: a deployment made
 *  from other contracts (an older checkout) carries another hash, and `npm start` redeploys. */
export const CODE_HASH: Hex = keccak256(concat([
  depositTokenBytecode, oracleBytecode, engineBytecode, marketBackstopBytecode, marketOrdersBytecode, marketBytecode, marketFactoryBytecode, venueLensBytecode,
  venueTimelockBytecode, marginAccountBytecode, fxTokenBytecode, triggerBookBytecode,
] as Hex[]));

export const marketIdOf = (symbol: string): Hex => keccak256(toBytes(symbol));

/** The MarketParams struct for `MarketFactory.createMarket` (factory fills ids and tokens). */
export function marketParams(s: MarketSpec) {
  const symbol = `${s.base}/${s.quote}`;
  const takerFeeBps = s.takerFeeBps ?? 5;
  const priceBandBps = s.priceBandBps ?? maxPriceBandBps(s.maxLeverage, s.maintenanceMarginBps, takerFeeBps);
  return {
    marketId: marketIdOf(symbol),
    symbol,
    baseFxToken: zeroAddress,
    quoteFxToken: zeroAddress,
    tickSizeX18: s.tickSizeX18 ?? e18("0.00001"),
    lotSizeQty: s.lotSizeQty ?? e18("0.01"),
    minOrderQty: s.minOrderQty ?? e18("1"),
    maxLeverage: s.maxLeverage,
    maintenanceMarginBps: s.maintenanceMarginBps,
    liquidationFeeBps: s.liquidationFeeBps ?? 50,
    makerFeeBps: s.makerFeeBps ?? 1,
    takerFeeBps,
    priceBandBps,
    markClampBps: s.markClampBps ?? Math.min(50, Math.floor(s.maintenanceMarginBps / 2)), // ≤ maintenance / 2
    maxFillsPerTx: s.maxFillsPerTx ?? 50,
    maxFundingRateX18PerHour: s.maxFundingRateX18PerHour ?? e18("0.001"), // 0.1 %/h
    skewScaleX18PerHour: s.skewScaleX18PerHour ?? e18("0.0001"), // 0.01 %/h
    // The relayer (every account's operator) prices orders within mark ± operator band ≤ band.
    operatorBandBps: s.operatorBandBps ?? priceBandBps,
    // Caps far above devnet trading (10 M base units ≈ 10.8 M USD of EUR), so they bind only abuse.
    maxOpenInterestQty: s.maxOpenInterestQty ?? e18("100000000"),
    maxPositionQty: s.maxPositionQty ?? e18("10000000"),
  };
}

export type DeployOptions = {
  /** Owner of the token and engine, proposer and executor of the timelock, guardian of the
   *  oracle (default: the wallet's account). */
  owner?: Address;
  /** Oracle updaters besides the deployer (e.g. the price feed). */
  updaters?: Address[];
  markets?: MarketSpec[];
  /** Oracle staleness bound (default 60 s: keep a price feed running, or pass more). */
  maxAgeSeconds?: bigint;
  /** Largest move of one oracle update, bps of the price before it (default 100). */
  maxMoveBps?: bigint;
  /** Every market's calendar (docs/CONTRACTS.md "Weekends and gaps"; default the FX week:
   *  reduce-only Fri 20:00, closed Fri 21:00 to Sun 21:00 UTC; on the local chain no close, so a
   *  test stack running over a weekend keeps its markets open: `npm start` sets the FX week
   *  unless SCHEDULE_ENABLED=false). Sessions follow it on chain. */
  calendar?: Calendar;
  /** Engine.calendarDelay: default 0 on the local chain (a calendar applies at once), else
   *  MarketCalendar.MIN_DELAY (12 h); the engine refuses less off the local chain. */
  calendarDelaySeconds?: bigint;
  /** VenueTimelock delay (default 3600 s). */
  governanceDelaySeconds?: bigint;
  log?: (msg: string) => void;
};

type Wallet = WalletClient<Transport, Chain, Account>;

/**
 * Deploys every contract, creates the markets, sets their index prices when given, and returns
 * the deployment (not written anywhere). The wallet must own the venue, or set `owner` to
 * itself: the factory and oracle calls below are owner-only.
 */
export async function deployVenue(wallet: Wallet, client: PublicClient, opts: DeployOptions = {}): Promise<Deployment> {
  const log = opts.log ?? (() => {});
  const me = wallet.account.address;
  const owner = opts.owner ?? me;
  const markets = opts.markets ?? LOCAL_MARKETS;

  const mined = async (hash: Hex, what: string) => {
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: client.pollingInterval });
    if (r.status !== "success") throw new Error(`${what} reverted (tx ${hash})`);
    return r;
  };
  const deploy = async (name: string, abi: Abi, bytecode: Hex, args: readonly unknown[]) => {
    const hash = await wallet
      .deployContract({ abi, bytecode, args } as Parameters<Wallet["deployContract"]>[0])
      .catch((e) => { throw brief(`deploy ${name}`, e); });
    const r = await mined(hash, `deploy ${name}`);
    if (!r.contractAddress) throw new Error(`deploy ${name}: no contract address`);
    log(`${name.padEnd(18)} ${r.contractAddress}`);
    return { address: r.contractAddress, block: Number(r.blockNumber) };
  };
  const write = async (what: string, req: Parameters<Wallet["writeContract"]>[0]) => {
    const { request } = await client
      .simulateContract({ ...(req as object), account: wallet.account } as never)
      .catch((e) => { throw brief(what, e); });
    return mined(await wallet.writeContract(request as never), what);
  };

  const token = await deploy("DepositToken", depositTokenAbi, depositTokenBytecode, [me]);
  const maxAge = opts.maxAgeSeconds ?? ORACLE_MAX_AGE_SECONDS;
  const oracle = await deploy("Oracle", oracleAbi, oracleBytecode, [me, maxAge]);
  const chainId = await client.getChainId();
  const calendarDelay = opts.calendarDelaySeconds ?? (chainId === LOCAL_CHAIN_ID ? 0n : CALENDAR_MIN_DELAY_SECONDS);
  const engine = await deploy("Engine", engineAbi, engineBytecode, [token.address, oracle.address, me, calendarDelay]);
  const backstop = await deploy("MarketBackstop", marketBackstopAbi, marketBackstopBytecode, []);
  const orderModule = await deploy("MarketOrders", marketOrdersAbi, marketOrdersBytecode, []);
  const impl = await deploy("Market (impl)", marketAbi, marketBytecode, [backstop.address, orderModule.address]);
  const factory = await deploy("MarketFactory", marketFactoryAbi, marketFactoryBytecode, [engine.address, impl.address, me]);
  const delay = opts.governanceDelaySeconds ?? GOVERNANCE_DELAY_SECONDS;
  const timelock = await deploy("VenueTimelock", venueTimelockAbi, venueTimelockBytecode, [delay, [owner], [owner], zeroAddress]);
  await write("Engine.setFactory", { address: engine.address, abi: engineAbi, functionName: "setFactory", args: [factory.address] } as never);
  const triggerBook = await deploy("TriggerBook", triggerBookAbi, triggerBookBytecode, [engine.address]);
  await write("Engine.setTriggerBook", { address: engine.address, abi: engineAbi, functionName: "setTriggerBook", args: [triggerBook.address] } as never);
  const call = (what: string, address: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
    write(what, { address, abi, functionName, args } as never);

  // setConfig re-checks the factory's markets against the oracle bound from now on
  await call("Oracle.setMarketFactory", oracle.address, oracleAbi, "setMarketFactory", [factory.address]);
  await call("Oracle.setConfig", oracle.address, oracleAbi, "setConfig", [maxAge, opts.maxMoveBps ?? ORACLE_MAX_MOVE_BPS]);
  // The constructor made the deployer an updater; the others join now, before the handover.
  for (const u of new Set((opts.updaters ?? []).filter((u) => u.toLowerCase() !== me.toLowerCase()))) {
    await call(`Oracle.setUpdater(${u})`, oracle.address, oracleAbi, "setUpdater", [u, true]);
  }

  // First prices before the markets: the factory checks tick and price range against them.
  const priced = markets
    .map((m) => [marketIdOf(`${m.base}/${m.quote}`), m.indexPriceX18] as const)
    .filter(([, p]) => p !== undefined);
  if (priced.length) {
    await call("Oracle.setPrices", oracle.address, oracleAbi, "setPrices", [priced.map(([id]) => id), priced.map(([, p]) => p!)]);
  }

  const created: Deployment["markets"] = [];
  for (const spec of markets) {
    const params = marketParams(spec);
    const r = await call(`createMarket ${params.symbol}`, factory.address, marketFactoryAbi, "createMarket", [spec.base, spec.quote, params]);
    const [ev] = parseEventLogs({ abi: marketFactoryAbi, logs: r.logs, eventName: "MarketCreated" }) as unknown as {
      args: { marketId: Hex; market: Address; marketIndex: bigint; symbol: string; baseFxToken: Address; quoteFxToken: Address };
    }[];
    if (!ev) throw new Error(`createMarket ${params.symbol}: no MarketCreated event`);
    created.push({
      marketId: ev.args.marketId.toLowerCase() as Hex,
      symbol: ev.args.symbol,
      marketAddress: ev.args.market,
      marketIndex: Number(ev.args.marketIndex),
      baseFxToken: ev.args.baseFxToken,
      quoteFxToken: ev.args.quoteFxToken,
    });
    log(`market ${ev.args.symbol.padEnd(11)} ${ev.args.market} (index ${ev.args.marketIndex})`);
  }

  const lens = await deploy("VenueLens", venueLensAbi, venueLensBytecode, []);

  // The market calendar and the close uplift are parameters (set now, later through the
  // timelock); sessions follow the calendar on chain, no key switches them.
  const calendar = opts.calendar ?? (chainId === LOCAL_CHAIN_ID ? NO_CLOSE : FX_WEEK);
  const now = Number((await client.getBlock({ blockTag: "latest" })).timestamp);
  // a calendar starts on an OPEN second (a few seconds ahead: the transaction's block comes later)
  const startsAt = BigInt(firstOpenAt(calendar, now + Number(calendarDelay) + (calendarDelay === 0n ? 0 : 60)));
  for (const [i, spec] of markets.entries()) {
    await call(`Engine.setMarketCloseUplift(${created[i]!.symbol})`, engine.address, engineAbi, "setMarketCloseUplift", [
      created[i]!.marketId, BigInt(closeUpliftBps(spec)),
    ]);
    await call(`Engine.scheduleMarketCalendar(${created[i]!.symbol})`, engine.address, engineAbi, "scheduleMarketCalendar", [
      created[i]!.marketId, calendar, startsAt === BigInt(now) ? 0n : startsAt,
    ]);
  }

  // Handover (docs/CONTRACTS.md "Oracle, roles and governance"): from here on, new updaters,
  // oracle configuration, feeds, new markets and every role grant go through the timelock. The
  // deployer keeps GUARDIAN_ROLE (revoke an updater, pause a market: at once), the engine's
  // FEES_ROLE and, as the constructor made it, UPDATER_ROLE.
  const ADMIN = zeroHash;
  const PARAMS = await client.readContract({ address: oracle.address, abi: oracleAbi, functionName: "PARAMS_ROLE" });
  const GUARDIAN = await client.readContract({ address: oracle.address, abi: oracleAbi, functionName: "GUARDIAN_ROLE" });
  const FEES = await client.readContract({ address: engine.address, abi: engineAbi, functionName: "FEES_ROLE" });
  if (owner.toLowerCase() !== me.toLowerCase()) {
    await call("Oracle.grantRole(GUARDIAN, owner)", oracle.address, oracleAbi, "grantRole", [GUARDIAN, owner]);
    await call("Engine.grantRole(GUARDIAN, owner)", engine.address, engineAbi, "grantRole", [GUARDIAN, owner]);
    await call("Engine.grantRole(FEES, owner)", engine.address, engineAbi, "grantRole", [FEES, owner]);
  }
  for (const [name, address, abi] of [
    ["Oracle", oracle.address, oracleAbi], ["MarketFactory", factory.address, marketFactoryAbi], ["Engine", engine.address, engineAbi],
  ] as const) {
    for (const role of [ADMIN, PARAMS]) await call(`${name}.grantRole(timelock)`, address, abi as Abi, "grantRole", [role, timelock.address]);
    for (const role of [PARAMS, ADMIN]) await call(`${name}.renounceRole`, address, abi as Abi, "renounceRole", [role, me]);
  }
  log(`governance        VenueTimelock ${timelock.address} (delay ${delay} s) holds the admin and parameter roles`);

  if (owner !== me) log(`note: owner ${owner} requested; the deposit token is owned by the deployer ${me}`);

  return parseDeployment({
    chainId,
    deployBlock: token.block,
    codeHash: CODE_HASH,
    contracts: {
      engine: engine.address,
      depositToken: token.address,
      oracle: oracle.address,
      marketFactory: factory.address,
      marketImplementation: impl.address,
      venueLens: lens.address,
      triggerBook: triggerBook.address,
      timelock: timelock.address,
    },
    markets: created,
  });
}

/** viem errors carry the whole calldata: keep the reason only. */
export function brief(what: string, e: unknown): Error {
  const err = e as { shortMessage?: string; details?: string; message?: string };
  const reason = [err.shortMessage, err.details].filter(Boolean).join(": ") || err.message || String(e);
  return new Error(`${what} failed: ${reason}`);
}

/** true when every contract of the deployment has code on the chain behind `client`. */
export async function isDeployed(client: PublicClient, d: Deployment): Promise<boolean> {
  if ((await client.getChainId()) !== d.chainId) return false;
  const addrs = [...Object.values(d.contracts), ...d.markets.map((m) => m.marketAddress)];
  const codes = await Promise.all(addrs.map((address) => client.getCode({ address }).catch(() => undefined)));
  return codes.every((c) => !!c && c !== "0x");
}

export function writeDeployment(d: Deployment, file = deploymentPath({ chainId: d.chainId })): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, serializeDeployment(d));
  return file;
}

type MarketJson = Omit<MarketSpec, "indexPriceX18"> & { indexPrice?: string };

function readMarkets(file: string): MarketSpec[] {
  const list = JSON.parse(readFileSync(file, "utf8")) as MarketJson[];
  return list.map(({ indexPrice, ...m }) => ({ ...m, indexPriceX18: indexPrice ? e18(indexPrice) : undefined }));
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8545";
  const key = roleKey("DEPLOYER_PRIVATE_KEY", KEY_INDEX.deployer);
  const probe = publicClientFor(rpcUrl, Number(process.env.CHAIN_ID ?? LOCAL_CHAIN_ID));
  const chainId = await probe.getChainId();
  const client = publicClientFor(rpcUrl, chainId);
  const wallet = walletClientFor(rpcUrl, chainId, key);
  const marketsFile = arg("--markets");
  const updaters = args.flatMap((a, i) => (a === "--updater" ? [args[i + 1] as Address] : []));
  if (chainId === LOCAL_CHAIN_ID && !updaters.length) updaters.push(devAccount(KEY_INDEX.priceFeed).address);
  console.log(`deploying to chain ${chainId} at ${rpcUrl} from ${wallet.account.address}`);
  const d = await deployVenue(wallet, client as PublicClient, {
    markets: marketsFile ? readMarkets(marketsFile) : LOCAL_MARKETS,
    updaters,
    log: (m) => console.log(`  ${m}`),
  });
  const file = writeDeployment(d, arg("--out") ? resolve(arg("--out")!) : deploymentPath({ chainId }));
  console.log(`wrote ${file} (deploy block ${d.deployBlock})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
