/** The gateway process refuses to start outside the local profile with default secrets. */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SECRETS } from "../../core/profiles";

const root = join(import.meta.dirname, "../..");
const tsx = join(createRequire(import.meta.url).resolve("tsx/package.json"), "../dist/cli.mjs");

function runGateway(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const clean = { ...process.env };
    for (const k of ["INTERNAL_TOKEN", "ADMIN_TOKEN", "JWT_SECRET", "DATABASE_URL", "PROFILE"]) delete clean[k];
    // PORT 1 and a bogus PGlite dir: if the check ever failed to stop it, it could not serve anyway.
    const child = spawn(process.execPath, [tsx, "services/gateway/main.ts"], {
      cwd: root,
      env: { ...clean, PORT: "1", PGLITE_DIR: "/nonexistent/gateway-db", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the gateway did not exit"));
    }, 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("gateway startup under non-local profiles", () => {
  it("production with the local default secrets exits non-zero with a clear message", async () => {
    const { code, stderr } = await runGateway({ PROFILE: "production", ...DEFAULT_SECRETS });
    expect(code).not.toBe(0);
    expect(stderr).toContain("refusing to start with PROFILE=production");
    expect(stderr).toContain("INTERNAL_TOKEN is the local default");
    expect(stderr).toContain("ADMIN_TOKEN is the local default");
    expect(stderr).toContain("JWT_SECRET is the local default");
    expect(stderr).not.toMatch(/\n\s+at /); // one line, no stack trace
  });

  it("development without secrets refuses too", async () => {
    const { code, stderr } = await runGateway({ PROFILE: "development" });
    expect(code).not.toBe(0);
    expect(stderr).toContain("INTERNAL_TOKEN is not set");
  });
});
