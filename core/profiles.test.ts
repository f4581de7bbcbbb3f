import { describe, expect, it } from "vitest";
import { assertProfileSecrets, DEFAULT_SECRETS, profileFromEnv, secret, secretProblems } from "./profiles.js";

describe("profiles", () => {
  it("defaults to local, open, with demo features", () => {
    const p = profileFromEnv({});
    expect(p.name).toBe("local");
    expect(p.accessPolicy).toBe("open");
    expect(p.demoWallets && p.priceFeed && p.marketMaker && p.openSql).toBe(true);
    expect(() => assertProfileSecrets(p, {})).not.toThrow();
    expect(secret("ADMIN_TOKEN", {})).toBe(DEFAULT_SECRETS.ADMIN_TOKEN);
  });

  it.each(["development", "production"])("%s is invite-only without demo features", (name) => {
    const p = profileFromEnv({ PROFILE: name });
    expect(p.accessPolicy).toBe("invite-only");
    expect(p.demoWallets || p.priceFeed || p.marketMaker || p.openSql).toBe(false);
    expect(p.gatewayBaseUrl.startsWith("https://")).toBe(true);
  });

  it("refuses default, missing or short secrets outside local", () => {
    const p = profileFromEnv({ PROFILE: "production" });
    expect(() => assertProfileSecrets(p, { ...DEFAULT_SECRETS })).toThrow(/GATEWAY_TOKEN is the local default/);
    expect(secretProblems(p, {})).toHaveLength(Object.keys(DEFAULT_SECRETS).length);
    const names = ["GATEWAY_TOKEN", "ADMIN_TOKEN", "JWT_SECRET"] as const;
    expect(secretProblems(p, { GATEWAY_TOKEN: "short", ADMIN_TOKEN: "x".repeat(32), JWT_SECRET: "y".repeat(32) }, names)).toEqual([
      "GATEWAY_TOKEN is shorter than 16 characters",
    ]);
    expect(() =>
      assertProfileSecrets(p, { GATEWAY_TOKEN: "a".repeat(32), ADMIN_TOKEN: "b".repeat(32), JWT_SECRET: "c".repeat(32) }, names),
    ).not.toThrow();
  });

  it("secret() throws outside local instead of falling back to the default", () => {
    expect(() => secret("JWT_SECRET", { PROFILE: "production" })).toThrow(/JWT_SECRET is not set/);
    expect(() => secret("JWT_SECRET", { PROFILE: "production", JWT_SECRET: DEFAULT_SECRETS.JWT_SECRET })).toThrow(/local default/);
    expect(secret("JWT_SECRET", { PROFILE: "production", JWT_SECRET: "j".repeat(32) })).toBe("j".repeat(32));
  });

  it("needs PROFILE set explicitly off the local chain", () => {
    expect(() => profileFromEnv({ CHAIN_ID: "1" })).toThrow(/PROFILE must be set on chain 1/);
    expect(profileFromEnv({ CHAIN_ID: "1", PROFILE: "production" }).name).toBe("production");
    expect(profileFromEnv({ CHAIN_ID: "31337" }).name).toBe("local");
  });

  it("rejects an unknown profile and honours PUBLIC_BASE_URL", () => {
    expect(() => profileFromEnv({ PROFILE: "staging" })).toThrow(/PROFILE must be one of/);
    expect(profileFromEnv({ PUBLIC_BASE_URL: "http://x:1" }).gatewayBaseUrl).toBe("http://x:1");
  });

  it("ACCESS_POLICY overrides the profile's policy for every service, and only with a known value", () => {
    expect(profileFromEnv({ ACCESS_POLICY: "invite-only" }).accessPolicy).toBe("invite-only");
    expect(profileFromEnv({ PROFILE: "production", ACCESS_POLICY: "open" }).accessPolicy).toBe("open");
    expect(() => profileFromEnv({ ACCESS_POLICY: "closed" })).toThrow(/ACCESS_POLICY must be open or invite-only/);
  });
});
