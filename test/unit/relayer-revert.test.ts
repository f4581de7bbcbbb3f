import { describe, expect, it } from "vitest";
import { BaseError, RawContractError, encodeErrorResult, type Abi } from "viem";
import { engineAbi, depositTokenAbi } from "../../abis/index.js";
import { classifySendError, decodeRevert, revertToApiError } from "../../core/chain/revert.js";

const abi = [...engineAbi, ...depositTokenAbi] as unknown as Abi;
const wrap = (data: `0x${string}`) => new BaseError("call failed", { cause: new RawContractError({ data }) });

describe("revert decoding", () => {
  it("maps every venue custom error through core/errors.ts", () => {
    const data = encodeErrorResult({ abi, errorName: "InsufficientMargin", args: [1n, 2n] });
    expect(decodeRevert(wrap(data), abi)).toEqual({ errorName: "InsufficientMargin", args: [1n, 2n] });
    expect(revertToApiError(wrap(data), abi)).toMatchObject({ code: "INSUFFICIENT_MARGIN", status: 422 });
    const lev = encodeErrorResult({ abi, errorName: "ExceedsMaxLeverage", args: [0n, 50n] });
    expect(revertToApiError(wrap(lev), abi)).toMatchObject({ code: "EXCEEDS_MAX_LEVERAGE", status: 400 });
    const op = encodeErrorResult({ abi, errorName: "OperatorNotApproved", args: ["0x0000000000000000000000000000000000000001", "0x0000000000000000000000000000000000000002"] });
    expect(revertToApiError(wrap(op), abi)).toMatchObject({ code: "OPERATOR_NOT_APPROVED", status: 403 });
  });

  it("maps the token's ERC-20 errors to balance and allowance", () => {
    const bal = encodeErrorResult({ abi, errorName: "ERC20InsufficientBalance", args: ["0x0000000000000000000000000000000000000001", 1n, 2n] });
    expect(revertToApiError(wrap(bal), abi)).toMatchObject({ code: "INSUFFICIENT_BALANCE" });
    const alw = encodeErrorResult({ abi, errorName: "ERC20InsufficientAllowance", args: ["0x0000000000000000000000000000000000000001", 1n, 2n] });
    expect(revertToApiError(wrap(alw), abi)).toMatchObject({ code: "INSUFFICIENT_ALLOWANCE" });
  });

  it("unknown selectors and plain failures", () => {
    expect(decodeRevert(wrap("0xdeadbeef"), abi)).toBeNull();
    expect(revertToApiError(new Error("execution reverted"), abi)).toMatchObject({ code: "TRANSACTION_REVERTED" });
    expect(revertToApiError(new Error("socket hang up"), abi)).toBeNull();
  });

  it("classifies node answers to a send", () => {
    expect(classifySendError(new Error("nonce too low"))).toBe("nonce_too_low");
    expect(classifySendError(new Error("already known"))).toBe("already_known");
    expect(classifySendError(new Error("replacement transaction underpriced"))).toBe("underpriced");
    expect(classifySendError(new Error("insufficient funds for gas * price + value"))).toBe("insufficient_funds");
    expect(classifySendError(new Error("boom"))).toBe("unknown");
  });
});
