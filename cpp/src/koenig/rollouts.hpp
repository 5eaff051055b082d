// Heuristic playouts for Kardinal & König: the root candidates of a search valued by playing each
// determinized world to its end with the `heuristic` agent in every seat (koenig/heuristic.hpp). The
// Python reference is agents/search/heuristic_rollouts.py; tests/test_core_koenig_rollouts.py compares
// the two world for world.
//
// Every random number comes from one ShuffleRng seeded with the decision's seed: per world, one 64-bit
// draw seeds the world's own ShuffleRng, which deals the other hands and the deck from the seat's
// knowledge (koenig/worlds.hpp) and then gives the world's shuffle seed. Every candidate is played in
// every world (common random numbers: the candidates are compared on the same deals). Inside a world a
// playout seat assumes the deck is made of the cards it cannot see (unseen_deck_probs): a model of the
// other seats, worked out in a dealt world; the root never reads a hidden card of the real game. Exact
// ties between a seat's candidates go to the lowest move id.
#pragma once

#include <algorithm>
#include <vector>

#include "koenig/engine.hpp"
#include "koenig/heuristic.hpp"
#include "koenig/worlds.hpp"

namespace koenig {

struct RolloutValue {
    int move;
    std::vector<double> shares;  // per world: the root seat's win share (1/k for each of k winners)
    std::vector<int> margins;    // per world: the root seat's final score less the best other seat's
};

class HeuristicRollouts {
  public:
    // What a playout seat assumes of the deck's next card: the cards it cannot see (every other hand and
    // the deck, by type), normalised (all zero when the deck is empty). The real `heuristic` also takes
    // out the cards known to be in other hands; a playout seat does not track them.
    static void unseen_deck_probs(const Game &g, int seat, std::vector<double> &probs) {
        const int T = g.board->T;
        probs.assign(size_t(T), 0.0);
        if (g.deck.empty()) return;
        double total = 0.0;
        for (int o = 0; o < g.n; ++o)
            if (o != seat)
                for (int t = 0; t < T; ++t) probs[size_t(t)] += g.hands[o][t];
        for (int t : g.deck) probs[size_t(t)] += 1.0;
        for (double p : probs) total += p;
        for (double &p : probs) p /= total;
    }

    // The heuristic's move for the seat on turn of a world (ties: the lowest move id).
    static int playout_move(Game &g, const HeuristicWeights &w, int replan, std::vector<double> &probs) {
        MoveSpan ms = g.legal();
        if (ms.size() == 1) return *ms.begin();
        unseen_deck_probs(g, g.current, probs);
        std::vector<HeuristicCandidate> cands = heuristic_candidates(g, w, replan, probs);
        double top = cands.front().value;
        for (const auto &c : cands) top = std::max(top, c.value);
        int best = -1;
        for (const auto &c : cands)
            if (c.value >= top - 1e-9 && (best < 0 || c.move < best)) best = c.move;
        return best;
    }

    // The seat on turn's `limit` best moves by the heuristic (unseen_deck_probs; a move's value is its
    // best candidate's), best first: repeatedly the lowest move id among those within 1e-9 of the best
    // value left (playout_move's tie rule). One legal move: that move. Python: HeuristicGuide.ranked.
    static void ranked(Game &g, const HeuristicWeights &w, int replan, int limit, std::vector<double> &probs,
                       std::vector<int> &out) {
        out.clear();
        MoveSpan ms = g.legal();
        if (ms.size() == 1) {
            out.push_back(*ms.begin());
            return;
        }
        unseen_deck_probs(g, g.current, probs);
        std::vector<HeuristicCandidate> cands = heuristic_candidates(g, w, replan, probs);
        std::vector<HeuristicCandidate> best;  // one per move, its best value
        for (const auto &c : cands) {
            bool seen = false;
            for (auto &b : best)
                if (b.move == c.move) {
                    b.value = std::max(b.value, c.value);
                    seen = true;
                    break;
                }
            if (!seen) best.push_back(c);
        }
        while (int(out.size()) < limit && !best.empty()) {
            double top = best.front().value;
            for (const auto &b : best) top = std::max(top, b.value);
            size_t pick = 0;
            bool found = false;
            for (size_t i = 0; i < best.size(); ++i)
                if (best[i].value >= top - 1e-9 && (!found || best[i].move < best[pick].move)) {
                    pick = i;
                    found = true;
                }
            out.push_back(best[pick].move);
            best.erase(best.begin() + long(pick));
        }
    }

    // Play `g` to its end with the heuristic in every seat.
    static void play_out(Game &g, const HeuristicWeights &w, int replan, std::vector<double> &probs) {
        while (!g.is_over()) g.apply(playout_move(g, w, replan, probs));
    }

    // `moves` (legal at `root`, the seat on turn's decision) valued over `worlds` worlds dealt from the
    // seat's `knowledge` with ShuffleRng(seed).
    static std::vector<RolloutValue> evaluate(const Game &root, const std::vector<int> &moves, int worlds,
                                              const DealData &knowledge, uint64_t seed, const HeuristicWeights &w,
                                              int replan) {
        int n = root.n, seat = root.current;
        std::vector<RolloutValue> out;
        for (int m : moves) out.push_back({m, {}, {}});
        ShuffleRng rng(seed);
        DealtWorld dealt;
        std::vector<double> probs;
        for (int i = 0; i < worlds; ++i) {
            ShuffleRng world_rng(rng.next());
            WorldDealer::deal(knowledge, world_rng, dealt);
            check_world(root, seat, dealt);
            Game world = install_world(root, seat, dealt, world_rng);
            for (RolloutValue &v : out) {
                Game g = world;
                g.apply(v.move);
                play_out(g, w, replan, probs);
                double share = 0.0;
                for (int s : g.winners)
                    if (s == seat) share = 1.0 / double(g.winners.size());
                int best_other = INT32_MIN;
                for (int o = 0; o < n; ++o)
                    if (o != seat) best_other = std::max(best_other, g.scores[o]);
                v.shares.push_back(share);
                v.margins.push_back(g.scores[seat] - best_other);
            }
        }
        return out;
    }
};

}  // namespace koenig
