// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice A three-level 256-ary bitmap over 24-bit ticks: the best (lowest or highest) set
/// tick in three reads, and the next set tick below/above any tick in at most six.
library TickBitmap {
    uint256 internal constant NONE = type(uint256).max;

    struct Bitmap {
        uint256 root;                       // bit r: mid word r is non-empty
        mapping(uint256 => uint256) mid;    // word r, bit m: leaf word (r<<8|m) is non-empty
        mapping(uint256 => uint256) leaf;   // word (tick>>8), bit (tick&255)
    }

    function set(Bitmap storage b, uint256 tick) internal {
        uint256 w = tick >> 8;
        uint256 leafWord = b.leaf[w];
        if (leafWord == 0) {
            uint256 r = tick >> 16;
            uint256 midWord = b.mid[r];
            if (midWord == 0) b.root |= 1 << r;
            b.mid[r] = midWord | (1 << (w & 255));
        }
        b.leaf[w] = leafWord | (1 << (tick & 255));
    }

    function clear(Bitmap storage b, uint256 tick) internal {
        uint256 w = tick >> 8;
        uint256 leafWord = b.leaf[w] & ~(1 << (tick & 255));
        b.leaf[w] = leafWord;
        if (leafWord == 0) {
            uint256 r = tick >> 16;
            uint256 midWord = b.mid[r] & ~(1 << (w & 255));
            b.mid[r] = midWord;
            if (midWord == 0) b.root &= ~(1 << r);
        }
    }

    function highest(Bitmap storage b) internal view returns (uint256) {
        uint256 root = b.root;
        if (root == 0) return NONE;
        uint256 r = msb(root);
        uint256 m = msb(b.mid[r]);
        uint256 w = (r << 8) | m;
        return (w << 8) | msb(b.leaf[w]);
    }

    function lowest(Bitmap storage b) internal view returns (uint256) {
        uint256 root = b.root;
        if (root == 0) return NONE;
        uint256 r = lsb(root);
        uint256 m = lsb(b.mid[r]);
        uint256 w = (r << 8) | m;
        return (w << 8) | lsb(b.leaf[w]);
    }

    /// Highest set tick strictly below `tick`, or NONE.
    function nextBelow(Bitmap storage b, uint256 tick) internal view returns (uint256) {
        uint256 w = tick >> 8;
        uint256 bits = b.leaf[w] & ((1 << (tick & 255)) - 1);
        if (bits != 0) return (w << 8) | msb(bits);
        uint256 r = w >> 8;
        bits = b.mid[r] & ((1 << (w & 255)) - 1);
        if (bits != 0) {
            uint256 w2 = (r << 8) | msb(bits);
            return (w2 << 8) | msb(b.leaf[w2]);
        }
        bits = b.root & ((1 << r) - 1);
        if (bits == 0) return NONE;
        uint256 r2 = msb(bits);
        uint256 w3 = (r2 << 8) | msb(b.mid[r2]);
        return (w3 << 8) | msb(b.leaf[w3]);
    }

    /// Lowest set tick strictly above `tick`, or NONE.
    function nextAbove(Bitmap storage b, uint256 tick) internal view returns (uint256) {
        uint256 w = tick >> 8;
        uint256 bit = tick & 255;
        uint256 bits = bit == 255 ? 0 : b.leaf[w] & ~((1 << (bit + 1)) - 1);
        if (bits != 0) return (w << 8) | lsb(bits);
        uint256 r = w >> 8;
        uint256 mbit = w & 255;
        bits = mbit == 255 ? 0 : b.mid[r] & ~((1 << (mbit + 1)) - 1);
        if (bits != 0) {
            uint256 w2 = (r << 8) | lsb(bits);
            return (w2 << 8) | lsb(b.leaf[w2]);
        }
        bits = r == 255 ? 0 : b.root & ~((1 << (r + 1)) - 1);
        if (bits == 0) return NONE;
        uint256 r2 = lsb(bits);
        uint256 w3 = (r2 << 8) | lsb(b.mid[r2]);
        return (w3 << 8) | lsb(b.leaf[w3]);
    }

    function msb(uint256 x) internal pure returns (uint256 r) {
        if (x >= 1 << 128) { x >>= 128; r += 128; }
        if (x >= 1 << 64) { x >>= 64; r += 64; }
        if (x >= 1 << 32) { x >>= 32; r += 32; }
        if (x >= 1 << 16) { x >>= 16; r += 16; }
        if (x >= 1 << 8) { x >>= 8; r += 8; }
        if (x >= 1 << 4) { x >>= 4; r += 4; }
        if (x >= 1 << 2) { x >>= 2; r += 2; }
        if (x >= 1 << 1) r += 1;
    }

    function lsb(uint256 x) internal pure returns (uint256) {
        return msb(x & (~x + 1));
    }
}
