// The one pseudo-random generator of the core, shared with kardinal_env/core/shuffle.py (documented
// there): SplitMix64, Lemire's bounded integers on the low 32 bits with rejection, Fisher-Yates from
// the end. Both engines draw from it (Kardinal's playouts and search, Kardinal & König's shuffles,
// deals and searches).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace common {

struct ShuffleRng {
    uint64_t state;
    explicit ShuffleRng(uint64_t seed = 0) : state(seed) {}
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t n) {
        uint64_t m = uint64_t(uint32_t(next())) * n;
        uint32_t low = uint32_t(m);
        if (low < n) {
            uint32_t t = uint32_t(-n) % n;
            while (low < t) {
                m = uint64_t(uint32_t(next())) * n;
                low = uint32_t(m);
            }
        }
        return uint32_t(m >> 32);
    }
    // The top k bits of one draw (1 <= k <= 64): ShuffleRng.getrandbits.
    uint64_t getrandbits(int k) { return next() >> (64 - k); }
    // An index drawn in proportion to non-negative integer weights (total 1..2**32-1): r = below(total),
    // the first i whose running total exceeds r (ShuffleRng.weighted).
    template <class W>
    int weighted(const W &weights) {
        uint64_t total = 0;
        for (auto w : weights) total += uint64_t(w);
        uint64_t r = below(uint32_t(total));
        int i = 0;
        for (auto w : weights) {
            if (r < uint64_t(w)) return i;
            r -= uint64_t(w);
            ++i;
        }
        return i - 1;  // unreachable for a total in range
    }
    template <class T>
    void shuffle(std::vector<T> &items) {
        for (size_t i = items.size(); i-- > 1;) {
            size_t j = below(uint32_t(i + 1));
            std::swap(items[i], items[j]);
        }
    }
};

// 64-bit FNV-1a (string seeds; kardinal_env.core.shuffle.fnv1a64).
inline uint64_t fnv1a64(const std::string &text) {
    uint64_t h = 0xCBF29CE484222325ULL;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ULL;
    return h;
}

}  // namespace common
