/**
 * The writes' state changes as they commit (the request table's trigger NOTIFYs each one, see
 * db/schema.ts), fanned out to the relayer's `GET /internal/transactions/stream` subscribers:
 * the stream service's transactions channel. With Postgres every replica hears every change, so
 * a subscriber needs only one of them.
 */
import type { WriteEvent } from "../../core/write-event.js";

export type { WriteEvent };

export class WriteEvents {
  private readonly subs = new Set<(json: string) => void>();
  /** One NOTIFY payload (already JSON). */
  push(payload: string) {
    for (const s of this.subs) s(payload);
  }
  subscribe(cb: (json: string) => void): () => void {
    this.subs.add(cb);
    return () => this.subs.delete(cb);
  }
  get size() {
    return this.subs.size;
  }
}
