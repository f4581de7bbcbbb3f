/**
 * The e2e harness itself: every stack is up, deployed, indexed, and its demo wallets ready.
 * Other files share the stacks and may run first, so only what they cannot undo is checked.
 */
import { describe, expect, it } from "vitest";
import { depositTokenAbi, engineAbi } from "../../abis/index.js";
import { sharedStack } from "./helpers/stacks.js";
import { publicClient } from "./helpers/chain.js";

describe.each([sharedStack()])("harness ($kind)", (s) => {
  it("serves the indexer and the services that exist", async () => {
    expect((await fetch(`${s.integrationUrl}/ready`)).status).toBe(200);
    for (const url of [s.relayerUrl, s.gatewayUrl, s.keeperUrl].filter(Boolean)) {
      const res = await fetch(`${url}/health`, { headers: { "x-internal-token": s.internalToken } });
      expect(res.status, url!).toBe(200);
    }
  });

  it("has the three local markets on chain", async () => {
    const c = publicClient(s);
    expect(s.deployment.markets.map((m) => m.symbol)).toEqual(["EUR/USD", "GBP/USD", "AUD/USD"]);
    for (const m of s.deployment.markets) {
      const addr = await c.readContract({ address: s.deployment.contracts.engine, abi: engineAbi, functionName: "marketOf", args: [m.marketId] });
      expect(addr.toLowerCase()).toBe(m.marketAddress.toLowerCase());
    }
  });

  it("prepared the demo wallets", async () => {
    const c = publicClient(s);
    expect(s.wallets).toHaveLength(10);
    for (const w of s.wallets) {
      const bal = await c.readContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [w.address] });
      expect(bal > 0n).toBe(true);
      if (s.gatewayUrl) expect(w.apiKey).toBeTruthy();
      if (w.accountId) {
        const id = await c.readContract({ address: s.deployment.contracts.engine, abi: engineAbi, functionName: "accountIdOf", args: [w.address] });
        expect(Number(id)).toBe(w.accountId);
      }
    }
    expect(s.wallets.slice(0, 5).every((w) => w.accountId)).toBe(true);
    expect(s.wallets.slice(5).every((w) => w.accountId === null)).toBe(true);
  });
});
