import { describe, expect, it } from "vitest";
import { readSseData } from "./sse.js";

const bodyOf = (chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
      c.close();
    },
  });

describe("readSseData", () => {
  it("yields each event's data, frames split across chunks, comments and other fields left out", async () => {
    const got: string[] = [];
    await readSseData(bodyOf([": ping\n\nevent: x\nda", "ta: {\"a\":1}\n\ndata: one\ndata: two\n", "\nid: 3\n\n", "data: tail"]), (d) => got.push(d));
    expect(got).toEqual(['{"a":1}', "one\ntwo"]);
  });
});
