import { describe, expect, it } from "vitest";
import { EXPORTED } from "../../scripts/build-contracts.js";
import { compiledContracts } from "./compiled-contracts.js";

/** EIP-170: the largest runtime code a contract may deploy (no anvil code-size override). */
const EIP170_BYTES = 24_576;
/** Room to grow: every contract keeps at least 2 KB below EIP-170 (issue 10). */
const HEADROOM_BYTES = 2_048;

describe("contract sizes", () => {
  it("every contract's deployed bytecode keeps 2 KB of headroom below EIP-170", { timeout: 300_000 }, async () => {
    const contracts = await compiledContracts();
    const sizes = Object.fromEntries(
      Object.entries(contracts)
        .filter(([, c]) => c.deployedSize > 0) // interfaces and abstract contracts have none
        .map(([name, c]) => [name, c.deployedSize]),
    );
    for (const name of EXPORTED) expect(sizes[name], `${name} compiled`).toBeGreaterThan(0);
    const limit = EIP170_BYTES - HEADROOM_BYTES;
    const over = Object.entries(sizes).filter(([, size]) => size > limit);
    expect(over, `over ${limit} bytes: ${JSON.stringify(over)}`).toEqual([]);
  });
});
