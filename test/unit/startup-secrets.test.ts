/**
 * Every process refuses to start outside the local profile with a missing or default secret (or
 * the relayer with a missing or public key), exits non-zero and names what is wrong in one line.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { DEFAULT_SECRETS } from "../../core/profiles.js";

const root = join(import.meta.dirname, "../..");
const tsx = join(createRequire(import.meta.url).resolve("tsx/package.json"), "../dist/cli.mjs");

const ENTRIES = {
  indexer: "scripts/start-indexer.ts",
  relayer: "services/relayer/main.ts",
  gateway: "services/gateway/main.ts",
  keeper: "services/keeper/main.ts",
  streams: "services/streams/main.ts",
} as const;

/** What each process must be given outside local (its own token, the tokens it checks, ...). */
const NEEDS = {
  indexer: ["JWT_SECRET", "INTEGRATION_TOKEN", "KEEPER_TOKEN"],
  relayer: ["GATEWAY_TOKEN", "INTEGRATION_TOKEN", "KEEPER_TOKEN", "REGISTRATION_TOKEN", "ADMIN_TOKEN"],
  gateway: ["GATEWAY_TOKEN", "ADMIN_TOKEN"],
  keeper: ["KEEPER_TOKEN", "GATEWAY_TOKEN"],
  streams: ["JWT_SECRET", "GATEWAY_TOKEN"],
} as const;

function run(entry: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const clean = { ...process.env };
    for (const k of [...Object.keys(DEFAULT_SECRETS), "DATABASE_URL", "PROFILE", "CHAIN_ID", "ACCESS_POLICY"]) delete clean[k];
    for (const k of Object.keys(clean)) if (k.endsWith("_PRIVATE_KEY") || k.endsWith("_TOKEN")) delete clean[k];
    // PORT 1, a bogus database dir and deployment file: if a check ever failed to stop it, it could not serve anyway.
    const child = spawn(process.execPath, [tsx, entry], {
      cwd: root,
      env: { ...clean, PORT: "1", PGLITE_DIR: "/nonexistent/db", DEPLOYMENT_FILE: "/nonexistent/deployment.json", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${entry} did not exit`));
    }, 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

// Each case is a process of its own (~3 s of loading the entry's imports): they run concurrently
// (vitest's maxConcurrency, 5 at once), not one after another.
describe.concurrent.each(Object.entries(ENTRIES))("%s under PROFILE=production", (name, entry) => {
  it("without secrets: exits non-zero naming each missing one", async () => {
    const { code, stderr } = await run(entry, { PROFILE: "production" });
    expect(code).not.toBe(0);
    expect(stderr).toContain("refusing to start with PROFILE=production");
    for (const secretName of NEEDS[name as keyof typeof ENTRIES]) expect(stderr).toContain(`${secretName} is not set`);
    expect(stderr).not.toMatch(/\n\s+at /); // one line, no stack trace
  });

  it("with the local default secrets: refuses them", async () => {
    const { code, stderr } = await run(entry, { PROFILE: "production", ...DEFAULT_SECRETS });
    expect(code).not.toBe(0);
    expect(stderr).toContain(`${NEEDS[name as keyof typeof ENTRIES][0]} is the local default`);
  });
});

const secrets = Object.fromEntries(Object.keys(DEFAULT_SECRETS).map((k) => [k, `${k.toLowerCase()}-0123456789abcdef`]));

it.concurrent("the indexer under PROFILE=production needs the sign-in domains and URI origins", async () => {
  const { code, stderr } = await run(ENTRIES.indexer, { PROFILE: "production", ...secrets });
  expect(code).not.toBe(0);
  expect(stderr).toContain("SIWE_DOMAINS and SIWE_URI_ORIGINS must be set");
});

describe.concurrent("the relayer's key off the local profile or chain", () => {
  it("is required under PROFILE=production", async () => {
    const { code, stderr } = await run(ENTRIES.relayer, { PROFILE: "production", ...secrets });
    expect(code).not.toBe(0);
    expect(stderr).toContain("RELAYER_PRIVATE_KEY is required");
  });

  it("may not come from the public test mnemonic, even under PROFILE=local on another chain", async () => {
    const { code, stderr } = await run(ENTRIES.relayer, {
      PROFILE: "local", CHAIN_ID: "11155111", RELAYER_PRIVATE_KEY: devAccount(KEY_INDEX.relayer).privateKey,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain("RELAYER_PRIVATE_KEY is derived from the public test mnemonic");
  });
});
