// Information-set MCTS for Kardinal & König (agents/search/ismcts.py's ISMCTSAgent with
// rollout_moves=0, its default) on the core engine. Every random number comes from one ShuffleRng
// seeded with the decision's seed, drawn as the Python search draws it: per simulation, one 64-bit draw
// seeds the world's own ShuffleRng, which deals the other hands and the deck from the seat's knowledge
// (koenig_worlds.hpp, the copy of kardinal_env.koenig.knowledge.deal_hidden) and then gives the world's
// shuffle seed; then below(k) picks the expansion among k untried moves. The floating-point arithmetic
// is the Python search's, so the core chooses the same move from the same seed
// (tests/test_core_koenig.py compares them). The root game holds the true position; each world
// replaces every other hand and the deck with dealt cards, so the search never reads a hidden card.
// With an IsmctsGuide (ISMCTSAgent with rollout="guide", `gismcts:N`) a node searches only the mover's
// `widen` best moves by the heuristic in the world (HeuristicRollouts::ranked), expands the best untried
// one (no draw), and every simulation ends with a heuristic playout to the game's end.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "koenig.hpp"
#include "koenig_rollouts.hpp"
#include "koenig_worlds.hpp"

namespace koenig {

// The guide of a guided search (ISMCTSAgent with rollout="guide"; the Python reference is
// agents.search.heuristic_rollouts.HeuristicGuide): at each node only the mover's `widen` best moves by
// the heuristic in the world are searched, expanded best first (no random draw), and every simulation
// ends with a heuristic playout to the game's end.
struct IsmctsGuide {
    HeuristicWeights weights;
    int replan = 1;
    int widen = 3;
    double margin_weight = 0.0;  // a finished playout's value: (1 - w) win share + w sigmoid(margin / scale)
};

struct IsmctsChild {
    int move, visits;
    double mean;  // mean value of the seat that decides at the root
};

class Ismcts {
  public:
    struct Node {
        int mover;
        int visits = 0;
        std::array<double, MAX_SEATS> totals{};
        std::vector<std::pair<int, int>> children;  // (move, node) in expansion order
        std::vector<std::pair<int, int>> avail;     // (move, times legal when this node was visited)
        explicit Node(int m) : mover(m) {}
        int child(int move) const {
            for (auto [m, i] : children)
                if (m == move) return i;
            return -1;
        }
        void see(int move) {
            for (auto &[m, k] : avail)
                if (m == move) {
                    ++k;
                    return;
                }
            avail.push_back({move, 1});
        }
        int available(int move) const {
            for (auto [m, k] : avail)
                if (m == move) return k;
            return 0;
        }
    };

    // sigmoid((scores[s] - the best other seat's score) / scale): seat s's value of a margin.
    template <class Scores>
    static double margin_value(const Scores &scores, int n, int s, double scale) {
        int best_other = INT32_MIN;
        for (int o = 0; o < n; ++o)
            if (o != s) best_other = std::max(best_other, int(scores[size_t(o)]));
        int margin = int(scores[size_t(s)]) - best_other;
        return 1.0 / (1.0 + std::exp(-double(margin) / scale));
    }

    // Python's ISMCTSAgent.select_move for the seat on turn of `root` (at least two legal moves), from
    // that seat's knowledge (checked against root: DealData::check) and the decision's seed.
    static std::vector<IsmctsChild> search(const Game &root, int simulations, double exploration, double scale,
                                           const DealData &knowledge, uint64_t seed,
                                           const IsmctsGuide *guide = nullptr) {
        int n = root.n, seat = root.current;
        std::vector<Node> nodes;
        nodes.emplace_back(-1);
        std::vector<int> path, untried, moves;
        std::vector<double> probs;
        std::array<double, MAX_SEATS> values{};
        ShuffleRng rng(seed);
        DealtWorld w;
        for (int sim = 0; sim < simulations; ++sim) {
            ShuffleRng world_rng(rng.next());  // SeatKnowledge.deal: ShuffleRng(rng.getrandbits(64))
            WorldDealer::deal(knowledge, world_rng, w);
            check_world(root, seat, w);
            Game world = install_world(root, seat, w, world_rng);
            int node = 0;
            path.clear();
            while (!world.is_over()) {
                if (guide) {
                    HeuristicRollouts::ranked(world, guide->weights, guide->replan, guide->widen, probs, moves);
                } else {
                    MoveSpan ms = world.legal();
                    moves.assign(ms.begin(), ms.end());
                }
                int mover = world.current;
                for (int m : moves) nodes[size_t(node)].see(m);
                untried.clear();
                for (int m : moves)
                    if (nodes[size_t(node)].child(m) < 0) untried.push_back(m);
                if (!untried.empty()) {
                    int m = guide ? untried.front() : untried[rng.below(uint32_t(untried.size()))];
                    nodes.emplace_back(mover);
                    int child = int(nodes.size()) - 1;
                    nodes[size_t(node)].children.push_back({m, child});
                    world.apply(m);
                    path.push_back(child);
                    break;
                }
                double best_value = -1.0;
                int best = moves[0];
                for (int m : moves) {
                    const Node &ch = nodes[size_t(nodes[size_t(node)].child(m))];
                    double value = ch.totals[mover] / ch.visits +
                                   exploration * std::sqrt(std::log(double(nodes[size_t(node)].available(m))) / ch.visits);
                    if (value > best_value) {
                        best_value = value;
                        best = m;
                    }
                }
                world.apply(best);
                node = nodes[size_t(node)].child(best);
                path.push_back(node);
            }
            if (guide) HeuristicRollouts::play_out(world, guide->weights, guide->replan, probs);
            if (world.is_over()) {
                double share = 1.0 / double(world.winners.size());
                for (int s = 0; s < n; ++s) values[s] = 0.0;
                for (int s : world.winners) values[s] = share;
                if (guide && guide->margin_weight > 0) {
                    double mw = guide->margin_weight;
                    for (int s = 0; s < n; ++s)
                        values[s] = (1.0 - mw) * values[s] + mw * margin_value(world.scores, n, s, scale);
                }
            } else {
                std::vector<int> proj = world.projected_scores();
                for (int s = 0; s < n; ++s) values[s] = margin_value(proj, n, s, scale);
            }
            nodes[0].visits += 1;
            for (int i : path) {
                Node &nd = nodes[size_t(i)];
                nd.visits += 1;
                for (int s = 0; s < n; ++s) nd.totals[s] += values[s];
            }
        }
        std::vector<IsmctsChild> out;
        for (auto [m, i] : nodes[0].children) {
            const Node &ch = nodes[size_t(i)];
            out.push_back({m, ch.visits, ch.totals[seat] / std::max(1, ch.visits)});
        }
        return out;
    }
};

}  // namespace koenig
