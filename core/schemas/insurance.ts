/**
 * The insurance fund on both surfaces (issue 10 "the venue's own pots"): its balance now and its
 * history (donations, liquidation fees in, losses covered and positions taken over out). camelCase
 * here; the gateway snake_cases them (`snakeSchema`).
 */
import { z } from "@hono/zod-openapi";
import { formatted, hex, page, place, raw } from "./history.js";

export const InsuranceFund = z
  .object({
    balance: raw("balance", "What the fund holds now: it absorbs losses of liquidations the book could not take"),
    balanceFormatted: formatted("balance"),
    donated: raw("donated", "Σ donations ever (Engine.donateInsurance: no shares, no withdrawal)"),
    donatedFormatted: formatted("donated"),
    fees: raw("fees", "Protocol fees accrued and not yet withdrawn (the admin withdraws them to a treasury)"),
    feesFormatted: formatted("fees"),
    feesWithdrawn: raw("feesWithdrawn", "Σ fees withdrawn ever"),
    feesWithdrawnFormatted: formatted("feesWithdrawn"),
    badDebt: raw("badDebt", "Σ losses that neither the book, the fund nor deleveraging absorbed, ever"),
    badDebtFormatted: formatted("badDebt"),
    updatedBlock: z.number().int().openapi({ description: "Block of the latest change (0: never changed)" }),
  })
  .openapi("InsuranceFund");

export const InsuranceFundEvent = z
  .object({
    id: z.string(),
    type: z.enum(["DONATION", "CHANGE"]).openapi({
      description: "DONATION (with donor); CHANGE: a liquidation fee in, a loss covered or a position's margin taken over or returned (with marketId)",
    }),
    marketId: hex("Market of a CHANGE; null for a donation").nullable(),
    donor: hex("Who donated; null for a CHANGE").nullable(),
    delta: raw("delta", "Signed: > 0 into the fund"),
    deltaFormatted: formatted("delta"),
    balanceAfter: raw("balanceAfter"),
    balanceAfterFormatted: formatted("balanceAfter"),
    ...place,
  })
  .openapi("InsuranceFundEvent");
export const InsuranceFundEventList = page("events", InsuranceFundEvent, "InsuranceFundEventList");
