/**
 * The feed through the integration API's `GET /blocks/stream` (any service, either database).
 */
import { rawRequest } from "../http/raw-request.js";
import { readSseData } from "../http/sse.js";
import { feedHub, serialReader, type BlockFeed } from "./feed.js";
import { stateFromJson } from "./indexed-state.js";

/**
 * The header of Ponder's `/blocks/current` and `/blocks/stream` that names a server answering
 * `GET /blocks/current` from a thread that indexing does not block (PGlite: src/api/lib/stateServer.ts).
 */
export const STATE_URL_HEADER = "X-Indexed-State-Url";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const isLoopback = (url: string) => {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
};

/**
 * The feed through the integration API: `GET {url}/blocks/stream` sends the state at once and
 * then on every new indexed block; reconnects after a drop. `revalidate` asks the state server
 * the API advertises (`STATE_URL_HEADER`, used only when both are on this host), else, or when it
 * does not answer 200, `GET {url}/blocks/current` (one state read in Ponder's process).
 */
export function sseBlockFeed(o: { url: string; headers?: Record<string, string>; onError?: (e: unknown) => void }): BlockFeed {
  const h = feedHub();
  const ctrl = new AbortController();
  let closed = false;
  // the advertised state server; one that could not be reached is skipped for a while
  const local = isLoopback(o.url);
  let direct: URL | undefined;
  let unreachable = { url: "", until: 0 };
  const learn = (res: Response) => {
    const u = res.headers.get(STATE_URL_HEADER) ?? undefined;
    if (u === direct?.href) return;
    direct = local && u && isLoopback(u) ? new URL(u) : undefined;
  };
  const run = async () => {
    while (!closed) {
      try {
        const res = await fetch(`${o.url}/blocks/stream`, { headers: { accept: "text/event-stream", ...o.headers }, signal: ctrl.signal });
        if (!res.ok || !res.body) throw new Error(`GET /blocks/stream answered ${res.status}`);
        learn(res);
        h.setLive(true);
        await readSseData(res.body, (data) => h.push(stateFromJson(data)));
      } catch (e) {
        if (closed) return;
        o.onError?.(e);
      }
      h.setLive(false);
      if (!closed) await new Promise((r) => setTimeout(r, 250));
    }
  };
  void run();
  const revalidate = serialReader(async () => {
    const d = direct;
    if (d && !(unreachable.url === d.href && Date.now() < unreachable.until)) {
      try {
        // node:http, kept alive: cheaper than fetch, on the path of every no-cache read
        const res = await rawRequest(d, "GET", {}, undefined, 1_000);
        // not 200: no state there yet, or a revert not read yet; Ponder's route answers
        if (res.status === 200) return stateFromJson(res.text);
      } catch (e) {
        unreachable = { url: d.href, until: Date.now() + 5_000 };
        o.onError?.(e);
      }
    }
    const res = await fetch(`${o.url}/blocks/current`, { headers: o.headers });
    if (!res.ok) throw new Error(`GET /blocks/current answered ${res.status}`);
    learn(res);
    return stateFromJson(await res.text());
  }, h.push);
  return {
    current: h.current,
    subscribe: h.subscribe,
    ready: h.ready,
    live: h.live,
    revalidate,
    async close() {
      closed = true;
      ctrl.abort();
    },
  };
}

