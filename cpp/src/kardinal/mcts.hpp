// Kardinal's mcts:N in C++: the algorithm of agents/search/mcts.py (multi-player UCT, progressive
// widening in the playout policy's order, the reward with its margin weight, the most visited root
// child) with a port of Kardinal's playout policy, agents/baselines/kardinal_greedy.py's Playout
// (the move policy of the playouts and its order(); the weights of kardinal_heuristics.seat_weights).
// Same algorithm and shares, not the same random draws: the search has its own seeded generator.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "kardinal/engine.hpp"

namespace kardinal {

// A uniform double in [0, 1) from 53 random bits.
inline double uniform01(ShuffleRng &rng) { return double(rng.next() >> 11) * (1.0 / 9007199254740992.0); }

inline bool owns_colour(const Rules &r, int seat, int colour) {
    int own[4];
    int k = r.owned_colours(seat, own);
    for (int i = 0; i < k; ++i)
        if (own[i] == colour) return true;
    return false;
}

// kardinal_heuristics.seat_weights: one chip of each colour for seat (index 4: a substitute chip,
// worth the best colour): 0.3 for its own colours, 1 + 1/(n-1) for another seat's, else 1.
inline std::array<double, 5> seat_weights(const Rules &r, int seat) {
    std::array<double, 5> w{};
    for (int c = 0; c < 4; ++c) {
        if (owns_colour(r, seat, c)) {
            w[c] = 0.3;
            continue;
        }
        bool other = false;
        for (int o = 0; o < r.players; ++o)
            if (o != seat && owns_colour(r, o, c)) other = true;
        w[c] = other ? 1.0 + 1.0 / double(r.players - 1) : 1.0;
    }
    w[4] = std::max(std::max(w[0], w[1]), std::max(w[2], w[3]));
    return w;
}

// The value for its builder of the chips a build takes (kardinal_heuristics.chip_values and
// build_value): weights[c] per regular chip of colour c, weights[4] per substitute, 0 when set aside.
inline double chip_value(const BuildGain &g, const std::array<double, 5> &w) {
    if (g.set_aside) return 0.0;
    double v = 0.0;
    for (int c = 0; c < 4; ++c) v += double(g.colours[c]) * w[c];
    return v + double(g.substitutes) * w[4];
}

// kardinal_greedy.Playout with its default shares: builds of highest chip value (a random build
// with probability epsilon), the chip colour of highest weight, the cardinal on the square shared by
// most of the next builder's best builds (probability cardinal_block), one legal move without a draw.
class Playout {
  public:
    double epsilon = 0.2, cardinal_block = 1.0;

    explicit Playout(const Rules &r) {
        for (int s = 0; s < r.players; ++s) weights_[size_t(s)] = seat_weights(r, s);
    }

    const std::array<double, 5> &weights(int seat) const { return weights_[size_t(seat)]; }

    // The policy's move for the current decision of g (not over).
    Move choose(Game &g, ShuffleRng &rng) {
        if (g.phase() == CARDINAL_PHASE) return cardinal(g, rng);
        const std::vector<Move> &moves = g.legal();
        if (moves.size() == 1) return moves[0];
        if (g.phase() == BUILD_PHASE) {
            if (uniform01(rng) >= epsilon) return top_build(g, moves, weights(g.current()), rng);
            return moves[rng.below(uint32_t(moves.size()))];
        }
        const auto &w = weights(g.current());  // chip: the colour of highest weight, the first of equal ones
        Move best = moves[0];
        for (const Move &m : moves)
            if (w[size_t(m.colour)] > w[size_t(best.colour)]) best = m;
        return best;
    }

    // Plays g to its end with the policy.
    void play_out(Game &g, ShuffleRng &rng) {
        while (!g.is_over()) g.apply(choose(g, rng));
    }

    // Playout.order: the legal moves of g's current decision from the most promising to the least,
    // equal ones in their given order (builds by chip value, chips by colour weight, cardinal moves by
    // (best, count) of the next builder's builds they leave, fewest first).
    void order(Game &g, std::vector<Move> &moves) {
        if (moves.size() < 2) return;
        keyed_.clear();
        int kind = moves[0].kind;
        if (kind == BUILD) {
            const auto &w = weights(g.current());
            for (const Move &m : moves) keyed_.push_back({{-chip_value(g.build_chips(m), w), 0.0}, m});
        } else if (kind == CHIP) {
            const auto &w = weights(g.current());
            for (const Move &m : moves) keyed_.push_back({{-w[size_t(m.colour)], 0.0}, m});
        } else {
            g.next_builder(true, builds_);
            values_.clear();
            for (const Move &b : builds_) values_.push_back(g.build_chips(b).chips());
            for (const Move &m : moves) {
                int blocked = m.k1 >= 0 ? m.k1 : g.cardinal_key();
                int best = -1, count = 0;
                for (size_t i = 0; i < builds_.size(); ++i) {
                    if (builds_[i].k1 == blocked || builds_[i].k2 == blocked) continue;
                    if (values_[i] > best) {
                        best = values_[i];
                        count = 1;
                    } else if (values_[i] == best) {
                        ++count;
                    }
                }
                keyed_.push_back({{double(best), double(count)}, m});
            }
        }
        std::stable_sort(keyed_.begin(), keyed_.end(),
                         [](const Keyed &a, const Keyed &b) { return a.first < b.first; });
        for (size_t i = 0; i < moves.size(); ++i) moves[i] = keyed_[i].second;
    }

  private:
    using Keyed = std::pair<std::pair<double, double>, Move>;
    std::array<std::array<double, 5>, 4> weights_{};
    std::vector<Move> builds_;
    std::vector<int> values_;
    std::vector<size_t> top_;
    std::vector<std::pair<int, int>> squares_;  // (square key, best builds on it), first seen first
    std::vector<Keyed> keyed_;

    Move top_build(Game &g, const std::vector<Move> &moves, const std::array<double, 5> &w, ShuffleRng &rng) {
        double best = -1.0;
        top_.clear();
        for (size_t i = 0; i < moves.size(); ++i) {
            double v = chip_value(g.build_chips(moves[i]), w);
            if (v > best) {
                best = v;
                top_.clear();
            }
            if (v == best) top_.push_back(i);
        }
        return moves[top_.size() == 1 ? top_[0] : top_[rng.below(uint32_t(top_.size()))]];
    }

    Move cardinal(Game &g, ShuffleRng &rng) {
        uint32_t count = g.cardinal_choices();
        if (count == 1) return g.cardinal_choice(0);
        if (cardinal_block > 0.0 && uniform01(rng) < cardinal_block) return quick_block(g, count, rng);
        return g.cardinal_choice(rng.below(count));
    }

    void bump(int key) {
        for (auto &sq : squares_)
            if (sq.first == key) {
                ++sq.second;
                return;
            }
        squares_.push_back({key, 1});
    }

    // _quick_block: the square shared by most of the next builder's best builds by raw chip count
    // (cardinal ignored); C- when the cardinal stands there; a random cardinal move when that square
    // is no target or nobody could build.
    Move quick_block(Game &g, uint32_t count, ShuffleRng &rng) {
        g.next_builder(true, builds_);
        if (builds_.empty()) return g.cardinal_choice(rng.below(count));
        values_.clear();
        int best = -1;
        for (const Move &b : builds_) {
            int v = g.build_chips(b).chips();
            values_.push_back(v);
            best = std::max(best, v);
        }
        squares_.clear();
        for (size_t i = 0; i < builds_.size(); ++i)
            if (values_[i] == best) {
                bump(builds_[i].k1);
                if (builds_[i].k2 >= 0) bump(builds_[i].k2);
            }
        int most = 0;
        for (const auto &sq : squares_) most = std::max(most, sq.second);
        top_.clear();
        for (size_t i = 0; i < squares_.size(); ++i)
            if (squares_[i].second == most) top_.push_back(i);
        int target = squares_[top_.size() == 1 ? top_[0] : top_[rng.below(uint32_t(top_.size()))]].first;
        if (target == g.cardinal_key()) return Move{CARDINAL, -1, -1, -1, -1};
        if (g.is_cardinal_target(target)) return Move{CARDINAL, -1, -1, int16_t(target), -1};
        return g.cardinal_choice(rng.below(count));
    }
};

struct MctsOptions {
    long long simulations = 200;
    uint64_t seed = 0;
    double exploration = 0.7;
    bool widen = true;  // false: widen_base=None in Python (plain UCT, no ordering)
    double widen_base = 2.0;
    double margin_weight = 0.25;
};

// agents/search/mcts.py's search, on a flat array of nodes.
class Mcts {
  public:
    Mcts(const Rules &r, const MctsOptions &o) : policy_(r), opt_(o), rng_(o.seed) {}

    // The chosen move for root's current decision (not over).
    Move search(const Game &root) {
        Game start = root;
        const std::vector<Move> &legal = start.legal();
        nodes_.clear();
        if (legal.size() == 1) return legal[0];
        nodes_.reserve(size_t(std::min<long long>(opt_.simulations, 1 << 20)) + 1);
        make_node(start);
        for (long long i = 0; i < opt_.simulations; ++i) simulate(root);
        const Node &r = nodes_[0];
        size_t p = size_t(r.player);
        const Child *best = &r.children[0];
        for (const Child &ch : r.children) {
            const Node &c = nodes_[size_t(ch.node)], &b = nodes_[size_t(best->node)];
            if (c.visits > b.visits ||
                (c.visits == b.visits && c.totals[p] / double(c.visits) > b.totals[p] / double(b.visits)))
                best = &ch;
        }
        return best->move;
    }

    // After search(): the root's expanded children in expansion order, with their visits and the mean
    // reward of the root's deciding seat through them (empty when the root had one legal move).
    struct RootChild {
        Move move;
        long long visits;
        double value;
    };
    std::vector<RootChild> root_children() const {
        std::vector<RootChild> out;
        if (nodes_.empty()) return out;
        const Node &r = nodes_[0];
        size_t p = size_t(r.player);
        for (const Child &ch : r.children) {
            const Node &c = nodes_[size_t(ch.node)];
            out.push_back({ch.move, c.visits, c.visits ? c.totals[p] / double(c.visits) : 0.0});
        }
        return out;
    }

    Playout &policy() { return policy_; }

  private:
    struct Child {
        Move move;
        int node;
    };
    struct Node {
        int player = -1;             // -1 at a terminal node
        std::vector<Move> untried;   // back() is the most promising
        std::vector<Child> children;
        long long visits = 0;
        std::array<double, 4> totals{};
    };
    Playout policy_;
    MctsOptions opt_;
    ShuffleRng rng_;
    std::vector<Node> nodes_;
    std::vector<int> path_;

    int make_node(Game &g) {
        Node node;
        if (!g.is_over()) {
            node.player = g.current();
            const std::vector<Move> &legal = g.legal();
            node.untried.assign(legal.begin(), legal.end());
        }
        std::vector<Move> &u = node.untried;
        if (u.size() > 1) {
            for (size_t i = u.size() - 1; i > 0; --i) std::swap(u[i], u[rng_.below(uint32_t(i + 1))]);
            if (opt_.widen) policy_.order(g, u);
        }
        std::reverse(u.begin(), u.end());
        nodes_.push_back(std::move(node));
        return int(nodes_.size() - 1);
    }

    void simulate(const Game &root) {
        Game g = root;
        int node = 0;
        path_.clear();
        path_.push_back(0);
        while (nodes_[size_t(node)].player >= 0) {
            Node &nd = nodes_[size_t(node)];
            if (!nd.untried.empty() &&
                (!opt_.widen || nd.children.empty() ||
                 double(nd.children.size()) < opt_.widen_base + std::sqrt(double(nd.visits)))) {
                Move m = nd.untried.back();
                nd.untried.pop_back();
                g.apply(m);
                int child = make_node(g);  // may move the nodes: nd is not used after this
                nodes_[size_t(node)].children.push_back({m, child});
                path_.push_back(child);
                break;
            }
            double log_n = std::log(double(nd.visits));
            size_t p = size_t(nd.player);
            const Child *best = &nd.children[0];
            double best_value = -1.0;
            for (const Child &ch : nd.children) {
                const Node &c = nodes_[size_t(ch.node)];
                double v = c.totals[p] / double(c.visits) + opt_.exploration * std::sqrt(log_n / double(c.visits));
                if (v > best_value) {
                    best_value = v;
                    best = &ch;
                }
            }
            g.apply(best->move);
            node = best->node;
            path_.push_back(node);
        }
        policy_.play_out(g, rng_);
        double values[4];
        rewards(g, values);
        int n = g.num_players();
        for (int id : path_) {
            Node &nd = nodes_[size_t(id)];
            nd.visits += 1;
            for (int s = 0; s < n; ++s) nd.totals[size_t(s)] += values[s];
        }
    }

    // r = (1 - mw) * win + mw * (1 + clip((score - best_other) / 10, -1, 1)) / 2 per seat.
    void rewards(const Game &g, double out[4]) const {
        int n = g.num_players();
        int scores[4];
        bool win[4] = {false, false, false, false};
        if (g.is_over()) {
            for (int s = 0; s < n; ++s) scores[s] = g.score(s);
            for (int w : g.winners()) win[w] = true;
        } else {
            int top = -1;
            for (int s = 0; s < n; ++s) top = std::max(top, scores[s] = g.projected_score(s));
            for (int s = 0; s < n; ++s) win[s] = scores[s] == top;
        }
        double mw = opt_.margin_weight;
        for (int s = 0; s < n; ++s) {
            double w = win[s] ? 1.0 : 0.0;
            if (mw != 0.0) {
                int best_other = INT32_MIN;
                for (int o = 0; o < n; ++o)
                    if (o != s) best_other = std::max(best_other, scores[o]);
                double m = std::max(-1.0, std::min(1.0, double(scores[s] - best_other) / 10.0));
                out[s] = (1.0 - mw) * w + mw * (1.0 + m) / 2.0;
            } else {
                out[s] = w;
            }
        }
    }
};

inline Move mcts_move(const Game &root, const MctsOptions &o) {
    Mcts search(root.rules, o);
    return search.search(root);
}

}  // namespace kardinal
