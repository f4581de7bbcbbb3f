import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { render } from "../../scripts/build-contracts.js";
import { compiledContracts } from "./compiled-contracts.js";

const abiDir = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "abis");

describe("abis/", () => {
  it("equals what contracts/src compiles to (run `npm run build:contracts` when stale)", { timeout: 300_000 }, async () => {
    const files = render(await compiledContracts());
    const stale = Object.entries(files)
      .filter(([f, text]) => !existsSync(join(abiDir, f)) || readFileSync(join(abiDir, f), "utf8") !== text)
      .map(([f]) => f);
    expect(stale, `stale files in abis/: ${stale.join(", ")}`).toEqual([]);
  });
});
