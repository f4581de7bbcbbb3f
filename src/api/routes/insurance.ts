/**
 * The insurance fund (issue 10 "the venue's own pots"): its balance now and its history. Venue-wide
 * (one fund backs every market); anyone may donate (Engine.donateInsurance), nobody withdraws.
 */
import { createRoute } from "@hono/zod-openapi";
import { db } from "ponder:api";
import { insuranceFund } from "ponder:schema";
import { eq } from "ponder";
import { formatField } from "../../../core/fields.js";
import { MarketHistoryQuery } from "../../../core/schemas/history.js";
import * as I from "../../../core/schemas/insurance.js";
import { createApiApp } from "../lib/app.js";
import { answerList } from "../lib/exports.js";
import { INSURANCE_EVENTS } from "../../../core/history/lists.js";
import { indexedBlock, readAtIndexedBlock } from "../lib/indexedBlock.js";
import { readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { ReadQuery, envelope } from "../../../core/schemas/reads.js";

const FUND_ID = "venue";

const getFund = createRoute({
  method: "get",
  path: "/insurance-fund",
  tags: ["insurance"],
  summary: "The insurance fund: balance, donations, fees, bad debt",
  middleware: readMiddleware,
  request: { query: ReadQuery },
  responses: {
    200: { description: "The fund at the indexed block", headers: readHeaders, content: { "application/json": { schema: envelope(I.InsuranceFund, "InsuranceFundResponse") } } },
    ...readErrors,
  },
});

const getHistory = createRoute({
  method: "get",
  path: "/insurance-fund/history",
  tags: ["insurance"],
  summary: "Every change of the insurance fund, newest first by (block, log index)",
  description: "Cursor pagination (pass nextCursor back as cursor); `Accept: text/csv` or `application/x-ndjson` streams the whole range (from/to), oldest first.",
  middleware: [indexedBlock],
  request: { query: MarketHistoryQuery },
  responses: {
    200: {
      description: "The fund's changes",
      headers: readHeaders,
      content: {
        "application/json": { schema: envelope(I.InsuranceFundEventList, "InsuranceFundEventListResponse") },
        "text/csv": { schema: { type: "string" as const } },
        "application/x-ndjson": { schema: { type: "string" as const } },
      },
    },
    ...readErrors,
  },
});

type FundRow = typeof insuranceFund.$inferSelect;

const fundItem = (r: FundRow | undefined) => {
  const v = (k: "balanceWad" | "donatedWad" | "feesWad" | "feesWithdrawnWad" | "badDebtWad") => r?.[k] ?? 0n;
  return {
    balance: v("balanceWad").toString(),
    balanceFormatted: formatField("balance", v("balanceWad")),
    donated: v("donatedWad").toString(),
    donatedFormatted: formatField("donated", v("donatedWad")),
    fees: v("feesWad").toString(),
    feesFormatted: formatField("fees", v("feesWad")),
    feesWithdrawn: v("feesWithdrawnWad").toString(),
    feesWithdrawnFormatted: formatField("feesWithdrawn", v("feesWithdrawnWad")),
    badDebt: v("badDebtWad").toString(),
    badDebtFormatted: formatField("badDebt", v("badDebtWad")),
    updatedBlock: Number(r?.updatedBlock ?? 0n),
  };
};

export const insuranceRoutes = createApiApp()
  .openapi(getFund, async (c) => {
    const data = await readAtIndexedBlock(c, async () => {
      const rows = await db.select().from(insuranceFund).where(eq(insuranceFund.id, FUND_ID)).limit(1);
      return fundItem(rows[0]);
    });
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getHistory, async (c) => {
    const q = c.req.valid("query");
    return answerList(c as never, INSURANCE_EVENTS, { venue: true }, q, Object.keys(I.InsuranceFundEvent.shape)) as never;
  });
