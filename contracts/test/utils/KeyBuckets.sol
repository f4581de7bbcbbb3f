// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// Client keys that share a bucket of an account's key map (MarketBase._keyBucket: the low byte
/// of keccak256(abi.encode(accountId, key))), for tests that make keys spill.
library KeyBuckets {
    function bucketOf(uint256 accountId, bytes32 key) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(accountId, key))) & 0xff;
    }

    /// `n` keys of `accountId` in one bucket: the first keccak256(abi.encode(seed, 0)), the
    /// others the next keccak256(abi.encode(seed, i)) that land in its bucket.
    function sameBucket(uint256 accountId, bytes32 seed, uint256 n) internal pure returns (bytes32[] memory keys) {
        keys = new bytes32[](n);
        keys[0] = keccak256(abi.encode(seed, uint256(0)));
        uint256 bucket = bucketOf(accountId, keys[0]);
        uint256 found = 1;
        for (uint256 i = 1; found < n; ++i) {
            bytes32 k = keccak256(abi.encode(seed, i));
            if (bucketOf(accountId, k) == bucket) keys[found++] = k;
        }
    }
}
