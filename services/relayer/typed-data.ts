/**
 * EIP-712 typed data of the operator approval (IEngine.setOperatorWithSig): domain
 * "VenueEngine" version "1"; OperatorApproval(address owner,address operator,uint64 expiry,
 * uint16 maxLeverage,uint16 bandBps,uint16 budgetBps,uint256 nonce,uint256 deadline): the
 * approval carries the policy the owner sets for the operator (core/operator-policy.ts), so the
 * wallet shows it before signing. uint64 and uint256 values are decimal strings in JSON
 * (eth_signTypedData_v4), the policy's uint16 fields JSON integers.
 */
import type { Address } from "viem";
import type { OperatorPolicy } from "../../core/operator-policy.js";

export const OPERATOR_APPROVAL_TYPES = {
  OperatorApproval: [
    { name: "owner", type: "address" },
    { name: "operator", type: "address" },
    { name: "expiry", type: "uint64" },
    { name: "maxLeverage", type: "uint16" },
    { name: "bandBps", type: "uint16" },
    { name: "budgetBps", type: "uint16" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export function operatorTypedData(p: {
  chainId: number; engine: Address; owner: Address; operator: Address; expiry: bigint; deadline: bigint; nonce: bigint;
  policy: OperatorPolicy;
}) {
  return {
    domain: { name: "VenueEngine", version: "1", chainId: p.chainId, verifyingContract: p.engine },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "version", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
      ...OPERATOR_APPROVAL_TYPES,
    },
    primaryType: "OperatorApproval" as const,
    message: {
      owner: p.owner,
      operator: p.operator,
      expiry: p.expiry.toString(),
      maxLeverage: p.policy.maxLeverage,
      bandBps: p.policy.bandBps,
      budgetBps: p.policy.budgetBps,
      nonce: p.nonce.toString(),
      deadline: p.deadline.toString(),
    },
  };
}
