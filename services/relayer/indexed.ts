/**
 * The indexed state the relayer needs besides the chain: an account's open order ids (cancel-all
 * has no on-chain enumeration to read). Read from the indexer's own read route
 * (GET /accounts/{id}/orders?status=active, INDEXER_URL) with `minBlock`: the relayer first waits
 * until the index holds every block up to the chain head it saw when the write's turn came in its
 * lane, so an order placed (and mined) before the cancel-all, through the relayer or not, is in
 * the list. Switch to another source here only (one place).
 */
import type { Hex } from "viem";
import { ApiError } from "../../core/errors.js";

export type OpenOrder = { orderId: bigint; marketId: Hex };

/** How long the relayer waits for the index to reach a block before it gives up (SERVICE_UNAVAILABLE). */
const CATCH_UP_MS = 20_000;

export class IndexedOrders {
  constructor(
    private readonly indexerUrl: string,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Every open order of `accountId` (of `marketId` when given) once the index has reached `minBlock`. */
  async openOrders(accountId: string, marketId: Hex | undefined, minBlock: bigint): Promise<OpenOrder[]> {
    const deadline = Date.now() + CATCH_UP_MS;
    const out: OpenOrder[] = [];
    let cursor: string | null = null;
    for (;;) {
      const qs = new URLSearchParams({ status: "active", limit: "1000", minBlock: minBlock.toString() });
      if (marketId) qs.set("marketId", marketId);
      if (cursor) qs.set("cursor", cursor);
      const url = `${this.indexerUrl.replace(/\/$/, "")}/accounts/${accountId}/orders?${qs}`;
      let res: Response;
      try {
        res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
      } catch {
        throw new ApiError("SERVICE_UNAVAILABLE", "the indexer is unreachable: open orders unknown, nothing sent");
      }
      const body = (await res.json().catch(() => null)) as
        | { success: boolean; data?: { orders: Array<{ orderId: string; marketId: Hex }>; nextCursor: string | null }; error?: { code: string; message: string } }
        | null;
      if (res.status === 503 && Date.now() < deadline) {
        // minBlock not indexed yet: the bounded wait of the route passed, wait again
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (!body?.success || !body.data) {
        const code = body?.error?.code;
        if (code === "ACCOUNT_NOT_FOUND" || code === "MARKET_NOT_FOUND") throw new ApiError(code, body!.error!.message);
        throw new ApiError("SERVICE_UNAVAILABLE", `the indexer answered ${res.status}${body?.error ? ` ${body.error.code}: ${body.error.message}` : ""}: open orders unknown, nothing sent`);
      }
      for (const o of body.data.orders) out.push({ orderId: BigInt(o.orderId), marketId: o.marketId.toLowerCase() as Hex });
      cursor = body.data.nextCursor;
      if (!cursor) return out;
    }
  }
}
