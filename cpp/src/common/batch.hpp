// What the batched games of both engines share (batch.hpp: Kardinal, koenig/batch.hpp: Kardinal &
// König): the terminal rewards of kardinal_env/core/rewards.py and the split of N independent games
// over std::threads.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace batching {

constexpr int REWARD_WIN_LOSS = 0, REWARD_MARGIN = 1;
constexpr double MARGIN_SCALE = 20.0;  // rewards.MARGIN_SCALE

// rewards.terminal_rewards of a finished game of n seats, from its scores and its winners (seats):
// "win_loss" +1 for every winner, -1 for the others; "margin" clip((own - best other) / 20, -1, 1).
template <class Scores, class Winners>
void terminal_rewards(int n, const Scores &scores, const Winners &winners, int scheme, double *out) {
    if (scheme == REWARD_WIN_LOSS) {
        for (int s = 0; s < n; ++s) out[s] = -1.0;
        for (int w : winners) out[w] = 1.0;
        return;
    }
    for (int s = 0; s < n; ++s) {
        int best_other = INT_MIN;
        for (int t = 0; t < n; ++t)
            if (t != s) best_other = std::max(best_other, int(scores(t)));
        double margin = double(int(scores(s)) - best_other) / MARGIN_SCALE;
        out[s] = std::max(-1.0, std::min(1.0, margin));
    }
}

// The buffers both batches hand to NumPy, row i for game i, C order; Obs is the observation's element
// type. allocate() sizes them once; they are never reallocated (the bindings' arrays point into them).
template <class Obs>
struct Buffers {
    std::vector<Obs> observation;        // (N, *obs): the observation of the seat to act
    std::vector<uint8_t> action_mask;    // (N, actions) bools: its legal actions
    std::vector<int64_t> current_player; // (N,)
    std::vector<float> rewards;          // (N, players): every seat's reward from the last step's move
    std::vector<uint8_t> terminated;     // (N,) bools: the game ended in the last step (and the slot began anew)
    std::vector<Obs> final_observation;  // (N, *obs): a game's last position, seen by the seat that ended it
    std::vector<int32_t> final_scores;   // (N, players): its final scores
    std::vector<uint8_t> final_winners;  // (N, players) bools: its winners
    std::vector<int32_t> final_moves;    // (N,): its number of moves
    std::vector<int32_t> final_player;   // (N,): the seat whose move ended it (-1: none yet)

    void allocate(size_t n, size_t players, size_t obs_size, size_t actions) {
        observation.assign(n * obs_size, Obs(0));
        action_mask.assign(n * actions, 0);
        current_player.assign(n, 0);
        rewards.assign(n * players, 0.0f);
        terminated.assign(n, 0);
        final_observation.assign(n * obs_size, Obs(0));
        final_scores.assign(n * players, 0);
        final_winners.assign(n * players, 0);
        final_moves.assign(n, 0);
        final_player.assign(n, -1);
    }
};

// work(begin, end) over contiguous chunks of n games, on min(threads, n) threads (the calling thread
// works the first chunk; threads <= 1: all in the calling thread). A thread that cannot be started
// leaves its chunk to the calling thread; the first exception of any chunk is rethrown once every
// thread has joined.
template <class Work>
void for_chunks(int n, int threads, Work work) {
    const int k = std::max(1, std::min(threads, n));
    if (k == 1) {
        work(0, n);
        return;
    }
    auto begin_of = [&](int t) { return int((long long)n * t / k); };
    std::vector<std::exception_ptr> errors(static_cast<size_t>(k));
    std::vector<std::thread> pool;
    std::vector<int> left;  // chunks no thread could take
    pool.reserve(size_t(k - 1));
    for (int t = 1; t < k; ++t) {
        try {
            pool.emplace_back([&, t] {
                try {
                    work(begin_of(t), begin_of(t + 1));
                } catch (...) {
                    errors[size_t(t)] = std::current_exception();
                }
            });
        } catch (...) {
            left.push_back(t);
        }
    }
    try {
        work(0, begin_of(1));
        for (int t : left) work(begin_of(t), begin_of(t + 1));
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (auto &th : pool) th.join();
    for (auto &e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace batching
