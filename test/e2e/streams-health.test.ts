/**
 * Issue 27 item 8: the stream service's /health reflects its write-events feed (the relayer's
 * `GET /internal/transactions/stream`, which feeds the transactions channel): a stream service
 * whose relayer does not answer is `degraded`, the stack's own (relayer up) is `ok`. Its refusal
 * to start under PROFILE=production without JWT_SECRET is in test/unit/startup-secrets.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { e2ePort } from "./helpers/ports.js";
import { startStreams, type Extra } from "./helpers/extra-services.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";

type Health = { success: boolean; data: { status: string; services: Record<string, string> } };

describe.each([sharedStack()])("stream service health on $kind", (s: StackInfo) => {
  const extras: Extra[] = [];
  afterAll(async () => {
    await Promise.all(extras.map((e) => e.proc.stop()));
  });

  it("a failing write-events feed makes /health degraded; a working one ok", async () => {
    // nothing listens on this port: the feed can never connect
    const streams = await startStreams(s, { RELAYER_URL: `http://127.0.0.1:${await e2ePort()}` });
    extras.push(streams);
    const res = await fetch(`${streams.url}/health`);
    const body = (await res.json()) as Health;
    expect(body.data.status).toBe("degraded");
    expect(body.data.services.writeEvents).toBe("down");

    // the stack's stream service, on a live relayer: ok once its feed is connected
    let good: Health | undefined;
    for (let i = 0; i < 600; i++) {
      good = (await (await fetch(`${s.streamsUrl}/health`)).json()) as Health;
      if (good.data?.status === "ok") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(good!.data.status).toBe("ok");
    expect(good!.data.services.writeEvents).toBe("up");
  }, 180_000);
});
