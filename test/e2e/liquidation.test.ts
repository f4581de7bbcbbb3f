/**
 * A liquidation end to end on the real stack (anvil, Ponder, relayer, keeper): a trader opens a
 * 40× long against the keeper's market maker; the index drops 3 %; the keeper's scan finds the
 * position unhealthy and liquidates it through the relayer; the liquidation routes, the
 * integration API's position route and the account's margin show it. Also: the keeper's health
 * numbers equal the integration API's and the contract's view at the same block, and the
 * routes' error answers (400/401/404/409, never 500).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUnits, type Hex } from "viem";
import { engineAbi, marketAbi, oracleAbi, venueLensAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { publicClient, walletClient } from "./helpers/chain.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";
import { until } from "./helpers/wait.js";
import { chainTrading, positionIdOf } from "./helpers/trading.js";

const TRADER_INDEX = 17; // ether only in the harness: this file's own wallet

type Envelope<T = any> = { success: boolean; data: T; error?: { code: string; message: string } };
async function call<T = any>(url: string, init?: RequestInit): Promise<{ status: number; body: Envelope<T>; block: number }> {
  const res = await fetch(url, init);
  const body = (await res.json()) as Envelope<T>;
  return { status: res.status, body, block: Number(res.headers.get("x-indexed-block") ?? -1) };
}



describe.each([sharedStack()])("liquidation end to end ($kind)", (s: StackInfo) => {
  const client = publicClient(s);
  const trader = devAccount(TRADER_INDEX);
  const traderWallet = walletClient(s, trader.privateKey);
  const deployerWallet = walletClient(s, s.keys.deployer);
  const { engine, oracle, venueLens } = s.deployment.contracts;
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!;
  const marketId = eur.marketId as Hex;
  const internal = { "x-internal-token": s.internalToken, "x-caller-address": trader.address };
  let accountId = 0n;
  let positionId: Hex = "0x";
  let startPrice = 0n;
  let sizeQty = 0n;

  const { send, fund } = chainTrading(s);
  const walkIndex = (target: bigint) => chainTrading(s).walkIndex(marketId, target);

  beforeAll(async () => {
    [startPrice] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] });
    // The trader's own account: 10,000 USDV minted by the deployer, approved, deposited.
    accountId = await fund(traderWallet, "10000");
    positionId = positionIdOf(accountId, marketId);
  });

  afterAll(async () => {
    // Leave the shared stack's EUR/USD where it was.
    if (startPrice > 0n) await walkIndex(startPrice).catch(() => {});
  });

  it("opens a 40x long (50x at the ask would be below initial margin) against the keeper's market maker", async () => {
    // The maker quotes both sides once the keeper is up.
    await until("the market maker's asks", async () => {
      const [, ask] = await client.readContract({ address: venueLens, abi: venueLensAbi, functionName: "bestPrices", args: [eur.marketAddress] });
      return ask > 0n;
    });
    // The simulation and the mined order may see different books (a re-quote, the price feed):
    // an order that reverted on chain is simulated and sent again, for up to 15 s.
    const order = {
      address: engine, abi: engineAbi, functionName: "placeOrder",
      args: [{ accountId, marketId, side: 0, orderType: 0, collateral6: parseUnits("1000", 6), leverage: 40n, limitPriceX18: 0n, clientKey: `0x${"00".repeat(32)}`, timeInForce: 0, reduceOnly: false, expiresAt: 0n }],
    } as const;
    const r = await until("the 40x long mined", async () => {
      const receipt = await send(traderWallet, order);
      return receipt.status === "success" ? receipt : undefined;
    }, 15_000);
    const pos = await client.readContract({ address: eur.marketAddress, abi: marketAbi, functionName: "getPosition", args: [accountId], blockNumber: r.blockNumber });
    expect(pos.sizeQty > 0n).toBe(true);
    sizeQty = pos.sizeQty;

    // The indexer may trail the chain by several seconds (the maker's start-up burst): wait for it.
    const { status, body } = await until("the position indexed", async () => {
      const a = await call(`${s.keeperUrl}/liquidation/position/${positionId}?minBlock=${r.blockNumber}`);
      return a.status === 503 ? undefined : a;
    });
    expect(body.error ?? null).toBeNull();
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      positionId, accountId: Number(accountId), marketId, symbol: "EUR/USD", isOpen: true, side: "LONG", size: sizeQty.toString(),
    });
    expect(body.data.health.isLiquidatable).toBe(false);
  });

  it("computes the same health as the integration API and the contract at one block", async () => {
    // Blocks advance with the price feed and the maker. Compare only answers given while the
    // indexed block stood still (integration, keeper, integration again, all at one block), then
    // field by field with the contract's view at that block. A mismatch is retried (the indexer
    // may momentarily serve rows newer than its checkpoint); a real difference fails every time.
    let mismatch = "";
    await until("keeper = integration API = contract at one block", async () => {
      const i1 = await call(`${s.integrationUrl}/accounts/${accountId}/positions/${marketId}`);
      const k = await call(`${s.keeperUrl}/liquidation/position/${positionId}?minBlock=${i1.block}`);
      const i2 = await call(`${s.integrationUrl}/accounts/${accountId}/positions/${marketId}?minBlock=${k.block}`);
      if (!(i1.block === k.block && k.block === i2.block && k.body.success && i1.body.success)) return undefined;
      const kh = k.body.data.health;
      const ih = i1.body.data.health;
      const view = await client.readContract({
        address: venueLens, abi: venueLensAbi, functionName: "positionHealth", args: [eur.marketAddress, accountId], blockNumber: BigInt(k.block),
      });
      const expected: Record<string, unknown> = {
        markPrice: view.markPriceX18.toString(),
        positionValue: view.positionValueWad.toString(),
        unrealizedPnL: view.unrealizedPnlWad.toString(),
        pendingFunding: view.pendingFundingWad.toString(),
        equity: view.equityWad.toString(),
        maintenanceMargin: view.maintenanceWad.toString(),
        marginRatioBps: Number(view.marginRatioBps),
        liquidationPrice: view.liquidationPriceX18.toString(),
        insolvencyPrice: view.insolvencyPriceX18.toString(),
        isLiquidatable: view.isLiquidatable,
      };
      const diffs = Object.entries(expected)
        .filter(([f, v]) => kh[f] !== v || (f in ih && ih[f] !== v))
        .map(([f, v]) => `${f}: contract ${v}, keeper ${kh[f]}, integration ${ih[f]}`);
      mismatch = `block ${k.block}: ${diffs.join("; ")}`;
      return diffs.length === 0;
    }, 30_000, 50).catch((e) => {
      throw new Error(`${(e as Error).message}; last mismatch at ${mismatch}`);
    });
  });

  it("answers errors as envelopes: 400, 401, 404, 409", async () => {
    const bad = await call(`${s.keeperUrl}/liquidation/position/0x1234`);
    expect([bad.status, bad.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);
    for (const path of ["/liquidation/account/abc", "/liquidation/accounts/-1/health", `/liquidation/account/${"9".repeat(80)}`, "/liquidation/market/0xzz"]) {
      const r = await call(`${s.keeperUrl}${path}`);
      expect([r.status, r.body.success, r.body.error?.code], path).toEqual([400, false, "VALIDATION_ERROR"]);
    }
    const noPos = await call(`${s.keeperUrl}/liquidation/position/0x${"ab".repeat(32)}`);
    expect([noPos.status, noPos.body.error?.code]).toEqual([404, "POSITION_NOT_FOUND"]);
    const noAcct = await call(`${s.keeperUrl}/liquidation/accounts/999999/health`);
    expect([noAcct.status, noAcct.body.error?.code]).toEqual([404, "ACCOUNT_NOT_FOUND"]);
    const noMarket = await call(`${s.keeperUrl}/liquidation/market/0x${"cd".repeat(32)}`);
    expect([noMarket.status, noMarket.body.error?.code]).toEqual([404, "MARKET_NOT_FOUND"]);
    const noToken = await call(`${s.keeperUrl}/liquidation/position/${positionId}/liquidate`, { method: "POST" });
    expect([noToken.status, noToken.body.error?.code]).toEqual([401, "UNAUTHENTICATED"]);
    const healthy = await call(`${s.keeperUrl}/liquidation/position/${positionId}/liquidate`, { method: "POST", headers: internal });
    expect([healthy.status, healthy.body.error?.code]).toEqual([409, "NOT_LIQUIDATABLE"]);
    const healthyAccount = await call(`${s.keeperUrl}/liquidation/account/${accountId}/liquidate`, { method: "POST", headers: internal });
    expect([healthyAccount.status, healthyAccount.body.error?.code]).toEqual([409, "NOT_LIQUIDATABLE"]);
  });

  it("liquidates the position after a 3% drop (walked in 1 % oracle updates), and every route shows it", async () => {
    const before = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [accountId] });
    const drop = (startPrice * 97n) / 100n / 10n ** 13n * 10n ** 13n; // on the 0.00001 tick
    const moved = await walkIndex(drop);

    const liquidated = await until("the keeper's liquidation", async () => {
      const r = await call(`${s.keeperUrl}/liquidation/position/${positionId}?minBlock=${moved.blockNumber}`);
      return r.body.success && r.body.data.liquidations.length > 0 && !r.body.data.isOpen ? r : undefined;
    }, 90_000, 500);
    const d = liquidated.body.data;
    expect(d).toMatchObject({ isOpen: false, side: null, size: "0", health: null });
    const l = d.liquidations[0];
    expect(l).toMatchObject({ positionId, accountId: Number(accountId), marketId, remainingSize: "0" });
    expect(BigInt(l.closedQuantity)).toBe(sizeQty);
    // Liquidation is permissionless on chain; the keeper sends it through the relayer's signer.
    expect(l.liquidator.toLowerCase()).toBe(devAccount(KEY_INDEX.relayer).address.toLowerCase());
    // a 3 % drop goes through the bankruptcy price: what the book cannot take within it goes to the
    // backstop (insurance fund, then deleveraging), never to bad debt
    expect(BigInt(l.badDebt)).toBe(0n);

    const block = liquidated.block;
    const account = await call(`${s.keeperUrl}/liquidation/account/${accountId}?minBlock=${block}`);
    expect(account.body.data).toMatchObject({ accountId: Number(accountId), openPositions: 0, isLiquidatable: false });
    expect(account.body.data.liquidations[0].transactionHash).toBe(l.transactionHash);
    const market = await call(`${s.keeperUrl}/liquidation/market/${marketId}?minBlock=${block}`);
    expect(market.body.data.liquidations.some((x: any) => x.transactionHash === l.transactionHash)).toBe(true);
    expect(market.body.data.positions.some((x: any) => x.positionId === positionId)).toBe(false);

    // The integration API's position route and the account's margin, against the chain.
    const pos = await call(`${s.integrationUrl}/accounts/${accountId}/positions/${marketId}?minBlock=${block}`);
    expect(pos.body.data).toMatchObject({ isOpen: false, side: null, size: "0", health: null });
    const acct = await call(`${s.integrationUrl}/accounts/${accountId}?minBlock=${block}`);
    const onChain = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [accountId], blockNumber: BigInt(acct.block) });
    expect(acct.body.data.margin).toMatchObject({
      available: onChain.availableWad.toString(), committed: "0", total: onChain.totalWad.toString(),
    });
    // The loss, the fees and the liquidation fee came out of the account.
    expect(onChain.totalWad < before.totalWad).toBe(true);
    const health = await call(`${s.keeperUrl}/liquidation/accounts/${accountId}/health?minBlock=${acct.block}`);
    expect(health.body.data.margin).toEqual(acct.body.data.margin);
    expect(health.body.data).toMatchObject({ openPositions: 0, isLiquidatable: false, liquidatablePositions: 0 });
  });
});
