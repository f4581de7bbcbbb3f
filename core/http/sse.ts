/**
 * The `data:` payloads of a server-sent-events body, one call per event (a frame's `data:` lines
 * joined by "\n"), as they arrive. Used by the clients of our own SSE feeds: the indexed-block
 * feed (core/indexer/blocks.ts) and the relayer's write events (services/streams/writes-feed.ts).
 */
export async function readSseData(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      if (data) onData(data);
    }
  }
}
