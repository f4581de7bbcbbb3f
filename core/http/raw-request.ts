/**
 * One HTTP request to an upstream over node:http with a keep-alive agent: cheaper per request
 * than fetch (undici's WHATWG streams), which matters on the proxy's hot path.
 */
import http from "node:http";
import https from "node:https";

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export class UpstreamTimeoutError extends Error {
  override readonly name = "TimeoutError";
}

// An idle kept-alive socket is dropped after 4 s (`timeout` destroys free sockets), before Node
// servers' default 5 s keep-alive timeout closes it from their side: otherwise a write sent on a
// socket the upstream is just closing fails with ECONNRESET, and writes are not retried.
const agentOptions = { keepAlive: true, maxSockets: 512, keepAliveMsecs: 1_000, timeout: 4_000 };
const httpAgent = new http.Agent(agentOptions);
const httpsAgent = new https.Agent(agentOptions);

/**
 * A kept-alive socket may have been closed by the server while idle: the request on it fails
 * with ECONNRESET before the server saw it. Reads are retried once on a fresh socket then.
 */
export async function rawRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<RawReply> {
  try {
    return await once(url, method, headers, body, timeoutMs);
  } catch (err) {
    const e = err as { code?: string; reusedSocket?: boolean };
    if (method === "GET" && e.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE")) {
      return once(url, method, headers, body, timeoutMs);
    }
    throw err;
  }
}

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === "https:" ? https : http;
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const req = mod.request(
      url,
      { method, headers, agent: url.protocol === "https:" ? httpsAgent : httpAgent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new UpstreamTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(Object.assign(err, { reusedSocket: req.reusedSocket }));
    });
    req.end(body);
  });
}
