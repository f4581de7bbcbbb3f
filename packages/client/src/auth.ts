/**
 * Sign-in with Ethereum on the integration API: GET /auth/nonce, an EIP-4361 message (viem/siwe),
 * its signature, POST /auth/login → a bearer token. There is no refresh route: with a local
 * account (a private key) the session signs in again before the token expires, by itself; with a
 * wallet (EIP-1193: it asks its user) it emits `sessionExpiring` and the app calls `signIn()`.
 */
import { createSiweMessage } from "viem/siwe";
import type { Address, EIP1193Provider, LocalAccount } from "viem";
import { stringToHex } from "viem";
import { Emitter } from "./emitter.js";
import type { Http } from "./http.js";
import { VenueError } from "./errors.js";

/** A signer: a viem local account (`privateKeyToAccount`) or any EIP-1193 wallet (`window.ethereum`). */
export type Signer = LocalAccount | EIP1193Provider;

import type { SessionToken, SiweNonce } from "./types.js";

export type { SessionToken, SiweNonce };

export type SessionEvents = {
  signedIn: SessionToken;
  /** a wallet's token expires in `secondsLeft`: call `signIn()` again (a local account re-signs by itself) */
  sessionExpiring: { address: string; expiresAt: number; secondsLeft: number };
  /** a local account's re-sign failed (the old token stays until it expires) */
  error: unknown;
};

export type SessionOptions = {
  /** sign in again (or warn) this many seconds before the token expires (default 60) */
  renewBeforeSeconds?: number;
  /** the EIP-4361 statement (optional) */
  statement?: string;
  /** unix seconds now (tests) */
  now?: () => number;
  /** false: no timer; renewal happens lazily before a request (default true) */
  timers?: boolean;
};

export const isLocalAccount = (s: Signer): s is LocalAccount =>
  typeof s === "object" && s !== null && (s as LocalAccount).type === "local" && typeof (s as LocalAccount).signMessage === "function";

export class SiweSession extends Emitter<SessionEvents> {
  token: SessionToken | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: Promise<SessionToken> | undefined;
  private warned: SessionToken | undefined;
  private readonly now: () => number;

  constructor(
    private readonly http: Http,
    readonly signer: Signer,
    private readonly o: SessionOptions = {},
  ) {
    super();
    this.now = o.now ?? (() => Math.floor(Date.now() / 1000));
  }

  get local(): boolean {
    return isLocalAccount(this.signer);
  }

  private async address(): Promise<Address> {
    if (isLocalAccount(this.signer)) return this.signer.address;
    const accounts = (await this.signer.request({ method: "eth_requestAccounts" })) as Address[];
    if (!accounts[0]) throw new VenueError("UNAUTHENTICATED", "the wallet returned no account");
    return accounts[0];
  }

  private async sign(address: Address, message: string): Promise<`0x${string}`> {
    if (isLocalAccount(this.signer)) return this.signer.signMessage({ message });
    return (await this.signer.request({ method: "personal_sign", params: [stringToHex(message), address] })) as `0x${string}`;
  }

  /** Signs in (a new nonce, message and signature); one at a time. */
  signIn(): Promise<SessionToken> {
    return (this.pending ??= this.doSignIn().finally(() => (this.pending = undefined)));
  }

  private async doSignIn(): Promise<SessionToken> {
    const address = await this.address();
    const { data: n } = await this.http.request<SiweNonce>("GET", "/auth/nonce");
    const base = new URL(this.http.baseUrl);
    const message = createSiweMessage({
      address,
      chainId: n.chainId,
      domain: n.domain ?? base.host,
      nonce: n.nonce,
      uri: n.uri ?? base.origin,
      version: "1",
      ...(this.o.statement ? { statement: this.o.statement } : {}),
    });
    const signature = await this.sign(address, message);
    const { data } = await this.http.request<SessionToken>("POST", "/auth/login", { body: { message, signature } });
    this.token = data;
    this.schedule();
    this.emit("signedIn", data);
    return data;
  }

  private get renewBefore() {
    return this.o.renewBeforeSeconds ?? 60;
  }

  private schedule() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.o.timers === false || !this.token) return;
    const inMs = Math.max(0, (this.token.expiresAt - this.renewBefore - this.now()) * 1000);
    this.timer = setTimeout(() => void this.renewOrWarn(), inMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private async renewOrWarn() {
    const t = this.token;
    if (!t) return;
    if (this.local) {
      await this.signIn().catch((e) => this.emit("error", e));
    } else if (this.warned !== t) {
      this.warned = t; // once per token
      this.emit("sessionExpiring", { address: t.address, expiresAt: t.expiresAt, secondsLeft: Math.max(0, t.expiresAt - this.now()) });
    }
  }

  /** The bearer token for a request: signs in first when there is none, or (local account) when it expires soon. */
  async bearer(): Promise<string> {
    const t = this.token;
    if (!t) return (await this.signIn()).token;
    if (t.expiresAt - this.now() <= this.renewBefore) {
      if (this.local) return (await this.signIn()).token;
      await this.renewOrWarn();
      if (t.expiresAt <= this.now()) throw new VenueError("UNAUTHENTICATED", "the sign-in expired: call signIn() again (the wallet must sign)");
    }
    return t.token;
  }

  /** Forgets the token and stops the timer. */
  signOut() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.token = undefined;
  }
}
