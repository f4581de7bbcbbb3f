/** The read routes' 404s and `?minBlock=`'s 503, one wording for every server that answers them (Ponder's routes, the read service, the keeper). */
import { ApiError } from "../errors.js";

export const accountNotFound = (accountId: bigint) => new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
export const marketNotFound = (marketId: string) => new ApiError("MARKET_NOT_FOUND", `market ${marketId} does not exist`);
export const blockNotIndexed = (minBlock: bigint, indexed: bigint) => new ApiError("SERVICE_UNAVAILABLE", `block ${minBlock} is not indexed yet (indexed: ${indexed}); retry`);
export const orderNotFound = (accountId: bigint, orderId: string) => new ApiError("ORDER_NOT_FOUND", `account ${accountId} has no order ${orderId}`);
