import { describe, expect, it } from "vitest";
import { decodeCursor, decodeUintCursor, encodeCursor } from "./cursor.js";

describe("cursor", () => {
  it("round-trips a sort key, opaque and URL-safe", () => {
    const c = encodeCursor("orders", [123n, 45n]);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeUintCursor("orders", c, 2)).toEqual([123n, 45n]);
    expect(decodeCursor("orders", encodeCursor("orders", ["0xab", 7n]), 2)).toEqual(["0xab", "7"]);
  });

  it("refuses another list's cursor, a wrong arity and junk with VALIDATION_ERROR", () => {
    const c = encodeCursor("trades", [1n, 2n]);
    for (const bad of [c, encodeCursor("orders", [1n]), "!!", "", Buffer.from("{}").toString("base64url"), encodeCursor("orders", ["x", "1"])]) {
      expect(() => decodeUintCursor("orders", bad, 2)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
    }
  });
});
