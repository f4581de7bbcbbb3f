/**
 * `ponder.on` for every venue handler: runs the handler, then records the event as the indexed
 * head (table `indexed_head`), so the read API can tell one indexed state from another.
 */
import { ponder, type Context } from "ponder:registry";
import { indexedHead } from "ponder:schema";
import type { Hex } from "viem";

type Args = { event: { block: { number: bigint; hash: Hex }; log: { logIndex: number } }; context: Context };

export const on = ((name: string, handler: (args: Args) => Promise<void>) =>
  ponder.on(name as never, (async (args: Args) => {
    await handler(args);
    const { block, log } = args.event;
    const head = { blockNumber: block.number, blockHash: block.hash, logIndex: log.logIndex };
    await args.context.db.insert(indexedHead).values({ id: 0, ...head }).onConflictDoUpdate(head);
  }) as never)) as typeof ponder.on;
