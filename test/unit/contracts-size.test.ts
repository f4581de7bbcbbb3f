import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXPORTED } from "../../scripts/build-contracts.js";
import { compiledContracts } from "./compiled-contracts.js";

/** EIP-170: the largest runtime code a contract may deploy (no anvil code-size override). */
const EIP170_BYTES = 24_576;
/**
 * Room to grow: every contract keeps at least 1 KB below EIP-170 (2 KB from issue 10 until issue
 * 26's operator policy, order bond and stale-index funding took Market to 23,404 bytes; Market v2
 * rewrites the order book and restores 2 KB).
 */
const HEADROOM_BYTES = 1_024;
/**
 * A market is the Market implementation's code with its args after it, at MarketArgs.OFFSET (its
 * code ends at EIP-170's limit): the implementation's own limit is that offset.
 */
const MARKET_ARGS = readFileSync(new URL("../../contracts/src/libraries/MarketArgs.sol", import.meta.url), "utf8");
const constantOf = (name: string) => Number(new RegExp(`uint256 internal constant ${name} = ([\\d_]+);`).exec(MARKET_ARGS)![1]!.replaceAll("_", ""));
const MARKET_LIMIT_BYTES = constantOf("OFFSET");
/** The number of a market's args (MarketArgs.COUNT words of 32 bytes, from OFFSET to EIP-170's end). */
const MARKET_ARG_WORDS = constantOf("COUNT");

describe("contract sizes", () => {
  it("every contract's deployed bytecode keeps 1 KB of headroom below EIP-170 (Market: below its args' offset)", { timeout: 300_000 }, async () => {
    const contracts = await compiledContracts();
    const sizes = Object.fromEntries(
      Object.entries(contracts)
        .filter(([, c]) => c.deployedSize > 0) // interfaces and abstract contracts have none
        .map(([name, c]) => [name, c.deployedSize]),
    );
    for (const name of EXPORTED) expect(sizes[name], `${name} compiled`).toBeGreaterThan(0);
    const limitOf = (name: string) => (name === "Market" ? MARKET_LIMIT_BYTES : EIP170_BYTES) - HEADROOM_BYTES;
    const over = Object.entries(sizes).filter(([name, size]) => size > limitOf(name));
    expect(MARKET_LIMIT_BYTES).toBe(EIP170_BYTES - MARKET_ARG_WORDS * 32);
    expect(over, `over their limit less ${HEADROOM_BYTES} bytes: ${JSON.stringify(over)}`).toEqual([]);
  });
});
