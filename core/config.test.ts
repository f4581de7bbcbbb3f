import { describe, expect, it } from "vitest";
import { chainConfig, devAccount, KEY_INDEX, roleKey } from "./config.js";

describe("local keys", () => {
  it("derives anvil's well-known accounts", () => {
    expect(devAccount(0).address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(devAccount(0).privateKey).toBe("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    expect(devAccount(KEY_INDEX.deployer).address).toBe("0xBcd4042DE499D14e55001CcbB24a551F3b954096");
  });

  it("prefers the env key and rejects a malformed one", () => {
    const k = `0x${"11".repeat(32)}`;
    expect(roleKey("X_KEY", 11, { X_KEY: k })).toBe(k);
    expect(roleKey("X_KEY", 11, {})).toBe(devAccount(11).privateKey);
    expect(() => roleKey("X_KEY", 11, { X_KEY: "0x12" })).toThrow(/X_KEY/);
  });
});

describe("chain config", () => {
  it("has local defaults and validates", () => {
    expect(chainConfig({})).toMatchObject({ RPC_URL: "http://127.0.0.1:8545", CHAIN_ID: 31337, PROFILE: "local" });
    expect(() => chainConfig({ CHAIN_ID: "abc" })).toThrow(/CHAIN_ID/);
  });
});

describe("role keys off the local profile or chain", () => {
  const own = `0x${"11".repeat(32)}`;
  it("are required outside local or off chain 31337", () => {
    expect(() => roleKey("X_KEY", 11, { PROFILE: "production" })).toThrow(/X_KEY is required with PROFILE=production/);
    expect(() => roleKey("X_KEY", 11, { PROFILE: "local", CHAIN_ID: "1" })).toThrow(/X_KEY is required/);
    expect(roleKey("X_KEY", 11, { PROFILE: "production", X_KEY: own })).toBe(own);
  });
  it("refuse keys of the public test mnemonic there (any index up to 99), accept them locally", () => {
    for (const i of [0, 11, 99]) {
      expect(() => roleKey("X_KEY", 11, { PROFILE: "development", X_KEY: devAccount(i).privateKey })).toThrow(/public test mnemonic/);
    }
    expect(roleKey("X_KEY", 11, { X_KEY: devAccount(11).privateKey })).toBe(devAccount(11).privateKey);
  });
});
