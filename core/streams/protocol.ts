/**
 * The streams' wire protocol, as the stream service accepts it and its AsyncAPI document
 * (core/streams/asyncapi.ts) describes it: the channels and a subscribe request per channel
 * (camelCase; snake_case input is converted before).
 */
import { z } from "zod";
import { CANDLE_RESOLUTION_NAMES } from "../candles.js";

const hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex id").transform((s) => s.toLowerCase());
export const MAX_DEPTH = 100;

/** A subscribe request, per channel (camelCase; snake_case input is converted before). */
export const SubscribeRequest = z.discriminatedUnion("channel", [
  z.strictObject({ op: z.literal("subscribe"), channel: z.literal("orderbook"), marketId: hex32, depth: z.number().int().min(1).max(MAX_DEPTH).default(10), id: z.string().max(64).optional(), resume: z.object({ epoch: z.string(), seq: z.number().int().nonnegative() }).optional() }),
  z.strictObject({ op: z.literal("subscribe"), channel: z.literal("trades"), marketId: hex32, id: z.string().max(64).optional(), resume: z.object({ epoch: z.string(), seq: z.number().int().nonnegative() }).optional() }),
  z.strictObject({ op: z.literal("subscribe"), channel: z.literal("market"), marketId: hex32, id: z.string().max(64).optional(), resume: z.object({ epoch: z.string(), seq: z.number().int().nonnegative() }).optional() }),
  z.strictObject({ op: z.literal("subscribe"), channel: z.literal("candles"), marketId: hex32, resolution: z.enum(CANDLE_RESOLUTION_NAMES as [string, ...string[]]), id: z.string().max(64).optional(), resume: z.object({ epoch: z.string(), seq: z.number().int().nonnegative() }).optional() }),
  z.strictObject({ op: z.literal("subscribe"), channel: z.literal("transactions"), id: z.string().max(64).optional(), resume: z.object({ epoch: z.string(), seq: z.number().int().nonnegative() }).optional() }),
  z.strictObject({ op: z.literal("subscribe"), channel: z.literal("account"), accountId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER), id: z.string().max(64).optional(), resume: z.object({ epoch: z.string(), seq: z.number().int().nonnegative() }).optional() }),
]);
export type SubscribeRequest = z.infer<typeof SubscribeRequest>;
export type ChannelName = SubscribeRequest["channel"];
export const CHANNELS: ChannelName[] = ["orderbook", "trades", "market", "candles", "account", "transactions"];
