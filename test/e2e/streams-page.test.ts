/**
 * The reference page (`/live` on the stream service) in headless Chromium (Debian's `chromium`,
 * driven by playwright-core; .ci/run installs it): it renders every market from the streams, and
 * a limit order and a market order placed through the integration API appear in the page's book
 * and tape. A screenshot per database kind is saved to test-results/ (gitignored).
 */
import { existsSync, mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { parseUnits, type Hex } from "viem";
import { devAccount } from "../../core/config.js";
import { issueToken } from "../../core/auth/siwe.js";
import { jsonClient } from "./helpers/http.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WALLET = 3; // account 4, the streams tests' wallet

describe.each([sharedStack()])("reference page on $kind", (s: StackInfo) => {
  const api = jsonClient(s.integrationUrl);
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!.marketId.toLowerCase() as Hex;
  const accountId = s.wallets[WALLET]!.accountId!;
  let token = "";
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const write = async (method: string, path: string, body?: unknown) => {
    const r = await api(method, path, { token, body, headers: { Prefer: "wait" } });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body.data;
  };

  // The shared stack's quotes are the keeper's market maker's, which re-quotes every 2 s by
  // cancelling before placing, and earlier files' market orders take them: a market order may
  // find no opposite order for a moment (NO_LIQUIDITY, nothing sent). Retried for up to 15 s; any other
  // answer fails at once.
  const marketOrder = async (path: string, body: unknown) => {
    for (let i = 0; ; i++) {
      const r = await api("POST", path, { token, body, headers: { Prefer: "wait" } });
      if (r.status === 409 && r.body.error?.code === "NO_LIQUIDITY" && i < 30) {
        await new Promise((done) => setTimeout(done, 500));
        continue;
      }
      expect(r.status, `POST ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      return r.body.data;
    }
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set CHROMIUM_PATH`);
    token = (await issueToken(s.jwtSecret, devAccount(WALLET).address)).token;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
    page.on("requestfailed", (r) => pageErrors.push(`${r.url()}: ${r.failure()?.errorText}`));
  }, 60_000);
  afterAll(async () => {
    if (pageErrors.length) console.log(`[page errors on ${s.kind}]`, pageErrors);
    await browser?.close();
  });

  it("renders every market from the streams, and an order placed through the API appears in its book and tape", async () => {
    await page.goto(`${s.streamsUrl}/live`);
    // every market: its symbol from the market channel, a book, a candle chart, a depth chart
    for (const m of s.deployment.markets) {
      const sec = page.locator(`section.market[data-market-id="${m.marketId.toLowerCase()}"]`);
      await expect.poll(() => sec.getAttribute("data-symbol"), { timeout: 10_000 }).toBe(m.symbol);
      await expect.poll(() => sec.locator(".book tr.bid, .book tr.ask").count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await sec.locator(".candles canvas").count()).toBeGreaterThan(0);
      expect(await sec.locator(".depth canvas").count()).toBeGreaterThan(0);
    }
    const sec = page.locator(`section.market[data-market-id="${eur}"]`);

    // a resting bid at a price of its own: a new level in the page's book
    const book = (await api("GET", `/markets/${eur}/orderbook?depth=1`)).body.data;
    const bestBid = BigInt(book.bids[0]?.price ?? parseUnits("1.079", 18));
    // below the book, within the relayer's operator band of the mark
    const low = ((bestBid * 998n) / 1000n / 10n ** 14n) * 10n ** 14n;
    const key = `0x${"5e".repeat(31)}0f` as Hex;
    await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "LIMIT", limitPrice: low.toString(), clientKey: key });
    await expect.poll(() => sec.locator(`.book tr.bid[data-price="${low}"]`).count(), { timeout: 10_000 }).toBe(1);

    // a market order: its fill in the tape, by transaction
    const placed = await marketOrder(`/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "MARKET" });
    const tx = String(placed.transactionHash).toLowerCase();
    await expect.poll(() => sec.locator(`.tape tr[data-tx="${tx}"]`).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await sec.locator(`.tape tr[data-tx="${tx}"] td`).nth(1).textContent()).toBe("LONG");

    mkdirSync("test-results", { recursive: true });
    await page.screenshot({ path: `test-results/streams-page-${s.kind}.png`, fullPage: true });
    expect(pageErrors).toEqual([]);

    // leave the account as found
    await write("DELETE", `/accounts/${accountId}/orders/${key}?marketId=${eur}`);
    await marketOrder(`/accounts/${accountId}/positions/${eur}/close`, { orderType: "MARKET" });
  }, 120_000);
});
