/**
 * The reference page (`/live` on the stream service) in headless Chromium (Debian's `chromium`,
 * driven by playwright-core; .ci/run installs it): it renders every market from the streams, and
 * a limit order and a market order placed through the integration API appear in the page's book
 * and tape; on a stream service of its own, killed and restarted on the same port, the page (its
 * stream client is the TypeScript client's, /live/client.js) shows every book stale, reconnects,
 * resyncs and then holds REST's book at its block, with an order placed while it was down.
 * A screenshot per database kind is saved to test-results/ (gitignored).
 */
import { existsSync, mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { parseUnits, type Hex } from "viem";
import { devAccount } from "../../core/config.js";
import { issueToken } from "../../core/auth/siwe.js";
import { startStreams, type Extra } from "./helpers/extra-services.js";
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
  let extra: Extra | undefined;
  afterAll(async () => {
    if (pageErrors.length) console.log(`[page errors on ${s.kind}]`, pageErrors);
    await browser?.close();
    await extra?.proc.stop();
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

  it("survives a stream-service restart: every book stale while it is down, then resynced and equal to REST at its block", async () => {
    extra = await startStreams(s);
    const port = Number(new URL(extra.url).port);
    const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    p.on("pageerror", (e) => errors.push(String(e)));
    // (Chromium logs each refused WebSocket connection while the service is down: expected)
    p.on("console", (m) => m.type() === "error" && !/WebSocket connection to .* failed/.test(m.text()) && errors.push(m.text()));
    const section = (id: string) => p.locator(`section.market[data-market-id="${id.toLowerCase()}"]`);
    const loaded: string[] = [];
    p.on("response", (r) => r.ok() && loaded.push(new URL(r.url()).pathname));
    await p.goto(`${extra.url}/live`);
    for (const m of s.deployment.markets) {
      await expect.poll(() => section(m.marketId).getAttribute("data-symbol"), { timeout: 10_000 }).toBe(m.symbol);
      await expect.poll(() => section(m.marketId).getAttribute("data-stale"), { timeout: 10_000 }).toBe("false");
    }
    expect(loaded).toContain("/live/client.js"); // the client's bundle

    await extra.proc.stop();
    await expect.poll(() => p.locator("#status").textContent(), { timeout: 10_000 }).toMatch(/^disconnected/);
    for (const m of s.deployment.markets) expect(await section(m.marketId).getAttribute("data-stale"), m.symbol).toBe("true");

    // while the service is down: a resting bid at a price of its own
    const book = (await api("GET", `/markets/${eur}/orderbook?depth=1`)).body.data;
    const bestBid = BigInt(book.bids[0]?.price ?? parseUnits("1.079", 18));
    const low = ((bestBid * 997n) / 1000n / 10n ** 14n) * 10n ** 14n;
    const key = `0x${"5e".repeat(31)}1f` as Hex;
    await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "LIMIT", limitPrice: low.toString(), clientKey: key });
    expect(await section(eur).getAttribute("data-stale")).toBe("true");
    expect(await section(eur).locator(`.book tr.bid[data-price="${low}"]`).count()).toBe(0);

    extra = await startStreams(s, {}, port);
    await expect.poll(() => p.locator("#status").textContent(), { timeout: 60_000 }).toBe("live");
    for (const m of s.deployment.markets) await expect.poll(() => section(m.marketId).getAttribute("data-stale"), { timeout: 20_000 }).toBe("false");
    await expect.poll(() => section(eur).locator(`.book tr.bid[data-price="${low}"]`).count(), { timeout: 10_000 }).toBe(1);

    // every market's rendered book is REST's at the block the page shows (the keeper's maker
    // re-quotes all the time: the page and REST are read until they describe the same block)
    for (const m of s.deployment.markets) {
      const id = m.marketId.toLowerCase();
      let same = false;
      for (let i = 0; i < 40 && !same; i++) {
        // one read of the section (no render between the block and the rows)
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const shown = await section(id).evaluate((el: any) => {
          const rows = (cls: string) => [...el.querySelectorAll(`.book tr.${cls}`)].map((r: any) => [r.getAttribute("data-price"), r.children[1].textContent, r.children[2].textContent]); // eslint-disable-line @typescript-eslint/no-explicit-any
          return { block: Number(el.dataset.bookBlock), asks: rows("ask").reverse(), bids: rows("bid") };
        });
        const res = await fetch(`${s.integrationUrl}/markets/${id}/orderbook?depth=10&minBlock=${shown.block}`);
        if (Number(res.headers.get("x-indexed-block")) !== shown.block) continue;
        const rest = ((await res.json()) as { data: { bids: any[]; asks: any[] } }).data; // eslint-disable-line @typescript-eslint/no-explicit-any
        const rows = (ls: any[]) => ls.map((l) => [l.price, l.quantityFormatted, String(l.orderCount)]); // eslint-disable-line @typescript-eslint/no-explicit-any
        expect({ bids: shown.bids, asks: shown.asks }, `${m.symbol} at block ${shown.block}`).toEqual({ bids: rows(rest.bids), asks: rows(rest.asks) });
        same = true;
      }
      expect(same, `${m.symbol}: the page and REST never described the same block`).toBe(true);
    }
    expect(errors).toEqual([]);
    await p.close();
    await write("DELETE", `/accounts/${accountId}/orders/${key}?marketId=${eur}`);
  }, 180_000);
});
