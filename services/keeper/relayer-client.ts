/**
 * The relayer's internal liquidation API (docs/SERVICES.md): the keeper never signs a liquidation
 * itself, the relayer (the only owner of its nonces) does. Answers pass through unchanged.
 */
import type { Address, LocalAccount } from "viem";
import { forwardToRelayer } from "../../core/relayer-client.js";
import { counter } from "../../core/metrics.js";

const liquidations = () =>
  counter({
    name: "venue_keeper_liquidations_total",
    help: "Liquidations sent to the relayer (the keeper's scan and the /v1 liquidate routes): attempted, then done (mined), pending (202) or failed",
    labelNames: ["result"],
  });
import { selfRegistrationMessage } from "../../core/auth/service-tokens.js";

export type RelayerAnswer = { status: number; body: unknown };
export type ForwardHeaders = { callerAddress: Address; requestId?: string; idempotencyKey?: string };

export class RelayerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalToken: string,
    private readonly timeoutMs: number,
  ) {
    for (const result of ["attempted", "done", "pending", "failed"]) liquidations().inc({ result }, 0); // series exist from the start
  }

  /** `adlCandidates`: whom auto-deleveraging may close (./liquidation/adl.ts); none: the market's default scan. */
  liquidatePosition(accountId: bigint, marketId: string, h: ForwardHeaders, adlCandidates: bigint[] = []): Promise<RelayerAnswer> {
    const body = { accountId: accountId.toString(), marketId, ...(adlCandidates.length ? { adlCandidates: adlCandidates.map(String) } : {}) };
    return this.liquidation("/internal/liquidations/position", body, h);
  }

  liquidateAccount(accountId: bigint, h: ForwardHeaders): Promise<RelayerAnswer> {
    return this.liquidation("/internal/liquidations/account", { accountId: accountId.toString() }, h);
  }

  private async liquidation(path: string, body: unknown, h: ForwardHeaders): Promise<RelayerAnswer> {
    const m = liquidations();
    m.inc({ result: "attempted" });
    try {
      const a = await this.post(path, body, h);
      m.inc({ result: a.status === 202 ? "pending" : a.status >= 200 && a.status < 300 ? "done" : "failed" });
      return a;
    } catch (e) {
      m.inc({ result: "failed" });
      throw e;
    }
  }

  /**
   * Registers the keeper's own address in the relayer's closed-beta registry (invite-only
   * profiles refuse unregistered callers, liquidations included): the registration-only token,
   * and a signature by the keeper's key proving the address is its own.
   */
  async registerSelf(account: LocalAccount, registrationToken: string): Promise<number> {
    const issuedAt = Math.floor(Date.now() / 1000);
    const signature = await account.signMessage({ message: selfRegistrationMessage(account.address, issuedAt) });
    const res = await fetch(new URL("/internal/registration", this.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", "x-internal-token": registrationToken },
      body: JSON.stringify({ address: account.address, issuedAt, signature, note: "keeper (liquidations)" }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    return res.status;
  }

  /** One POST through the relayer client of core/relayer-client.ts (its headers, timeouts and error envelopes). */
  private post(path: string, body: unknown, h: ForwardHeaders): Promise<RelayerAnswer> {
    return forwardToRelayer(
      { url: this.baseUrl.replace(/\/$/, ""), token: this.internalToken, timeoutMs: this.timeoutMs },
      { method: "POST", path, body, caller: h.callerAddress, requestId: h.requestId, idempotencyKey: h.idempotencyKey },
    );
  }
}
