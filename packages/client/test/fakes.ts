/** Test doubles of the network: a scripted fetch and an in-memory WebSocket. */
import type { WebSocketLike } from "../src/streams.js";

export type Call = { method: string; url: string; path: string; headers: Record<string, string>; body: unknown };
type Reply = { status?: number; body?: unknown; headers?: Record<string, string>; text?: string } | Error;

/** A fetch answering from a list of handlers (first whose matcher fits, in order; each used once unless `repeat`). */
export function fakeFetch(routes: Array<{ match: (c: Call) => boolean; reply: Reply | ((c: Call) => Reply); repeat?: boolean }>) {
  const calls: Call[] = [];
  const f = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    const u = new URL(url);
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    const c: Call = { method: init.method ?? "GET", url, path: u.pathname + u.search, headers, body: init.body ? JSON.parse(String(init.body)) : undefined };
    calls.push(c);
    const i = routes.findIndex((r) => r.match(c));
    if (i < 0) throw new Error(`no fake route for ${c.method} ${c.path}`);
    const r = routes[i]!;
    if (!r.repeat) routes.splice(i, 1);
    const rep = typeof r.reply === "function" ? r.reply(c) : r.reply;
    if (rep instanceof Error) throw rep;
    const text = rep.text ?? JSON.stringify(rep.body === undefined ? { success: true, data: {} } : rep.body);
    return new Response(text, { status: rep.status ?? 200, headers: { "content-type": "application/json", ...rep.headers } });
  };
  return { fetch: f as typeof fetch, calls };
}

export const ok = (data: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({ status, body: { success: true, data }, headers });
export const fail = (status: number, code: string, message = code.toLowerCase(), headers: Record<string, string> = {}): Reply => ({ status, body: { success: false, error: { code, message } }, headers });
export const on = (method: string, path: string | RegExp) => (c: Call) => c.method === method && (typeof path === "string" ? c.path.split("?")[0] === path : path.test(c.path));

/** An in-memory socket: the test plays the server (`serverSend`, `sent`, `serverClose`). */
export class FakeSocket implements WebSocketLike {
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    if (this.readyState !== 1) throw new Error("not open");
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000, reason = "") {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  serverOpen() {
    this.readyState = 1;
    this.onopen?.({});
  }
  serverSend(m: unknown) {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
  serverClose(code = 1006, reason = "") {
    this.close(code, reason);
  }
  /** the subscribe requests sent */
  subscribes() {
    return this.sent.filter((m) => m.op === "subscribe");
  }
}

export function socketFactory() {
  const sockets: FakeSocket[] = [];
  return { sockets, factory: (url: string) => {
    const s = new FakeSocket(url);
    sockets.push(s);
    return s;
  } };
}
