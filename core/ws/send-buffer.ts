/**
 * The per-connection send buffer bound of the stream service and the gateway's `/v1/ws`: a
 * client that stops reading is closed, not buffered for without end (issue 27 item 5).
 */
import type { WebSocket } from "ws";
import { WS_CLOSE } from "./close-codes.js";

/** `WS_MAX_BUFFER_BYTES` when unset: 1 MiB per connection. */
export const DEFAULT_WS_MAX_BUFFER_BYTES = 1024 * 1024;

/**
 * Sends `data` unless it would take the socket's send buffer (bytes not yet taken by the kernel)
 * past `maxBytes`: then closes with 1008 "slow consumer" instead (the close frame queued behind
 * what the client has not read; ws destroys the socket if the client never answers it) and
 * returns false. Nothing is sent on a socket that is not open.
 */
export function sendBounded(ws: WebSocket, data: string | Buffer, maxBytes: number, binary = false): boolean {
  if (ws.readyState !== ws.OPEN) return true;
  const size = typeof data === "string" ? Buffer.byteLength(data) : data.length;
  if (ws.bufferedAmount + size > maxBytes) {
    ws.close(WS_CLOSE.POLICY, "slow consumer");
    return false;
  }
  ws.send(data, { binary });
  return true;
}
