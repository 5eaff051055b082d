// The Kardinal rules engine in C++: a line-by-line port of kardinal_env/kardinal/engine.py (the
// readable reference). Moves are the Python engine's move codes (kind, shape, colour, square1,
// square2) with square keys (x + 64) * 128 + (y + 64); legal moves come out in exactly the order of
// Game.legal_move_codes(), which follows the insertion order of the Python engine's site dict (sites
// are only ever added or deleted, never re-added, so an append-only key list reproduces it).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/rng.hpp"

namespace kardinal {

using common::ShuffleRng;

constexpr int BUILD = 0, CHIP = 1, CARDINAL = 2;
constexpr int HOUSE = 0, TOWER = 1, YARD = 2;
constexpr int BUILD_PHASE = 0, CHIP_PHASE = 1, CARDINAL_PHASE = 2, OVER = 3;
constexpr int KEY_OFFSET = 64, KEY_STRIDE = 128, KEY_LIMIT = KEY_STRIDE * KEY_STRIDE;
constexpr int NEIGHBOUR_STEPS[4] = {1, -1, KEY_STRIDE, -KEY_STRIDE};
constexpr int CHIPS_PER_COLOUR = 12;
constexpr int EDIFICES_PER_SHAPE = 2;
constexpr int MAX_BUILDINGS = 2 + 4 * 3 * EDIFICES_PER_SHAPE;  // the cathedral's two parts + 24 edifices
constexpr uint8_t HOUSE_BIT = 1, TOWER_BIT = 2, YARD_BIT = 4;
constexpr uint8_t SHAPE_BIT[3] = {HOUSE_BIT, TOWER_BIT, YARD_BIT};
constexpr uint8_t COLOUR_BIT[4] = {8, 16, 32, 64};
constexpr int NAVE = 0, CLOCK_TOWER = 1;

inline constexpr int square_key(int x, int y) { return (x + KEY_OFFSET) * KEY_STRIDE + (y + KEY_OFFSET); }
constexpr int NAVE_KEY = square_key(0, 0);
constexpr int CLOCK_KEY = square_key(1, 0);

struct Move {
    int8_t kind, shape, colour;
    int16_t k1, k2;
    bool operator==(const Move &o) const {
        return kind == o.kind && shape == o.shape && colour == o.colour && k1 == o.k1 && k2 == o.k2;
    }
};

struct Rules {
    int players = 2;
    bool shared_pool = false;
    bool substitute = false;         // exhausted_colour == "substitute"
    bool neutral_put_aside = true;   // neutral_build_chips == "put_aside"
    bool neutral_touch_score = true; // neutral_touch_chips == "score"
    int window = 0;                  // 0: unbounded; else odd 3..53

    bool has_neutral() const { return players == 3 && !shared_pool; }
    int seat_colours(int seat, int out[4]) const {
        if (shared_pool) { for (int c = 0; c < 4; ++c) out[c] = c; return 4; }
        if (players == 2) { out[0] = 2 * seat; out[1] = 2 * seat + 1; return 2; }
        if (players == 3) { out[0] = seat; out[1] = 3; return 2; }
        out[0] = seat; return 1;
    }
    int owned_colours(int seat, int out[4]) const {
        if (shared_pool) return 0;
        if (players == 2) { out[0] = 2 * seat; out[1] = 2 * seat + 1; return 2; }
        out[0] = seat; return 1;
    }
};

// A small, fast generator (splitmix64) for the playouts run inside C++.
struct PlayoutSummary {
    long long games = 0, decisions = 0;
    std::array<long long, 4> wins{};    // games each seat won (ties: every winner counts)
    std::array<long long, 4> score_sum{};
};

// What a build scores for its builder (the Python engine's BuildChips, chips counted per colour).
struct BuildGain {
    int colours[4] = {0, 0, 0, 0};  // regular chips taken, per colour
    int regular = 0;                // their sum
    int substitutes = 0;
    bool set_aside = false;
    bool touches_cathedral = false;
    int chips() const { return set_aside ? 0 : regular + substitutes; }
};

class Game {
  public:
    Rules rules;

    explicit Game(const Rules &r) : rules(r) {
        if (r.players < 2 || r.players > 4) throw std::invalid_argument("players must be 2, 3 or 4");
        if (r.shared_pool && r.players == 2)
            throw std::invalid_argument("shared_pool is a 3- and 4-player variant; players=2 cannot use it");
        if (r.window != 0 && (r.window % 2 == 0 || r.window < 3 || r.window > 53))
            throw std::invalid_argument("window must be None or an odd integer from 3 to 53");
        n_ = r.players;
        half_ = r.window ? r.window / 2 : -1;
        std::memset(cell_, -1, sizeof cell_);
        std::memset(site_, 0, sizeof site_);
        cell_[NAVE_KEY] = NAVE;
        cell_[CLOCK_KEY] = CLOCK_TOWER;
        bshape_[0] = HOUSE; bcolour_[0] = -1; bbuilder_[0] = -1; bsq_[0][0] = NAVE_KEY; bsq_[0][1] = -1;
        bshape_[1] = TOWER; bcolour_[1] = -1; bbuilder_[1] = -1; bsq_[1][0] = CLOCK_KEY; bsq_[1][1] = -1;
        nb_ = 2;
        const int keys[2] = {NAVE_KEY, CLOCK_KEY};
        const uint8_t bits[2] = {HOUSE_BIT, TOWER_BIT};
        for (int i = 0; i < 2; ++i)
            for (int step : NEIGHBOUR_STEPS) {
                int nb = keys[i] + step;
                if (cell_[nb] < 0 && inside(nb)) add_site(nb, bits[i]);
            }
        for (int &v : inventory_) v = EDIFICES_PER_SHAPE;
        for (int &v : supply_) v = CHIPS_PER_COLOUR;
        std::memset(held_, 0, sizeof held_);
        std::memset(aside_, 0, sizeof aside_);
        std::memset(cathedral_touch_, 0, sizeof cathedral_touch_);
        std::memset(scores_, 0, sizeof scores_);
        winners_.clear();
    }

    // ------------------------------------------------------------ public state
    int num_players() const { return n_; }
    int phase() const { return phase_; }
    bool is_over() const { return phase_ == OVER; }
    int current() const { return current_; }
    int move_count() const { return moves_played_; }
    int cardinal_key() const { return cardinal_; }
    int pending() const { return pending_; }
    int held(int seat, int c) const { return held_[seat][c]; }
    int supply(int c) const { return supply_[c]; }
    int aside(int c) const { return aside_[c]; }
    int inventory(int i) const { return inventory_[i]; }
    int cathedral_touches(int seat) const { return cathedral_touch_[seat]; }
    int score(int seat) const { return scores_[seat]; }
    const std::vector<int> &winners() const { return winners_; }
    int last_shape() const { return last_shape_; }
    int last_colour() const { return last_colour_; }

    void projected_holdings(int seat, int out[4]) const {
        for (int c = 0; c < 4; ++c) out[c] = held_[seat][c];
        int owned[4];
        int k = rules.owned_colours(seat, owned);
        for (int i = 0; i < k; ++i) out[owned[i]] += supply_[owned[i]];
    }
    int projected_score(int seat) const {
        if (phase_ == OVER) return scores_[seat];
        int h[4];
        projected_holdings(seat, h);
        return h[0] + h[1] + h[2] + h[3] + std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
    }

    // The legal moves of the current decision, in the Python engine's order (cached until a move).
    const std::vector<Move> &legal() {
        if (!moves_valid_) {
            generate(moves_);
            moves_valid_ = true;
        }
        return moves_;
    }

    int index_of(const Move &m) {
        const auto &moves = legal();
        for (size_t i = 0; i < moves.size(); ++i)
            if (moves[i] == m) return int(i);
        return -1;
    }

    // Plays a move known to be legal (the caller checked it against legal()).
    void apply(const Move &m) {
        if (m.kind == BUILD) {
            apply_build(m);
            moves_valid_ = false;
        } else if (m.kind == CHIP) {
            int c = m.colour;
            supply_[c] -= 1;
            if (chip_dest_ < 0) aside_[c] += 1; else held_[chip_dest_][c] += 1;
            pending_ -= 1;
            if (!pending_ || !any_supply()) {
                pending_ = 0;
                chip_dest_ = -1;
                phase_ = CARDINAL_PHASE;
            }
            moves_valid_ = false;
        } else {
            if (m.k1 >= 0) cardinal_ = m.k1;
            end_turn();  // leaves the next seat's builds in moves_
        }
        ++moves_played_;
    }

    // Plays uniformly random legal moves until the game is over; returns the decisions made.
    long long random_playout(ShuffleRng &rng) {
        long long n = 0;
        while (phase_ != OVER) {
            if (phase_ == CARDINAL_PHASE && !moves_valid_) {
                // Uniform over the same moves without listing and sorting them (the order only
                // matters for what legal() shows Python): C- if the cardinal stands, then the sites.
                apply(cardinal_choice(rng.below(cardinal_choices())));
                ++n;
                continue;
            }
            const auto &moves = legal();
            Move m = moves[rng.below(uint32_t(moves.size()))];
            apply(m);
            ++n;
        }
        return n;
    }

    // ------------------------------------------------------------ queries of the search (mcts.hpp)
    // What the build m (a build code, legal or not) would score for the seat on turn now: the
    // Python engine's Game.build_chips (the chips are counted per colour; the supply is untouched).
    BuildGain build_chips(const Move &m) const {
        int supply[4] = {supply_[0], supply_[1], supply_[2], supply_[3]};
        return score_build(m, supply);
    }

    // Every build seat could make now as if on turn, the cardinal on square card (-1: nowhere).
    void builds_of(int seat, int card, std::vector<Move> &out) { builds_for(seat, card, out); }

    // Game.next_builder(ignore_cardinal): the first following seat (wrapping round to the current
    // one) that has a build, its builds in out; -1 (out empty) when none has.
    int next_builder(bool ignore_cardinal, std::vector<Move> &out) {
        int card = ignore_cardinal ? -1 : cardinal_;
        for (int i = 1; i <= n_; ++i) {
            int nxt = (current_ + i) % n_;
            builds_for(nxt, card, out);
            if (!out.empty()) return nxt;
        }
        return -1;
    }

    // The cardinal decision without listing and sorting it: how many moves it has (C- when the
    // cardinal stands, then every site but its square), the r-th of them in site order (not the
    // order of legal(): for uniform draws), and whether the cardinal may move to key.
    uint32_t cardinal_choices() const {
        uint32_t count = cardinal_ >= 0 ? 1 : 0;
        for (int16_t k : site_order_) count += (site_[k] && k != cardinal_) ? 1 : 0;
        return count;
    }
    Move cardinal_choice(uint32_t r) const {
        Move m{CARDINAL, -1, -1, -1, -1};
        uint32_t keep = cardinal_ >= 0 ? 1 : 0;
        if (r >= keep) {
            r -= keep;
            for (int16_t k : site_order_)
                if (site_[k] && k != cardinal_ && r-- == 0) { m.k1 = k; break; }
        }
        return m;
    }
    bool is_cardinal_target(int key) const {
        return key >= 0 && key < KEY_LIMIT && key != cardinal_ && site_[key] != 0;
    }

    // ------------------------------------------------------------ queries of the encoders (observation.hpp)
    // The board read-only, as the Python engine's LiveView: building b (0 the nave, 1 the clock
    // tower, then the edifices in build order), its shape, colour (-1: the cathedral) and square keys
    // (square i = 1 is -1 for a one-square building); the keys that ever were sites, in the order
    // they became sites (is_site tells which still are).
    int num_buildings() const { return nb_; }
    int building_shape(int b) const { return bshape_[b]; }
    int building_colour(int b) const { return bcolour_[b]; }
    int building_square(int b, int i) const { return bsq_[b][i]; }
    bool is_site(int key) const { return key >= 0 && key < KEY_LIMIT && site_[key] != 0; }
    const std::vector<int16_t> &site_keys() const { return site_order_; }

    // ------------------------------------------------------------ queries of the Python Game (core_game.py)
    // The builder of building b (-1: the cathedral), the neighbour bit summary of a site (0: not a
    // site; the Python engine's _sites values), and the buildings next to the squares of the build m
    // in the order the Python engine's _touched meets them (square by square, NEIGHBOUR_STEPS order,
    // each building once): what it needs to list BuildChips.colours in its own order.
    int building_builder(int b) const { return bbuilder_[b]; }
    int site_bits(int key) const { return (key >= 0 && key < KEY_LIMIT) ? site_[key] : 0; }
    int touched_in_order(const Move &m, int out[8]) const {
        int count = 0;
        int squares[2] = {m.k1, m.k2};
        int nsq = m.k2 < 0 ? 1 : 2;
        for (int i = 0; i < nsq; ++i)
            for (int step : NEIGHBOUR_STEPS) {
                int b = cell_[squares[i] + step];
                if (b < 0) continue;
                bool seen = false;
                for (int j = 0; j < count; ++j) seen = seen || out[j] == b;
                if (!seen) out[count++] = b;
            }
        return count;
    }

  private:
    int n_ = 2, half_ = -1;
    int8_t cell_[KEY_LIMIT];
    uint8_t site_[KEY_LIMIT];          // neighbour summary of a site; 0: not a site
    std::vector<int16_t> site_order_;  // keys in the order they became sites (built-on ones stay, skipped)
    int nb_ = 0;
    int8_t bshape_[MAX_BUILDINGS], bcolour_[MAX_BUILDINGS], bbuilder_[MAX_BUILDINGS];
    int16_t bsq_[MAX_BUILDINGS][2];
    int inventory_[12];
    int supply_[4];
    int held_[4][4];
    int aside_[4];
    int last_shape_ = -1, last_colour_ = -1;
    int cardinal_ = -1;
    int current_ = 0;
    int phase_ = BUILD_PHASE;
    int pending_ = 0;
    int chip_dest_ = -1;
    int moves_played_ = 0;
    int cathedral_touch_[4];
    int scores_[4];
    std::vector<int> winners_;
    std::vector<Move> moves_;
    bool moves_valid_ = false;
    std::vector<std::array<int, 3>> pairs_;  // scratch: yard squares

    bool inside(int key) const {
        if (half_ < 0) return true;
        int x = (key >> 7) - KEY_OFFSET, y = (key & 127) - KEY_OFFSET;
        return x >= -half_ && x <= half_ && y >= -half_ && y <= half_;
    }
    bool any_supply() const { return supply_[0] || supply_[1] || supply_[2] || supply_[3]; }
    void add_site(int key, uint8_t bit) {
        if (!site_[key]) site_order_.push_back(int16_t(key));
        site_[key] |= bit;
    }

    void yard_squares(int card) {
        pairs_.clear();
        for (int16_t a : site_order_) {
            int ma = site_[a];
            if (!ma) continue;  // built on since
            if ((ma & YARD_BIT) || a == card) continue;
            for (int b : {a + 1, a + KEY_STRIDE}) {
                int mb = site_[b];
                if (!mb) {
                    if ((ma & HOUSE_BIT) && cell_[b] < 0 && inside(b)) pairs_.push_back({a, b, ma});
                } else if (!(mb & YARD_BIT) && b != card && ((ma | mb) & HOUSE_BIT)) {
                    pairs_.push_back({a, b, ma | mb});
                }
            }
            if (ma & HOUSE_BIT)
                for (int b : {a - 1, a - KEY_STRIDE})
                    if (!site_[b] && cell_[b] < 0 && inside(b)) pairs_.push_back({b, a, ma});
        }
    }

    void builds_for(int seat, int card, std::vector<Move> &out) {
        out.clear();
        int colours[4];
        int nc = rules.seat_colours(seat, colours);
        bool have_pairs = false;
        for (int i = 0; i < nc; ++i) {
            int c = colours[i];
            if (c == last_colour_) continue;  // rule VII
            uint8_t cbit = COLOUR_BIT[c];
            int base = 3 * c;
            if (inventory_[base] && last_shape_ != HOUSE) {  // rule VI
                uint8_t forbid = HOUSE_BIT | cbit;
                for (int16_t k : site_order_) {
                    uint8_t m = site_[k];
                    if (m && !(m & forbid) && k != card) out.push_back({BUILD, HOUSE, int8_t(c), k, -1});
                }
            }
            if (inventory_[base + 1] && last_shape_ != TOWER) {
                uint8_t forbid = TOWER_BIT | cbit;
                for (int16_t k : site_order_) {
                    uint8_t m = site_[k];
                    if ((m & HOUSE_BIT) && !(m & forbid) && k != card) out.push_back({BUILD, TOWER, int8_t(c), k, -1});
                }
            }
            if (inventory_[base + 2] && last_shape_ != YARD) {
                if (!have_pairs) { yard_squares(card); have_pairs = true; }
                for (const auto &p : pairs_)
                    if (!(p[2] & cbit)) out.push_back({BUILD, YARD, int8_t(c), int16_t(p[0]), int16_t(p[1])});
            }
        }
    }

    void generate(std::vector<Move> &out) {
        if (phase_ == BUILD_PHASE) {
            builds_for(current_, cardinal_, out);
        } else if (phase_ == CHIP_PHASE) {
            out.clear();
            for (int c = 0; c < 4; ++c)
                if (supply_[c]) out.push_back({CHIP, -1, int8_t(c), -1, -1});
        } else if (phase_ == CARDINAL_PHASE) {
            out.clear();
            if (cardinal_ >= 0) out.push_back({CARDINAL, -1, -1, -1, -1});
            size_t first = out.size();
            for (int16_t k : site_order_)
                if (site_[k] && k != cardinal_) out.push_back({CARDINAL, -1, -1, k, -1});
            std::sort(out.begin() + first, out.end(), [](const Move &a, const Move &b) { return a.k1 < b.k1; });
        } else {
            out.clear();
        }
    }

    // docs/rules.md Scoring of the build m (the one place this rule lives: build_chips and
    // apply_build both use it, as the Python engine's _score): one chip per touched edifice whose
    // colour has chips left, taken out of supply (the engine's own when building, a copy when asking).
    BuildGain score_build(const Move &m, int supply[4]) const {
        BuildGain g;
        uint32_t touched = 0;
        int squares[2] = {m.k1, m.k2};
        int nsq = m.k2 < 0 ? 1 : 2;
        for (int i = 0; i < nsq; ++i)
            for (int step : NEIGHBOUR_STEPS) {
                int b = cell_[squares[i] + step];
                if (b >= 0) touched |= 1u << b;
            }
        bool neutral = rules.has_neutral();
        bool skip_neutral_touch = neutral && !rules.neutral_touch_score;
        int exhausted = 0;
        for (int b = 0; b < nb_; ++b) {
            if (!(touched & (1u << b))) continue;
            if (b <= CLOCK_TOWER) { g.touches_cathedral = true; continue; }
            int c = bcolour_[b];
            if (skip_neutral_touch && c == 3) continue;
            if (supply[c]) { supply[c] -= 1; g.colours[c] += 1; g.regular += 1; } else { exhausted += 1; }
        }
        if (exhausted && rules.substitute)
            g.substitutes = std::min(exhausted, supply[0] + supply[1] + supply[2] + supply[3]);
        g.set_aside = neutral && m.colour == 3 && rules.neutral_put_aside;
        return g;
    }

    void apply_build(const Move &m) {
        int shape = m.shape, colour = m.colour;
        int squares[2] = {m.k1, m.k2};
        int nsq = m.k2 < 0 ? 1 : 2;
        int bid = nb_;
        BuildGain gain = score_build(m, supply_);  // takes the regular chips out of the supply
        const int *colours = gain.colours;
        int substitutes = gain.substitutes;
        bool set_aside = gain.set_aside;
        bool touches_cathedral = gain.touches_cathedral;

        for (int i = 0; i < nsq; ++i) {
            cell_[squares[i]] = int8_t(bid);
            site_[squares[i]] = 0;
        }
        uint8_t bit = SHAPE_BIT[shape] | COLOUR_BIT[colour];
        for (int i = 0; i < nsq; ++i)
            for (int step : NEIGHBOUR_STEPS) {
                int nb = squares[i] + step;
                if (cell_[nb] >= 0 || !inside(nb)) continue;
                add_site(nb, bit);
            }
        int seat = current_;
        bshape_[bid] = int8_t(shape);
        bcolour_[bid] = int8_t(colour);
        bbuilder_[bid] = int8_t(seat);
        bsq_[bid][0] = int16_t(squares[0]);
        bsq_[bid][1] = int16_t(m.k2);
        nb_ = bid + 1;
        inventory_[3 * colour + shape] -= 1;
        last_shape_ = shape;
        last_colour_ = colour;
        int *dest = set_aside ? aside_ : held_[seat];
        for (int c = 0; c < 4; ++c) dest[c] += colours[c];
        if (touches_cathedral) cathedral_touch_[seat] += 1;
        int pending = bid == 2 ? 1 : substitutes;  // bid 2 is the game's first edifice
        if (pending && any_supply()) {
            pending_ = pending;
            chip_dest_ = set_aside ? -1 : seat;
            phase_ = CHIP_PHASE;
        } else {
            phase_ = CARDINAL_PHASE;
        }
    }

    void end_turn() {
        for (int i = 1; i <= n_; ++i) {
            int nxt = (current_ + i) % n_;
            builds_for(nxt, cardinal_, moves_);
            if (!moves_.empty()) {
                current_ = nxt;
                phase_ = BUILD_PHASE;
                moves_valid_ = true;
                return;
            }
        }
        finish();
    }

    void finish() {
        int scores[4] = {0, 0, 0, 0};
        int holdings[4][4];
        for (int s = 0; s < n_; ++s) {
            projected_holdings(s, holdings[s]);
            int *h = holdings[s];
            scores[s] = h[0] + h[1] + h[2] + h[3] + std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
        }
        for (int s = 0; s < n_; ++s)
            for (int c = 0; c < 4; ++c) held_[s][c] = holdings[s][c];
        for (int s = 0; s < n_; ++s) {
            int owned[4];
            int k = rules.owned_colours(s, owned);
            for (int i = 0; i < k; ++i) supply_[owned[i]] = 0;
        }
        if (rules.has_neutral()) {
            aside_[3] += supply_[3];
            supply_[3] = 0;
        }
        int best = scores[0];
        for (int s = 1; s < n_; ++s) best = std::max(best, scores[s]);
        int most = -1;
        for (int s = 0; s < n_; ++s)
            if (scores[s] == best) most = std::max(most, cathedral_touch_[s]);
        winners_.clear();
        for (int s = 0; s < n_; ++s)
            if (scores[s] == best && cathedral_touch_[s] == most) winners_.push_back(s);
        for (int s = 0; s < n_; ++s) scores_[s] = scores[s];
        phase_ = OVER;
        moves_.clear();
        moves_valid_ = true;
    }
};

inline PlayoutSummary random_playouts(const Game &start, long long n_games, uint64_t seed) {
    PlayoutSummary out;
    ShuffleRng rng(seed);
    for (long long g = 0; g < n_games; ++g) {
        Game game = start;
        out.decisions += game.random_playout(rng);
        out.games += 1;
        for (int w : game.winners()) out.wins[w] += 1;
        for (int s = 0; s < game.num_players(); ++s) out.score_sum[s] += game.score(s);
    }
    return out;
}

}  // namespace kardinal
