// Completes package-lock.json with entries for optional platform packages that a registry
// mirror without them (404) leaves out, so that `npm ci` sees package.json and the lock in sync.
// Idempotent: adds nothing to a complete lock. os/cpu/libc come from the package name.
const fs = require("fs");
const file = process.argv[2];
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const pk = lock.packages;
const OS = ["darwin", "linux", "win32", "freebsd", "openbsd", "android", "openharmony", "sunos", "aix", "netbsd"];
const CPU = { amd64: "x64", x64: "x64", arm64: "arm64", arm: "arm", "arm-eabi": "arm", ia32: "ia32", loong64: "loong64", ppc64: "ppc64", riscv64: "riscv64", s390x: "s390x", arm64ec: "arm64" };
function platform(name) {
  const base = name.split("/").pop();
  const parts = base.split("-");
  const i = parts.findIndex((p) => OS.includes(p) || p === "windows");
  if (i < 0) return null;
  const os = parts[i] === "windows" ? "win32" : parts[i];
  const rest = parts.slice(i + 1);
  let cpu = CPU[rest[0]] ?? (rest[0] === "arm" ? "arm" : undefined);
  const out = { os: [os] };
  if (cpu) out.cpu = [cpu];
  if (rest.includes("musl") || rest.includes("musleabihf")) out.libc = ["musl"];
  else if (os === "linux" && (rest.includes("gnu") || rest.includes("gnueabihf"))) out.libc = ["glibc"];
  return out;
}
let added = [];
for (const [path, entry] of Object.entries(pk)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? path + "/" : ""}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (pk[nested] || pk[hoisted]) continue;
    const p = platform(dep);
    if (!p || !/^\d+\.\d+\.\d+/.test(spec)) { console.error("skip", dep, spec); continue; }
    const where = pk[hoisted] === undefined ? hoisted : nested;
    pk[where] = { version: spec, cpu: p.cpu, dev: entry.dev, optional: true, os: p.os, ...(p.libc ? { libc: p.libc } : {}) };
    if (!pk[where].cpu) delete pk[where].cpu;
    if (!pk[where].dev) delete pk[where].dev;
    added.push(where);
  }
}
const sorted = Object.fromEntries(Object.entries(pk).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log("added", added.length);
