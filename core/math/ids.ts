/** Identifiers derived the same way as the indexer and the gateway. */
import { encodeAbiParameters, keccak256, type Hex } from "viem";

/** position_id = keccak256(abi.encode(uint256 accountId, bytes32 marketId)). */
export const positionIdOf = (accountId: bigint, marketId: Hex): Hex =>
  keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "bytes32" }], [accountId, marketId]));
