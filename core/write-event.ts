/**
 * One write's state change as the relayer's request row commits it (the table's trigger NOTIFYs
 * it): published by the relayer (services/relayer/events.ts), followed by the stream service's
 * transactions channel (services/streams/writes-feed.ts).
 */
export type WriteEvent = {
  requestId: string;
  caller: string;
  kind: string;
  status: string;
  transactionHash: string | null;
  blockNumber: string | null;
  httpStatus: number | null;
  code: string | null;
  message: string | null;
  clientKey: string | null;
  parentId: string | null;
  /** Times its receipt left the canonical chain (status REORGED each time, then SENT and mined again). */
  reorgs: number;
  updatedAt: string;
};
