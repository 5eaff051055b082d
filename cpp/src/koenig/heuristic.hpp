// The Kardinal & König heuristic baseline (agents/baselines/koenig_heuristic.py, the `heuristic`
// agent; its planner in koenig_heuristic_plan.py, the board's value in koenig_heuristic_value.py) on the
// core engine: for the seat on turn, the candidate values that the Python _Planner
// computes before its tie-break — for a draw decision the value of every draw move (the expectimax's
// options, legal[0] alone when the seat gets no further turn), for a placement or discard decision the
// `final` list of _Planner.choose (plans without pieces valued exactly, then the `replan` best placed
// plans valued again with the opportunities of the board after them). The tie-break stays in Python.
//
// It reads only public state and the deciding seat's own hand; what the seat knows of the deck comes in
// as deck_probs (deck_probabilities(game, seat) in Python, from SeatKnowledge). The floating-point
// operations follow the Python's order (try_pieces visits the changed countries, alliances and chains
// in ascending order, as the Python does), so the values agree with it to the last bits
// (tests/test_core_koenig_heuristic.py).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "koenig/engine.hpp"

namespace koenig {

// HeuristicWeights' ten fields, in field order.
struct HeuristicWeights {
    double rival_max, fill, contest, alliance_one, alliance_two, chain_three, chain_two, hand, hand_second, horizon;
};

constexpr double HEURISTIC_CARDS_PER_TURN = 2.0;
constexpr double HEURISTIC_FINAL_WIN = 1000.0;

using HHand = std::array<int, MAX_TYPES>;

// _Position: the public board valued for one seat; pieces (a site for a cloister, -1 - country for an
// advisor) can be tried on it.
class HeuristicPosition {
  public:
    const Board *b = nullptr;
    const HeuristicWeights *w = nullptr;
    const std::vector<std::vector<int>> *alliances_of = nullptr;        // per country, ascending (_Static)
    int n = 0, me = 0, times = 2;
    double phi = 0.0;
    bool final_turn = false;
    std::vector<int> owner, cl, ad, free;  // cl / ad: [country * n + seat]
    std::array<int, MAX_SEATS> cl_left{}, ad_left{};
    std::array<double, MAX_SEATS> banked{};
    std::vector<std::array<double, MAX_SEATS>> clc, alc;
    std::array<double, MAX_SEATS> chc{}, ef{};
    double value = 0.0;
    std::vector<std::vector<int>> sites_of;  // per seat, its cloisters' sites in ascending order
    mutable std::vector<unsigned> seen_;     // ch_comp's scratch: marks of the current stamp
    mutable unsigned stamp_ = 0;
    mutable std::vector<char> visited_;
    mutable std::vector<int> group_;

    const int *cl_row(int c) const { return &cl[size_t(c * n)]; }
    const int *ad_row(int c) const { return &ad[size_t(c * n)]; }

    void init_components() {
        clc.assign(size_t(b->C), {});
        alc.assign(b->alliances.size(), {});
        for (int c = 0; c < b->C; ++c) clc[size_t(c)] = cl_comp(c);
        for (size_t i = 0; i < b->alliances.size(); ++i) alc[i] = al_comp(int(i));
        for (int s = 0; s < n; ++s) chc[s] = ch_comp(s);
        ef = banked;
        for (const auto &comp : clc)
            for (int s = 0; s < n; ++s) ef[s] += comp[s];
        for (const auto &comp : alc)
            for (int s = 0; s < n; ++s) ef[s] += comp[s];
        for (int s = 0; s < n; ++s) ef[s] += chc[s];
        value = margin(ef);
    }

    double margin(const std::array<double, MAX_SEATS> &e) const {
        double best = 0.0, sum = 0.0;
        bool first = true;
        int others = 0, equal = 0;
        for (int s = 0; s < n; ++s) {
            if (s == me) continue;
            if (first || e[s] > best) best = e[s];
            first = false;
            sum += e[s];
            ++others;
            equal += e[s] == e[me];
        }
        double a = w->rival_max;
        double m = e[me] - a * best - (1 - a) * sum / double(others);
        if (final_turn && e[me] >= best) m += HEURISTIC_FINAL_WIN / double(1 + equal);
        return m;
    }

    std::array<double, MAX_SEATS> cl_comp(int c) const {
        std::array<int, MAX_SEATS> row{}, pts{}, alt{};
        for (int s = 0; s < n; ++s) row[s] = cl[size_t(c * n + s)];
        int f = free[size_t(c)];
        cloister_points(row.data(), n, pts.data());
        std::array<double, MAX_SEATS> out{};
        for (int s = 0; s < n; ++s) out[s] = double(times * pts[s]);
        if (f && phi > 0) {
            int top = *std::max_element(row.begin(), row.begin() + n);
            if (top && w->fill != 0.0) {
                double bonus = w->fill * phi * f;
                for (int s = 0; s < n; ++s)
                    if (row[s] == top) out[s] += bonus;
            }
            if (w->contest != 0.0) {
                int add = std::min(2, f);
                double scale = w->contest * phi * times;
                for (int s = 0; s < n; ++s) {
                    if (!row[s]) continue;
                    int worst = 0;
                    for (int o = 0; o < n; ++o) {
                        if (o == s) continue;
                        row[o] += add;
                        cloister_points(row.data(), n, alt.data());
                        int loss = alt[s] - pts[s];
                        row[o] -= add;
                        if (loss < worst) worst = loss;
                    }
                    out[s] += scale * worst;
                }
            }
        }
        return out;
    }

    std::array<double, MAX_SEATS> al_comp(int i) const {
        auto [a, c2] = b->alliances[size_t(i)];
        const int *ca = ad_row(a), *cb = ad_row(c2);
        int need_a = std::max(*std::max_element(ca, ca + n), 1), need_b = std::max(*std::max_element(cb, cb + n), 1);
        int worth = 0;
        for (int s = 0; s < n; ++s) worth += ca[s];
        for (int s = 0; s < n; ++s) worth += cb[s];
        double one = phi * w->alliance_one, two = phi * w->alliance_two;
        std::array<double, MAX_SEATS> out{};
        for (int s = 0; s < n; ++s) {
            int need = need_a - ca[s] + need_b - cb[s];
            if (need == 0)
                out[s] = double(worth);
            else if (need == 1)
                out[s] = one * (worth + 1);
            else if (need == 2)
                out[s] = two * (worth + 2);
        }
        return out;
    }

    // _ch_comp with _Static.groups: every connected group (two or more) of the seat's cloisters, roots in
    // ascending site order.
    double ch_comp(int seat) const {
        const auto &sites = sites_of[size_t(seat)];  // ascending: the groups' roots in Python's order
        if (sites.size() < 2) return 0.0;
        const int S = int(owner.size());
        double pot3 = 4 * phi * w->chain_three, pot2 = 4 * phi * w->chain_two;
        double total = 0.0;
        if (seen_.size() != size_t(S)) seen_.assign(size_t(S), 0);
        if (++stamp_ == 0) {  // wrapped: clear the marks
            std::fill(seen_.begin(), seen_.end(), 0);
            stamp_ = 1;
        }
        std::vector<int> &group = group_;
        visited_.resize(size_t(S));
        ChainSearch search{owner, b->adjacency, seat, std::move(visited_)};
        struct GiveBack {
            std::vector<char> &to;
            ChainSearch &from;
            ~GiveBack() { to = std::move(from.visited); }
        } give_back{visited_, search};
        for (int root : sites) {
            if (seen_[size_t(root)] == stamp_) continue;
            group.assign(1, root);
            seen_[size_t(root)] = stamp_;
            bool open = false;
            for (size_t k = 0; k < group.size(); ++k)
                for (int u : b->adjacency[size_t(group[k])]) {
                    if (owner[size_t(u)] == seat) {
                        if (seen_[size_t(u)] != stamp_) {
                            seen_[size_t(u)] = stamp_;
                            group.push_back(u);
                        }
                    } else if (owner[size_t(u)] < 0) {
                        open = true;
                    }
                }
            if (group.size() < 2) continue;
            int length = group.size() == 2 ? 2 : search.longest(group);
            if (length >= 4)
                total += length;
            else if (open)
                total += length == 3 ? pot3 : pot2;
        }
        return total;
    }

    void init_sites() {
        sites_of.assign(size_t(n), {});
        for (int x = 0; x < int(owner.size()); ++x)
            if (owner[size_t(x)] >= 0) sites_of[size_t(owner[size_t(x)])].push_back(x);
    }

    void place(int piece) {
        if (piece >= 0) {
            int c = b->site_country[size_t(piece)];
            owner[size_t(piece)] = me;
            auto &mine = sites_of[size_t(me)];
            mine.insert(std::lower_bound(mine.begin(), mine.end(), piece), piece);
            cl[size_t(c * n + me)] += 1;
            free[size_t(c)] -= 1;
            cl_left[me] -= 1;
        } else {
            int c = -1 - piece;
            ad[size_t(c * n + me)] += 1;
            ad_left[me] -= 1;
        }
    }

    void unplace(int piece) {
        if (piece >= 0) {
            int c = b->site_country[size_t(piece)];
            owner[size_t(piece)] = -1;
            auto &mine = sites_of[size_t(me)];
            mine.erase(std::lower_bound(mine.begin(), mine.end(), piece));
            cl[size_t(c * n + me)] -= 1;
            free[size_t(c)] += 1;
            cl_left[me] += 1;
        } else {
            int c = -1 - piece;
            ad[size_t(c * n + me)] -= 1;
            ad_left[me] += 1;
        }
    }

    HeuristicPosition copy_with(const std::vector<int> &pieces) const {
        HeuristicPosition p = *this;
        for (int piece : pieces) p.place(piece);
        p.init_components();
        return p;
    }

    // try_pieces: the margin after the seat places `pieces` (all in one country, as the planner tries
    // them); the position is unchanged afterwards.
    double try_pieces(const std::vector<int> &pieces) {
        std::vector<int> countries, advisor_countries;
        std::array<bool, MAX_SEATS> chains{};
        for (int piece : pieces) {
            place(piece);
            if (piece >= 0) {
                int c = b->site_country[size_t(piece)];
                if (std::find(countries.begin(), countries.end(), c) == countries.end()) countries.push_back(c);
                chains[me] = true;
                for (int u : b->adjacency[size_t(piece)])
                    if (owner[size_t(u)] >= 0) chains[owner[size_t(u)]] = true;
            } else {
                advisor_countries.push_back(-1 - piece);
            }
        }
        std::sort(countries.begin(), countries.end());
        std::array<double, MAX_SEATS> e = ef;
        for (int c : countries) {
            auto now = cl_comp(c);
            const auto &old = clc[size_t(c)];
            for (int s = 0; s < n; ++s) e[s] += now[s] - old[s];
        }
        if (!advisor_countries.empty()) {
            std::vector<int> alliances;  // the alliances of the advisors' countries, ascending
            for (int c : advisor_countries)
                alliances.insert(alliances.end(), (*alliances_of)[size_t(c)].begin(), (*alliances_of)[size_t(c)].end());
            std::sort(alliances.begin(), alliances.end());
            alliances.erase(std::unique(alliances.begin(), alliances.end()), alliances.end());
            for (int i : alliances) {
                auto now = al_comp(i);
                const auto &old = alc[size_t(i)];
                for (int s = 0; s < n; ++s) e[s] += now[s] - old[s];
            }
        }
        for (int s = 0; s < n; ++s)
            if (chains[s]) e[s] += ch_comp(s) - chc[s];
        for (size_t k = pieces.size(); k-- > 0;) unplace(pieces[k]);
        return margin(e);
    }

    bool advisor_room(int c, bool extra_cloister = false, int extra_advisors = 0) const {
        if (ad_left[me] <= extra_advisors) return false;
        const int *row = cl_row(c);
        int top = std::max(*std::max_element(row, row + n), extra_cloister ? row[me] + 1 : 0);
        const int *a = ad_row(c);
        int sum = 0;
        for (int s = 0; s < n; ++s) sum += a[s];
        return sum + extra_advisors + 1 <= top;
    }

    // (g1, g2) per country: the best gain in margin of one / two of the seat's pieces there.
    std::pair<std::vector<double>, std::vector<double>> opportunities() {
        const int C = b->C;
        std::vector<double> g1(size_t(C), 0.0), g2(size_t(C), 0.0);
        double base = value;
        bool can_cloister = cl_left[me] > 0;
        std::vector<std::pair<double, int>> singles;
        for (int c = 0; c < C; ++c) {
            const int *row = cl_row(c);
            bool empty = true;
            for (int s = 0; s < n; ++s) empty = empty && row[s] == 0;
            singles.clear();
            if (can_cloister)
                for (int x : b->country_sites[size_t(c)])
                    if (owner[size_t(x)] < 0) singles.push_back({try_pieces({x}), x});
            int advisor = -1 - c;
            if (!empty && advisor_room(c)) singles.push_back({try_pieces({advisor}), advisor});
            if (singles.empty()) continue;
            std::sort(singles.begin(), singles.end(), [](const auto &p, const auto &q) {
                return p.first != q.first ? p.first > q.first : p.second > q.second;
            });
            double best1 = singles[0].first - base;
            g1[size_t(c)] = std::max(0.0, best1);
            if (empty) {
                g2[size_t(c)] = g1[size_t(c)];
                continue;
            }
            double best2 = best1;
            std::vector<int> sites;
            for (auto [v, x] : singles)
                if (x >= 0 && sites.size() < 4) sites.push_back(x);
            if (cl_left[me] >= 2)
                for (size_t i = 0; i < sites.size(); ++i)
                    for (size_t j = i + 1; j < sites.size(); ++j)
                        best2 = std::max(best2, try_pieces({sites[i], sites[j]}) - base);
            for (int x : sites)
                if (advisor_room(c, true)) best2 = std::max(best2, try_pieces({x, advisor}) - base);
            if (advisor_room(c, false, 1)) best2 = std::max(best2, try_pieces({advisor, advisor}) - base);
            g2[size_t(c)] = std::max(g1[size_t(c)], best2);
        }
        return {std::move(g1), std::move(g2)};
    }
};

// _HandValuer and _Draws: the value of a hand for the seat's next turn, refilled by the best draws.
class HeuristicDraws {
  public:
    const Board *b;
    std::vector<double> g1, g2;
    double second_weight;
    std::vector<std::pair<int, double>> probs;  // (type, p) with p > 0
    int deck_size;
    std::unordered_map<uint64_t, double> q_memo, memo;

    HeuristicDraws(const Board *board, std::pair<std::vector<double>, std::vector<double>> opp, double second,
                   const std::vector<double> &deck_probs, int deck)
        : b(board), g1(std::move(opp.first)), g2(std::move(opp.second)), second_weight(second), deck_size(deck) {
        for (int t = 0; t < int(deck_probs.size()); ++t)
            if (deck_probs[size_t(t)] > 0) probs.push_back({t, deck_probs[size_t(t)]});
    }

    static uint64_t hand_key(const HHand &hand, int T) {
        uint64_t k = 0;
        for (int t = 0; t < T; ++t) k = k * 8 + uint64_t(hand[t] & 7);
        return k;
    }

    double q(const HHand &hand) {
        uint64_t key = hand_key(hand, b->T);
        auto it = q_memo.find(key);
        if (it != q_memo.end()) return it->second;
        double v = q_value(hand);
        q_memo.emplace(key, v);
        return v;
    }

    double q_value(const HHand &hand) const {
        bool any_pair = false;
        for (int t = 0; t < b->T; ++t) any_pair = any_pair || hand[t] >= 2;
        double best = 0.0, second = 0.0;
        for (int c = 0; c < b->C; ++c) {
            int t = b->country_type[size_t(c)], k = hand[t];
            bool other_pair = false;
            for (int u = 0; u < b->T; ++u) other_pair = other_pair || (u != t && hand[u] >= 2);
            double v;
            if (k >= 2 || (k && other_pair))
                v = g2[size_t(c)];
            else if (k || any_pair)
                v = g1[size_t(c)];
            else
                continue;
            if (v > best) {
                second = best;
                best = v;
            } else if (v > second) {
                second = v;
            }
        }
        return best + second_weight * second;
    }

    // display: sorted type indices (at most DISPLAY_SIZE).
    double value(const HHand &hand, const std::vector<int> &display, int taken) {
        uint64_t key = hand_key(hand, b->T);
        key = key * 16 + uint64_t(display.size());
        for (int t : display) key = key * 16 + uint64_t(t);
        key = key * 64 + uint64_t(taken);
        auto it = memo.find(key);
        if (it != memo.end()) return it->second;
        std::vector<std::pair<int, double>> opts = options(hand, display, taken);
        double v;
        if (opts.empty()) {
            v = q(hand);
        } else {
            v = opts[0].second;
            for (size_t i = 1; i < opts.size(); ++i)
                if (opts[i].second > v) v = opts[i].second;
        }
        memo.emplace(key, v);
        return v;
    }

    // Value per draw source (a type index for the display, -1 for the deck), in the Python dict's order.
    std::vector<std::pair<int, double>> options(const HHand &hand, const std::vector<int> &display, int taken) {
        std::vector<std::pair<int, double>> out;
        int size = 0;
        for (int t = 0; t < b->T; ++t) size += hand[t];
        if (size >= HAND_SIZE) return out;
        for (size_t i = 0; i < display.size(); ++i) {
            int t = display[i];
            if (i && display[i - 1] == t) continue;
            std::vector<int> rest = display;
            rest.erase(rest.begin() + long(i));
            HHand h = hand;
            h[t] += 1;
            out.push_back({t, value(h, rest, taken)});
        }
        if (taken < deck_size && !probs.empty()) {
            double acc = 0.0;
            for (auto [t, p] : probs) {
                HHand h = hand;
                h[t] += 1;
                acc += p * value(h, display, taken + 1);
            }
            out.push_back({-1, acc});
        }
        return out;
    }
};

struct HeuristicCandidate {
    int move;
    double value;
};

// _Planner: the candidates (move id, value) before the tie-break, for the seat on turn of g (not over).
// deck_probs: per card type index, what the seat knows of the deck's next card (deck_probabilities).
class HeuristicPlanner {
  public:
    const Game &g;
    const Board &b;
    HeuristicWeights w;
    int replan, seat;
    std::vector<std::vector<int>> alliances_of;
    HeuristicPosition pos;
    HHand hand{};
    std::vector<int> display;
    double next_turn;
    std::vector<double> probs;
    std::unordered_map<uint64_t, double> boards;  // board_value's memo, by pieces_key
    std::vector<std::pair<std::vector<int>, std::unique_ptr<HeuristicDraws>>> after;

    HeuristicPlanner(const Game &game, const HeuristicWeights &weights, int replan_, const std::vector<double> &deck_probs)
        : g(game), b(*game.board), w(weights), replan(replan_), seat(game.current) {
        const int n = g.n;
        alliances_of.assign(size_t(b.C), {});
        for (size_t i = 0; i < b.alliances.size(); ++i) {
            alliances_of[size_t(b.alliances[i].first)].push_back(int(i));
            alliances_of[size_t(b.alliances[i].second)].push_back(int(i));
        }
        pos.b = &b;
        pos.alliances_of = &alliances_of;
        pos.w = &w;
        pos.n = n;
        pos.me = seat;
        pos.owner = g.owner;
        pos.init_sites();
        pos.cl = g.cl;
        pos.ad = g.ad;
        pos.free.assign(size_t(b.C), 0);
        for (int c = 0; c < b.C; ++c)
            for (int x : b.country_sites[size_t(c)]) pos.free[size_t(c)] += g.owner[size_t(x)] < 0;
        for (int s = 0; s < n; ++s) {
            pos.cl_left[s] = g.cl_left[s];
            pos.ad_left[s] = g.ad_left[s];
            pos.banked[s] = double(g.scores[s]);
        }
        pos.times = g.runouts == 0 ? 2 : 1;
        if (g.last_round) pos.times = 1;
        pos.phi = std::min(1.0, turns_left() / w.horizon);
        pos.final_turn = g.last_round && seat == n - 1;
        pos.init_components();
        for (int t = 0; t < b.T; ++t) hand[t] = g.hands[seat][t];
        display = g.display;
        std::sort(display.begin(), display.end());
        next_turn = next_turn_chance();
        if (next_turn > 0) probs = deck_probs;
    }

    double turns_left() const {
        if (g.last_round) return 0.0;
        long long deck = (long long)g.deck.size();
        long long draws = g.runouts ? deck : 2 * deck + (long long)g.pile.size();
        return double(draws) / (HEURISTIC_CARDS_PER_TURN * g.n);
    }

    double next_turn_chance() const {
        if (g.last_round) return 0.0;
        if (g.runouts == 0) return 1.0;
        double spare = double(g.deck.size()) - HEURISTIC_CARDS_PER_TURN * (g.n - seat);
        return std::min(1.0, std::max(0.0, 0.5 + spare / (2 * HEURISTIC_CARDS_PER_TURN)));
    }

    static std::vector<int> sorted_key(std::vector<int> pieces) {
        std::sort(pieces.begin(), pieces.end());
        return pieces;
    }

    // The sorted pieces (at most a few, each -C..S-1) as one number.
    static uint64_t pieces_key(const std::vector<int> &sorted) {
        uint64_t k = sorted.size();
        for (int p : sorted) k = (k << 16) | uint64_t(p + 0x8000);
        return k;
    }

    double board_value(const std::vector<int> &pieces) {
        std::vector<int> key = sorted_key(pieces);
        uint64_t k = key.size() <= 3 ? pieces_key(key) : 0;
        if (key.size() <= 3) {
            auto it = boards.find(k);
            if (it != boards.end()) return it->second;
        }
        double v = key.empty() ? pos.value : pos.try_pieces(key);
        if (key.size() <= 3) boards.emplace(k, v);
        return v;
    }

    HeuristicDraws &draws_after(const std::vector<int> &pieces) {
        std::vector<int> key = sorted_key(pieces);
        for (auto &[k, d] : after)
            if (k == key) return *d;
        std::unique_ptr<HeuristicDraws> d;
        if (key.empty()) {
            d = std::make_unique<HeuristicDraws>(&b, pos.opportunities(), w.hand_second, probs, int(g.deck.size()));
        } else {
            HeuristicPosition p = pos.copy_with(key);
            d = std::make_unique<HeuristicDraws>(&b, p.opportunities(), w.hand_second, probs, int(g.deck.size()));
        }
        after.push_back({key, std::move(d)});
        return *after.back().second;
    }

    double hand_value(const HHand &h, HeuristicDraws &draws) {
        if (next_turn <= 0) return 0.0;
        return w.hand * next_turn * draws.value(h, display, 0);
    }

    double score(const std::vector<int> &pieces, const HHand &h, HeuristicDraws &draws) {
        return board_value(pieces) + hand_value(h, draws);
    }

    // (piece, country, cards as type indices) of a placement move id.
    void decode(int m, int &piece, int &c, std::vector<int> &cards) const {
        const int P = b.P;
        int j;
        if (m < b.advisor_base) {
            int site = m / P;
            j = m % P;
            c = b.site_country[size_t(site)];
            piece = site;
        } else {
            c = (m - b.advisor_base) / P;
            j = (m - b.advisor_base) % P;
            piece = -1 - c;
        }
        if (j)
            cards = {j - 1, j - 1};
        else
            cards = {b.country_type[size_t(c)]};
    }

    std::vector<std::pair<int, std::vector<int>>> second_pieces(int piece, int c, const HHand &h, int budget) const {
        std::vector<std::vector<int>> pays;
        int tc = b.country_type[size_t(c)];
        if (h[tc]) pays.push_back({tc});
        if (budget >= 2)
            for (int t = 0; t < b.T; ++t)
                if (h[t] >= 2) pays.push_back({t, t});
        std::vector<std::pair<int, std::vector<int>>> out;
        if (pays.empty()) return out;
        int cloisters_left = pos.cl_left[seat] - (piece >= 0 ? 1 : 0);
        if (cloisters_left > 0)
            for (int x : b.country_sites[size_t(c)])
                if (pos.owner[size_t(x)] < 0 && x != piece)
                    for (const auto &pay : pays) out.push_back({x, pay});
        if (pos.advisor_room(c, piece >= 0, piece >= 0 ? 0 : 1))
            for (const auto &pay : pays) out.push_back({-1 - c, pay});
        return out;
    }

    // _discard_sets: hands left after the first discard (already off `h`) and, with discard "any", up to
    // `more` further cards; sorted as Python sorts tuples.
    std::vector<HHand> discard_sets(const HHand &h, int more) const {
        if (!g.discard_any || more <= 0) return {h};
        std::vector<HHand> out{h}, frontier{h};
        for (int k = 0; k < more; ++k) {
            std::vector<HHand> next;
            for (const auto &x : frontier)
                for (int t = 0; t < b.T; ++t)
                    if (x[t]) {
                        HHand y = x;
                        y[t] -= 1;
                        if (std::find(out.begin(), out.end(), y) == out.end()) {
                            out.push_back(y);
                            next.push_back(y);
                        }
                    }
            frontier = std::move(next);
        }
        std::sort(out.begin(), out.end());  // T entries are compared first; the rest are zeros
        return out;
    }

    std::vector<HeuristicCandidate> candidates() {
        std::vector<HeuristicCandidate> out;
        std::vector<int> legal(size_t(2 * b.num_moves + 1));
        int *end = legal.data();
        g.generate(end);  // the legal moves in the engine's order, without touching g's cache
        legal.resize(size_t(end - legal.data()));
        if (legal.empty()) return out;
        if (g.phase == DRAW) {
            if (next_turn <= 0) {
                out.push_back({legal[0], 0.0});
                return out;
            }
            HeuristicDraws &draws = draws_after({});
            auto options = draws.options(hand, display, 0);
            for (int m : legal) {
                int src = m == b.deck_id ? -1 : m - b.draw_base;
                double v = 0.0;
                for (auto [s, val] : options)
                    if (s == src) v = val;
                out.push_back({m, v});
            }
            return out;
        }
        struct Plan {
            double estimate;
            int move;
            std::vector<int> pieces;
            HHand hand;
        };
        std::vector<Plan> plans;
        HeuristicDraws &base = draws_after({});
        int budget = MAX_CARDS_PER_TURN - (g.paid + g.discards);
        for (int m : legal) {
            if (m == b.end_id) {
                plans.push_back({score({}, hand, base), m, {}, hand});
            } else if (m >= b.discard_base) {
                int t = m - b.discard_base;
                HHand h = hand;
                h[t] -= 1;
                for (const auto &rest : discard_sets(h, budget - 1)) plans.push_back({score({}, rest, base), m, {}, rest});
            } else {
                int piece, c;
                std::vector<int> cards;
                decode(m, piece, c, cards);
                HHand h1 = hand;
                for (int t : cards) h1[t] -= 1;
                plans.push_back({score({piece}, h1, base), m, {piece}, h1});
                if (g.phase == PLACE && g.cl_total[size_t(c)] > 0) {
                    for (const auto &[piece2, cards2] : second_pieces(piece, c, h1, budget - int(cards.size()))) {
                        HHand h2 = h1;
                        for (int t : cards2) h2[t] -= 1;
                        std::vector<int> pair{piece, piece2};
                        plans.push_back({score(pair, h2, base), m, pair, h2});
                    }
                }
            }
        }
        for (const auto &p : plans)
            if (p.pieces.empty()) out.push_back({p.move, p.estimate});
        std::vector<const Plan *> placed;
        for (const auto &p : plans)
            if (!p.pieces.empty()) placed.push_back(&p);
        std::stable_sort(placed.begin(), placed.end(), [](const Plan *x, const Plan *y) { return -x->estimate < -y->estimate; });
        std::vector<std::pair<std::vector<int>, HHand>> seen;
        for (const Plan *p : placed) {
            std::pair<std::vector<int>, HHand> key{sorted_key(p->pieces), p->hand};
            if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
            seen.push_back(key);
            out.push_back({p->move, score(p->pieces, p->hand, draws_after(p->pieces))});
            if (int(seen.size()) >= replan) break;
        }
        return out;
    }
};

inline std::vector<HeuristicCandidate> heuristic_candidates(const Game &g, const HeuristicWeights &w, int replan,
                                                            const std::vector<double> &deck_probs) {
    if (g.phase == OVER) return {};
    HeuristicPlanner planner(g, w, replan, deck_probs);
    return planner.candidates();
}

}  // namespace koenig
