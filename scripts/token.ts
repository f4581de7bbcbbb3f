/**
 * A bearer token for a wallet of the local venue (`npm start`), from Sign-In with Ethereum through
 * the TypeScript client (GET /auth/nonce, the EIP-4361 message signed with the wallet's key,
 * POST /auth/login). For curl: TOKEN=$(npm run -s token -- 0).
 *
 *   npm run token -- [wallet index, default 0]
 *
 * Reads .venue/local.json (`npm start` writes it; VENUE_DIR moves it): the integration API's URL and the demo wallets.
 */
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { VenueClient } from "../packages/client/src/index.js";
import { readLocalJson } from "./lib/local-venue.js";

const index = Number(process.argv[2] ?? 0);
let local: ReturnType<typeof readLocalJson>;
try {
  local = readLocalJson();
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
const wallet = local.wallets[index];
if (!Number.isInteger(index) || !wallet) {
  console.error(`usage: npm run token -- <wallet index 0..${local.wallets.length - 1}>`);
  process.exit(1);
}
const venue = new VenueClient({ baseUrl: local.integrationUrl, signer: privateKeyToAccount(wallet.privateKey as Hex) });
console.log((await venue.signIn()).token);
