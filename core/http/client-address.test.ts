import { describe, expect, it } from "vitest";
import { clientAddress, trustedProxies } from "./client-address.js";

describe("clientAddress", () => {
  const lb = trustedProxies("10.0.0.0/8, 127.0.0.1");

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", lb)).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9", "1.2.3.4", trustedProxies(undefined))).toBe("203.0.113.9");
    expect(clientAddress("127.0.0.1", "1.2.3.4", trustedProxies(""))).toBe("127.0.0.1");
  });

  it("takes the first untrusted hop from the right behind trusted proxies", () => {
    expect(clientAddress("10.1.2.3", "198.51.100.7", lb)).toBe("198.51.100.7");
    // a client-supplied spoof on the left is not believed: the LB appended the real peer
    expect(clientAddress("10.1.2.3", "6.6.6.6, 198.51.100.7, 10.9.9.9", lb)).toBe("198.51.100.7");
    expect(clientAddress("::ffff:127.0.0.1", "198.51.100.7", lb)).toBe("198.51.100.7");
    expect(clientAddress("10.1.2.3", "not-an-ip, 10.2.2.2", lb)).toBe("10.2.2.2");
    expect(clientAddress("10.1.2.3", undefined, lb)).toBe("10.1.2.3");
  });

  it("refuses a malformed TRUSTED_PROXIES entry", () => {
    expect(() => trustedProxies("10.0.0.0/8, lb.internal")).toThrow(/TRUSTED_PROXIES/);
  });
});
