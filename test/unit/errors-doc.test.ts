/** docs/ERRORS.md is what scripts/errors-doc.ts makes from core/errors.ts (run `npm run docs:errors`). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_MEANINGS } from "../../core/errors.js";
import { ERRORS_DOC, errorsMarkdown } from "../../scripts/errors-doc.js";

describe("docs/ERRORS.md", () => {
  it("is fresh: regenerate with npm run docs:errors", () => {
    expect(readFileSync(ERRORS_DOC, "utf8")).toBe(errorsMarkdown());
  });
  it("lists every code with its status and a meaning", () => {
    const doc = errorsMarkdown();
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      expect(doc).toContain(`| \`${code}\` | ${status} | ${ERROR_MEANINGS[code as keyof typeof ERROR_CODES]} |`);
    }
  });
});
