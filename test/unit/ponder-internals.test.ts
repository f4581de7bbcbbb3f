/**
 * src/ponder/internals.ts, the one door to Ponder's internals: it refuses to run on a Ponder
 * other than the one it (and patches/) was written against, with a message that says what to do.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assertPonderVersion, installedPonderVersion, ponderVersionProblem, SUPPORTED_PONDER_VERSION } from "../../src/ponder/internals.js";

describe("the Ponder door", () => {
  it("finds the installed Ponder, the supported one", () => {
    expect(installedPonderVersion()).toBe(SUPPORTED_PONDER_VERSION);
    expect(() => assertPonderVersion()).not.toThrow();
    expect(ponderVersionProblem(SUPPORTED_PONDER_VERSION)).toBeUndefined();
  });

  it("refuses another version, or none, naming both and the way out", () => {
    for (const other of ["0.16.11", "0.17.5", "1.0.0", undefined]) {
      expect(ponderVersionProblem(other)).toMatch(new RegExp(`Ponder ${other ?? "\\(not installed\\)"} is installed.*written against Ponder ${SUPPORTED_PONDER_VERSION.replace(/\./g, "\\.")}.*npm ci`));
    }
  });

  it("every patch in patches/ is for the supported version, named for patch-package's sequence (the upstream ones say so)", () => {
    const patches = readdirSync(new URL("../../patches/", import.meta.url));
    expect(patches.length).toBeGreaterThan(0);
    for (const p of patches) expect(p).toMatch(new RegExp(`^ponder\\+${SUPPORTED_PONDER_VERSION.replace(/\./g, "\\.")}\\+\\d{3}\\+(upstream-[0-9.]+-pr\\d+-[a-z0-9-]+|venue)\\.patch$`));
  });
});
