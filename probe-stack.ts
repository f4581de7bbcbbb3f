import { startStack } from "./test/e2e/stack.js";
const s = await startStack("postgres", "probe" + Date.now().toString(36).slice(-4));
console.log("UP", JSON.stringify({ logDir: s.info.logDir }));
await new Promise((r) => setTimeout(r, Number(process.env.HOLD_MS ?? 70000)));
await s.stop();
console.log("DOWN");
