/**
 * The shared stack is one file's at a time. e2e files run side by side (vitest.config.ts), but
 * the files on the shared stack (test/e2e/helpers/stacks.ts) move its book, its prices, its
 * markets' pauses and its rate-limit counters, as they did when every file ran alone: each holds
 * the stack for its whole run, and a file on a venue of its own runs beside it.
 *
 * The lock is a TCP server in vitest's main process (test/e2e/global-setup.ts): a file connects,
 * is granted the stack when the server writes a byte (first come, first served), and gives it
 * back by closing the connection, so a worker that dies gives it back too.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll } from "vitest";

/** The lock's port in the test workers (they inherit vitest's environment). */
const PORT_ENV = "E2E_STACK_LOCK_PORT";

/** Starts the lock server (global setup); sets E2E_STACK_LOCK_PORT for the workers. */
export async function startStackLock(): Promise<{ close: () => Promise<void> }> {
  const waiting: Socket[] = [];
  let holder: Socket | null = null;
  const grantNext = () => {
    while (!holder && waiting.length) {
      const next = waiting.shift()!;
      if (next.destroyed) continue;
      holder = next;
      next.write("1");
    }
  };
  const server: Server = createServer((socket) => {
    socket.on("error", () => {});
    socket.on("close", () => {
      if (holder === socket) holder = null;
      const i = waiting.indexOf(socket);
      if (i >= 0) waiting.splice(i, 1);
      grantNext();
    });
    waiting.push(socket);
    grantNext();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // port 0: bound at once, no other process can take it between a probe and the bind
    server.listen(0, "127.0.0.1", () => resolve());
  });
  process.env[PORT_ENV] = String((server.address() as { port: number }).port);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of [holder, ...waiting]) s?.destroy();
        server.close(() => resolve());
      }),
  };
}

let held = false;

/**
 * Holds the shared stack from the start of the calling file to its end (file-level hooks;
 * called by `sharedStack()` while the file is collected). Once per file.
 */
export function holdSharedStack() {
  if (held) return;
  held = true;
  let socket: Socket | undefined;
  beforeAll(async () => {
    const port = Number(process.env[PORT_ENV]);
    if (!port) throw new Error(`no ${PORT_ENV}: test/e2e/global-setup.ts did not start the shared stack's lock`);
    socket = await new Promise<Socket>((resolve, reject) => {
      const s = createConnection({ port, host: "127.0.0.1" });
      s.once("error", reject);
      s.once("close", () => reject(new Error("the shared stack's lock closed the connection before granting it")));
      s.once("data", () => {
        s.removeAllListeners("close");
        s.on("error", () => {});
        resolve(s);
      });
    });
  });
  afterAll(() => {
    socket?.destroy();
  });
}
