/**
 * Chain failures → ApiError, at the boundary (viem's getNodeError shape): a revert is decoded
 * against the venue's ABIs and mapped with `contractError()` (core/errors.ts, the only table);
 * node errors about nonces and fees are classified for the relayer.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  RawContractError,
  decodeErrorResult,
  type Abi,
  type Hex,
} from "viem";
import { ApiError, contractError } from "../errors.js";

/** ERC-20 errors of OpenZeppelin v5 that a deposit can hit, in the spec's terms. */
const TOKEN_ERRORS: Record<string, ApiError["code"]> = {
  ERC20InsufficientBalance: "INSUFFICIENT_BALANCE",
  ERC20InsufficientAllowance: "INSUFFICIENT_ALLOWANCE",
};

export type DecodedRevert = { errorName: string; args: readonly unknown[] };

/** Revert data inside any viem error (eth_call, estimateGas, simulate), or undefined. */
export function revertData(err: unknown): Hex | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const raw = err.walk((e) => e instanceof RawContractError) as RawContractError | null;
  if (raw?.data && typeof raw.data === "string") return raw.data;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (reverted?.raw) return reverted.raw;
  // Some nodes put the data on the RPC error's `data`.
  let data: Hex | undefined;
  err.walk((e) => {
    const d = (e as { data?: unknown }).data;
    if (typeof d === "string" && d.startsWith("0x") && d.length >= 10) data = d as Hex;
    else if (d && typeof d === "object" && typeof (d as { data?: unknown }).data === "string") data = (d as { data: Hex }).data;
    return false;
  });
  return data;
}

/** The custom error of a revert, decoded with `abi`, or null (no data, unknown selector). */
export function decodeRevert(err: unknown, abi: Abi): DecodedRevert | null {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (reverted?.data?.errorName && reverted.data.errorName !== "Error" && reverted.data.errorName !== "Panic")
      return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
  }
  const data = revertData(err);
  if (!data || data === "0x") return null;
  try {
    const r = decodeErrorResult({ abi, data });
    return { errorName: r.errorName, args: (r.args ?? []) as readonly unknown[] };
  } catch {
    return null;
  }
}

/** A revert as the spec's ApiError; TRANSACTION_REVERTED when it is not one of ours. */
export function revertToApiError(err: unknown, abi: Abi): ApiError | null {
  const decoded = decodeRevert(err, abi);
  if (decoded) {
    const tokenCode = TOKEN_ERRORS[decoded.errorName];
    if (tokenCode) return new ApiError(tokenCode, `${decoded.errorName}(${decoded.args.map(String).join(", ")})`);
    return contractError(decoded.errorName, decoded.args);
  }
  if (isExecutionRevert(err)) {
    const reason = err instanceof BaseError ? err.shortMessage : String(err);
    return new ApiError("TRANSACTION_REVERTED", reason);
  }
  return null;
}

function isExecutionRevert(err: unknown): boolean {
  const msg = err instanceof Error ? err.message.toLowerCase() : String(err).toLowerCase();
  return msg.includes("revert") || msg.includes("execution reverted");
}

/** Node answers to eth_sendRawTransaction, in the relayer's terms. */
export type SendErrorKind =
  | "already_known" // the node has it (same hash): nothing to do
  | "nonce_too_low" // the nonce is used: mined (ours or not) — reconcile by receipts
  | "underpriced" // a replacement needs higher fees
  | "insufficient_funds"
  | "unknown";

export function classifySendError(err: unknown): SendErrorKind {
  const msg = (err instanceof BaseError ? `${err.shortMessage} ${err.details ?? ""} ${err.message}` : String(err)).toLowerCase();
  if (msg.includes("already known") || msg.includes("already imported") || msg.includes("known transaction")) return "already_known";
  if (msg.includes("nonce too low") || msg.includes("nonce has already been used") || msg.includes("oldnonce")) return "nonce_too_low";
  if (msg.includes("underpriced") || msg.includes("fee too low") || msg.includes("max fee per gas less than block base fee"))
    return "underpriced";
  if (msg.includes("insufficient funds")) return "insufficient_funds";
  return "unknown";
}
