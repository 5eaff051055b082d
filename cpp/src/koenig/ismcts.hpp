// Information-set MCTS for Kardinal & König (agents/search/ismcts.py's ISMCTSAgent with
// rollout_moves=0, its default) on the core engine. Every random number comes from one ShuffleRng
// seeded with the decision's seed, drawn as the Python search draws it: per simulation, one 64-bit draw
// seeds the world's own ShuffleRng, which deals the other hands and the deck from the seat's knowledge
// (koenig/worlds.hpp, the copy of kardinal_env.koenig.knowledge.deal_hidden) and then gives the world's
// shuffle seed; then below(k) picks the expansion among k untried moves. The floating-point arithmetic
// is the Python search's, so the core chooses the same move from the same seed
// (tests/test_core_koenig.py compares them). The root game holds the true position; each world
// replaces every other hand and the deck with dealt cards, so the search never reads a hidden card.
// With an IsmctsGuide (ISMCTSAgent with rollout="guide", `gismcts:N`) a node searches only the mover's
// `widen` best moves by the heuristic in the world (HeuristicRollouts::ranked), expands the best untried
// one (no draw), and every simulation ends with a heuristic playout to the game's end. With a paired guide
// (`pismcts:N`) the root is searched in rounds of one world in which every root child is played
// (search_paired); the Python agent applies the paired test to the rounds' values.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "koenig/engine.hpp"
#include "koenig/rollouts.hpp"
#include "koenig/worlds.hpp"

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
    bool paired = false;         // the paired root (Ismcts::search_paired)
    int batch = 0;               // paired: rounds between paired tests (0: no test during the search)
    double z = 2.5, t_continue = 0.5, win_bonus = 10.0;  // paired: the test (agents.search.common)
    int widen_visits = 0;        // > 0: a node offers its 1 + visits / widen_visits best (at most widen)
};

struct IsmctsChild {
    int move, visits;
    double mean;                 // mean value of the seat that decides at the root
    std::vector<double> shares;  // paired root only: the seat's win share in each round's world
    std::vector<int> margins;    // paired root only: the seat's final score margin in each round's world
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

    // scores[s] less the best other seat's score (of n seats).
    template <class Scores>
    static int score_margin(const Scores &scores, int n, int s) {
        int best_other = INT32_MIN;
        for (int o = 0; o < n; ++o)
            if (o != s) best_other = std::max(best_other, int(scores[size_t(o)]));
        return int(scores[size_t(s)]) - best_other;
    }

    // sigmoid(score_margin / scale): seat s's value of a margin.
    template <class Scores>
    static double margin_value(const Scores &scores, int n, int s, double scale) {
        return 1.0 / (1.0 + std::exp(-double(score_margin(scores, n, s)) / scale));
    }

    // Python's ISMCTSAgent.root_statistics for the seat on turn of `root` (at least two legal moves), from
    // that seat's knowledge (checked against root: DealData::check) and the decision's seed. With a paired
    // guide (IsmctsGuide::paired) the root's children (root_moves) are searched in rounds of one world each
    // (search_paired).
    static std::vector<IsmctsChild> search(const Game &root, int simulations, double exploration, double scale,
                                           const DealData &knowledge, uint64_t seed,
                                           const IsmctsGuide *guide = nullptr,
                                           const std::vector<int> &root_moves = {}) {
        Ismcts s(root, exploration, scale, seed, guide);
        if (guide && guide->paired) return s.search_paired(knowledge, simulations, root_moves);
        DealtWorld w;
        for (int sim = 0; sim < simulations; ++sim) {
            Game world = s.deal(knowledge, w);
            s.path.clear();
            s.simulate(world, 0);
        }
        return s.root_children();
    }

  private:
    const Game &root;
    int n, seat;
    double exploration, scale;
    const IsmctsGuide *guide;
    ShuffleRng rng;
    std::vector<Node> nodes;
    std::vector<int> path, untried, moves;
    std::vector<double> probs;
    std::array<double, MAX_SEATS> values{};

    Ismcts(const Game &r, double c, double sc, uint64_t seed, const IsmctsGuide *g)
        : root(r), n(r.n), seat(r.current), exploration(c), scale(sc), guide(g), rng(seed) {
        nodes.emplace_back(-1);
    }

    // A world dealt from the seat's knowledge: one 64-bit draw seeds its own generator
    // (SeatKnowledge.deal: ShuffleRng(rng.getrandbits(64))), which deals the hidden cards and gives the
    // world's shuffle seed.
    Game deal(const DealData &knowledge, DealtWorld &w) {
        ShuffleRng world_rng(rng.next());
        WorldDealer::deal(knowledge, world_rng, w);
        check_world(root, seat, w);
        return install_world(root, seat, w, world_rng);
    }

    // The moves a node offers in `world`: the guide's widen best, or every legal move.
    void offered(Game &world) {
        if (guide) {
            HeuristicRollouts::ranked(world, guide->weights, guide->replan, guide->widen, probs, moves);
        } else {
            MoveSpan ms = world.legal();
            moves.assign(ms.begin(), ms.end());
        }
    }

    // One simulation from `node` in `world` (path: the nodes below the root walked so far): selection by
    // UCB1 with availability counts, expansion of one untried move, the playout, the values, the backup.
    void simulate(Game &world, int node) {
        while (!world.is_over()) {
            offered(world);
            if (guide && guide->widen_visits > 0)  // progressive widening: one more move every widen_visits visits
                moves.resize(std::min(moves.size(), size_t(1 + nodes[size_t(node)].visits / guide->widen_visits)));
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

    std::vector<IsmctsChild> root_children() const {
        std::vector<IsmctsChild> out;
        for (auto [m, i] : nodes[0].children) {
            const Node &ch = nodes[size_t(i)];
            out.push_back({m, ch.visits, ch.totals[seat] / std::max(1, ch.visits), {}, {}});
        }
        return out;
    }

    // The paired root (Python: ISMCTSAgent with paired=True): the root's children are root_moves (the
    // Python agent's: the heuristic's own move first), or when none are given the guide's widen best moves
    // in the first world (the seat's own ranking: the same in every world), and each round
    // deals one world and plays the first child and every alternative still in play in it, one simulation
    // each below that child; rounds go on while the simulations fit. With guide->batch, the paired test
    // after every batch rounds (paired_test) ends the search or drops the alternatives no longer
    // promising. A child's shares / margins are the seat's final win share and score margin (its score
    // less the best other seat's) of its simulation in each round it played.
    std::vector<IsmctsChild> search_paired(const DealData &knowledge, int simulations,
                                           const std::vector<int> &root_moves) {
        DealtWorld w;
        Game world = deal(knowledge, w);
        if (root_moves.empty()) offered(world);
        std::vector<int> first_moves = root_moves.empty() ? moves : root_moves;
        for (int m : first_moves) {
            nodes.emplace_back(seat);
            nodes[0].children.push_back({m, int(nodes.size()) - 1});
        }
        std::vector<IsmctsChild> out = root_children();
        std::vector<size_t> alive, in_play;
        for (size_t k = 1; k < first_moves.size(); ++k) alive.push_back(k);
        int used = 0, rounds = 0;
        while (true) {
            if (rounds) world = deal(knowledge, w);
            in_play.assign(1, 0);
            in_play.insert(in_play.end(), alive.begin(), alive.end());
            for (size_t k : in_play) {
                Game g = world;
                int child = nodes[0].children[k].second;
                g.apply(first_moves[k]);
                path.assign(1, child);
                simulate(g, child);
                bool won = std::find(g.winners.begin(), g.winners.end(), seat) != g.winners.end();
                out[k].shares.push_back(won ? 1.0 / double(g.winners.size()) : 0.0);
                out[k].margins.push_back(score_margin(g.scores, n, seat));
            }
            used += int(in_play.size());
            rounds += 1;
            if (guide->batch > 0 && rounds % guide->batch == 0 && !alive.empty()) {
                if (!paired_test(out, alive)) break;
            }
            if (used + 1 + int(alive.size()) > simulations) break;
        }
        std::vector<IsmctsChild> stats = root_children();
        for (size_t k = 0; k < out.size(); ++k) {
            out[k].visits = stats[k].visits;
            out[k].mean = stats[k].mean;
        }
        return out;
    }

    // agents.search.common.paired_statistics / significant_move on the first child and the alternatives
    // `alive` (the same arithmetic, summed left to right): false when an alternative passes the test (the
    // search ends); else `alive` keeps those whose mean paired difference is above t_continue standard
    // errors, and true when any is left.
    bool paired_test(const std::vector<IsmctsChild> &out, std::vector<size_t> &alive) const {
        const IsmctsChild &base = out[0];
        size_t r = base.margins.size();
        std::vector<double> diff(r);
        std::vector<size_t> keep;
        double best_low = 0.0;
        bool changed = false;
        for (size_t k : alive) {
            for (size_t i = 0; i < r; ++i)
                diff[i] = (double(out[k].margins[i]) + guide->win_bonus * out[k].shares[i]) -
                          (double(base.margins[i]) + guide->win_bonus * base.shares[i]);
            double total = 0.0;
            for (double d : diff) total += d;
            double mean = total / double(r);
            double se = HUGE_VAL;
            if (r > 1) {
                double squares = 0.0;
                for (double d : diff) squares += (d - mean) * (d - mean);
                se = std::sqrt(squares / double(r - 1) / double(r));
            }
            double low = mean - guide->z * se;
            if (low > best_low) {
                best_low = low;
                changed = true;
            }
            if (mean > guide->t_continue * se) keep.push_back(k);
        }
        if (changed) return false;
        alive = keep;
        return !alive.empty();
    }
};

}  // namespace koenig
