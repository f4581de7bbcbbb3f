import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDeployment, parseDeployment, serializeDeployment } from "./deployment.js";

const a = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const sample = {
  chainId: 31337,
  deployBlock: 1,
  contracts: { engine: a(1), depositToken: a(2), oracle: a(3), marketFactory: a(4), marketImplementation: a(5), venueLens: a(6), triggerBook: a(11), timelock: a(10) },
  markets: [{ marketId: `0x${"AB".repeat(32)}`, symbol: "EUR/USD", marketAddress: a(7), marketIndex: 1, baseFxToken: a(8), quoteFxToken: a(9) }],
};

describe("deployment file", () => {
  it("parses, checksums addresses and lower-cases ids", () => {
    const d = parseDeployment(sample);
    expect(d.contracts.engine).toBe("0x0000000000000000000000000000000000000001");
    expect(d.markets[0]!.marketId).toBe(`0x${"ab".repeat(32)}`);
    expect(parseDeployment(JSON.parse(serializeDeployment(d)))).toEqual(d);
  });

  it("names the bad field", () => {
    expect(() => parseDeployment({ ...sample, contracts: { ...sample.contracts, engine: "0x12" } })).toThrow(/contracts\.engine/);
    expect(() => parseDeployment({ ...sample, markets: [{ ...sample.markets[0], marketIndex: 0 }] })).toThrow(/markets\.0\.marketIndex/);
  });

  it("loads a file, and says what is wrong when it cannot", () => {
    const dir = mkdtempSync(join(tmpdir(), "dep-"));
    const file = join(dir, "31337.json");
    expect(() => loadDeployment({ file })).toThrow(/not found.*npm run deploy/);
    writeFileSync(file, "{ nope");
    expect(() => loadDeployment({ file })).toThrow(/not valid JSON/);
    writeFileSync(file, JSON.stringify(sample));
    expect(loadDeployment({ file }).chainId).toBe(31337);
    expect(() => loadDeployment({ file, chainId: 1 })).toThrow(/for chain 31337, expected 1/);
  });
});
