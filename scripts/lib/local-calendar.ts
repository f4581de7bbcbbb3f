/**
 * The local chain's calendar switch (README "Market sessions"): sessions follow each market's
 * calendar on chain (docs/CONTRACTS.md "Weekends and gaps"); the local engine has no calendar
 * delay, so `npm start` applies the calendar it wants at once. The timelock holds PARAMS_ROLE
 * after the handover: on anvil the script acts as the timelock (anvil_impersonateAccount), which
 * no other chain allows.
 */
import { createWalletClient, http, type Address, type Hex, type PublicClient } from "viem";
import { engineAbi, marketAbi } from "../../abis/index.js";
import { LOCAL_CHAIN_ID } from "../../core/config.js";
import { firstOpenAt, nextSessionChange, sameCalendar, sessionOf, type Calendar, type SessionName } from "../../core/calendar.js";
import type { Deployment } from "../../core/deployment.js";
import { chainFor } from "./clients.js";

/** Sets `want` on every market whose calendar (in force or next) differs; returns how many changed. */
export async function applyLocalCalendar(client: PublicClient, rpcUrl: string, d: Deployment, want: Calendar): Promise<number> {
  if (d.chainId !== LOCAL_CHAIN_ID) throw new Error("applyLocalCalendar: the local chain only (elsewhere a calendar goes through the timelock)");
  const timelock = d.contracts.timelock as Address;
  const engine = d.contracts.engine as Address;
  let changed = 0;
  for (const m of d.markets) {
    const [current, next, startsAt] = (await client.readContract({ address: m.marketAddress as Address, abi: marketAbi, functionName: "calendar" })) as readonly [Calendar, Calendar, bigint];
    const now = Number((await client.getBlock({ blockTag: "latest" })).timestamp);
    // `current` is the calendar in force now; a later one may be pending
    if (sameCalendar(current, want) && (Number(startsAt) <= now || sameCalendar(next, want))) continue;
    await client.request({ method: "anvil_impersonateAccount" as never, params: [timelock] as never });
    await client.request({ method: "anvil_setBalance" as never, params: [timelock, "0xde0b6b3a7640000"] as never });
    try {
      const wallet = createWalletClient({ account: timelock, chain: chainFor(d.chainId, rpcUrl), transport: http(rpcUrl) });
      // a calendar starts on an OPEN second: now (0: this block), or the end of a close or window now in progress
      const start = firstOpenAt(want, now + 1);
      const hash: Hex = await wallet.writeContract({
        address: engine, abi: engineAbi, functionName: "scheduleMarketCalendar", args: [m.marketId as Hex, want, start === now + 1 ? 0n : BigInt(start)],
      });
      const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (r.status !== "success") throw new Error(`scheduleMarketCalendar(${m.symbol}) reverted (tx ${hash})`);
      changed++;
    } finally {
      await client.request({ method: "anvil_stopImpersonatingAccount" as never, params: [timelock] as never });
    }
  }
  return changed;
}

/** Each market's session now (the chain's time) and its next change, as `npm start` prints them. */
export async function marketSessions(client: PublicClient, d: Deployment): Promise<{ symbol: string; session: SessionName; next: { at: number; session: SessionName } | null }[]> {
  const now = Number((await client.getBlock({ blockTag: "latest" })).timestamp);
  return Promise.all(
    d.markets.map(async (m) => {
      const [current, next, startsAt] = (await client.readContract({ address: m.marketAddress as Address, abi: marketAbi, functionName: "calendar" })) as readonly [Calendar, Calendar, bigint];
      const state = { current, next, startsAt: Number(startsAt) };
      return { symbol: m.symbol, session: sessionOf(state, now), next: nextSessionChange(state, now) };
    }),
  );
}
