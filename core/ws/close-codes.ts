/**
 * WebSocket close codes the venue sends (RFC 6455 §7.4; 4000–4999 are the application's), one
 * list for the stream service and the gateway's `/v1/ws` (docs/STREAMS.md, the AsyncAPI document).
 */
export const WS_CLOSE = {
  /** Policy violation: a sustained message flood, a send buffer past WS_MAX_BUFFER_BYTES ("slow consumer"), no sign-in on /v1/ws. */
  POLICY: 1008,
  /** A message over the size limit. */
  TOO_BIG: 1009,
  /** The stream service is at the key's connection limit or unavailable: retry later. */
  TRY_AGAIN_LATER: 1013,
  /** The credential ended: the API key was revoked, or the sign-in token expired. */
  UNAUTHENTICATED: 4401,
} as const;
