/**
 * EIP-712 typed data of the operator approval (IEngine.setOperatorWithSig): domain
 * "VenueEngine" version "1"; OperatorApproval(address owner,address operator,uint64 expiry,
 * uint256 nonce,uint256 deadline). Numbers are decimal strings in JSON (eth_signTypedData_v4).
 */
import type { Address } from "viem";

export const OPERATOR_APPROVAL_TYPES = {
  OperatorApproval: [
    { name: "owner", type: "address" },
    { name: "operator", type: "address" },
    { name: "expiry", type: "uint64" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export function operatorTypedData(p: {
  chainId: number; engine: Address; owner: Address; operator: Address; expiry: bigint; deadline: bigint; nonce: bigint;
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
      nonce: p.nonce.toString(),
      deadline: p.deadline.toString(),
    },
  };
}
