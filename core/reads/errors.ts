/** The read routes' 404s, one wording for both of their servers (Ponder's routes and the read service's builds). */
import { ApiError } from "../errors.js";

export const accountNotFound = (accountId: bigint) => new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
export const marketNotFound = (marketId: string) => new ApiError("MARKET_NOT_FOUND", `market ${marketId} does not exist`);
