import { describe, expect, it } from "vitest";
import { HeldByUrl, type Copy } from "./held-copies-listener.js";

const copy = (url: string): Copy => ({ gen: 1, key: url, block: 1n, body: Buffer.from(url), head: [], route: "/v1/markets", open: false });

describe("HeldByUrl", () => {
  it("when full, the URL captured longest ago makes room; a URL captured again stays", () => {
    const hot = new HeldByUrl(() => 1, () => false, 3);
    for (const u of ["/a", "/b", "/c"]) hot.keep(u, copy(u));
    hot.keep("/a", copy("/a")); // read again at a new block: captured again
    hot.keep("/d", copy("/d"));
    expect([...hot.byUrl.keys()]).toEqual(["/c", "/a", "/d"]);
    // a client reading many URLs churns its own copies only
    for (let i = 0; i < 100; i++) {
      hot.keep("/a", copy("/a"));
      hot.keep(`/junk${i}`, copy(`/junk${i}`));
    }
    expect(hot.byUrl.has("/a")).toBe(true);
    expect(hot.byUrl.size).toBe(3);
  });
});
