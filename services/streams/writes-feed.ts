/**
 * The relayer's write events (`GET /internal/transactions/stream`, server-sent events: each
 * write's state change as its row commits, see services/relayer/events.ts), for the
 * transactions channel. One connection per stream service, reopened when lost.
 */
import type { WriteEvent } from "../../core/write-event.js";
import { readSseData } from "../../core/http/sse.js";

export type { WriteEvent };

export function openWritesFeed(o: { relayerUrl: string; headers: Record<string, string>; onEvent: (e: WriteEvent) => void; onError?: (e: unknown) => void }) {
  const ctrl = new AbortController();
  let closed = false;
  let live = false;
  const run = async () => {
    while (!closed) {
      try {
        const res = await fetch(`${o.relayerUrl}/internal/transactions/stream`, { headers: { accept: "text/event-stream", ...o.headers }, signal: ctrl.signal });
        if (!res.ok || !res.body) throw new Error(`GET /internal/transactions/stream answered ${res.status}`);
        live = true;
        await readSseData(res.body, (data) => o.onEvent(JSON.parse(data) as WriteEvent));
      } catch (e) {
        if (closed) return;
        o.onError?.(e);
      }
      live = false;
      if (!closed) await new Promise((r) => setTimeout(r, 500));
    }
  };
  void run();
  return {
    live: () => live,
    close() {
      closed = true;
      ctrl.abort();
    },
  };
}
