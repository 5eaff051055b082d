// Dealing a world of Kardinal & König from one seat's knowledge: the C++ copy of
// kardinal_env/koenig/knowledge.py's deal_hidden (the reference; its docstring and the module's
// "Dealing a world" section are the spec). The knowledge itself — what a seat may know — is computed in
// Python only (SeatKnowledge.deal_data); this file only deals from it, with the same draws of the same
// generator (ShuffleRng, kardinal_env/core/shuffle.py), so the same knowledge and the same generator
// state give the same world in both languages (tests/test_core_koenig.py compares them). It never sees a
// hidden card: the data holds counts the seat knows and the public replay since the first run-out.
//
// DealData::check refuses data that does not fit a game (sizes, negative counts, counts that do not add
// up, malformed steps) with std::invalid_argument (a ValueError in Python), so dealing never reads out
// of range. One difference, for malformed data only: the last, unlimited replay after the run-out stops
// with std::invalid_argument after MAX_EXHAUSTIVE steps (the Python reference would go on searching).
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "koenig/engine.hpp"

namespace koenig {

constexpr int DEAL_ATTEMPTS = 20;             // knowledge.py _ATTEMPTS
constexpr long long DEAL_BUDGET = 4000;       // knowledge.py _BUDGET
constexpr long long MAX_EXHAUSTIVE = 50'000'000;  // see the header comment
constexpr int MAX_DEAL_COUNT = 1000;            // no count or size of real knowledge comes near
constexpr size_t MAX_DEAL_STEPS = 4096;         // bounds the replay's recursion (a game has a few hundred)
constexpr int STEP_SHOWN = 0, STEP_NEW = 1, STEP_SPEND = 2;

using TypeCounts = std::array<int, MAX_TYPES>;

struct DealStep {
    int kind, seat, type;
};

// SeatKnowledge.deal_data() as plain data (counts per card type index).
struct DealData {
    int seat = 0, n = 0, T = 0;
    std::array<int, MAX_SEATS> hand_sizes{};
    int deck_size = 0;
    TypeCounts pool{};
    std::array<TypeCounts, MAX_SEATS> known{};
    bool after_runout = false;
    TypeCounts new_deck{};
    std::array<TypeCounts, MAX_SEATS> start_known{};
    std::array<int, MAX_SEATS> start_sizes{};
    std::vector<DealStep> steps;

    [[noreturn]] static void bad(const std::string &why) { throw std::invalid_argument("knowledge data: " + why); }

    // The data fits a game of n seats, T card types, these hand sizes and this deck size.
    void check(int n_, int T_, const std::array<int, MAX_SEATS> &sizes, int deck) const {
        if (n != n_ || T != T_) bad("made for another game (seats or card types)");
        if (seat < 0 || seat >= n) bad("seat out of range");
        for (int s = 0; s < n; ++s)
            if (hand_sizes[s] != sizes[s]) bad("hand_sizes are not the game's");
        if (deck_size != deck) bad("deck_size is not the game's");
        auto sum = [&](const TypeCounts &c) {
            long long k = 0;
            for (int t = 0; t < T; ++t) {
                if (c[t] < 0) bad("a negative count");
                if (c[t] > MAX_DEAL_COUNT) bad("a count too large");
                k += c[t];
            }
            return k;
        };
        long long hidden = deck_size, pool_total = sum(pool);
        for (int s = 0; s < n; ++s) {
            long long k = sum(known[s]);
            if (s == seat ? k != 0 : k > hand_sizes[s]) bad("known cards that do not fit seat " + std::to_string(s) + "'s hand");
            if (s != seat) hidden += hand_sizes[s];
        }
        if (!after_runout) {
            long long k = pool_total;
            for (int s = 0; s < n; ++s) k += sum(known[s]);
            if (k != hidden) bad("pool and known cards do not add up to the other hands and the deck");
            return;
        }
        long long slots = 0, news = 0;
        if (pool_total > MAX_DEAL_COUNT) bad("a pool too large");
        for (int s = 0; s < n; ++s) {
            long long k = sum(start_known[s]);
            if (start_sizes[s] < 0 || start_sizes[s] > MAX_DEAL_COUNT) bad("a hand size at the run-out out of range");
            if (s == seat ? k != 0 || start_sizes[s] != 0 : k > start_sizes[s])
                bad("known cards that do not fit seat " + std::to_string(s) + "'s hand at the run-out");
            if (s != seat) slots += start_sizes[s] - k;
        }
        if (pool_total != slots) bad("pool does not add up to the hidden cards of the hands at the run-out");
        if (steps.size() > MAX_DEAL_STEPS) bad("too many steps");
        for (const DealStep &st : steps) {
            if (st.seat < 0 || st.seat >= n || st.seat == seat) bad("a step of the seat itself or of no seat");
            if (st.kind == STEP_NEW) {
                if (st.type != -1) bad("a draw from the new deck must have type -1");
                ++news;
            } else if (st.kind == STEP_SHOWN || st.kind == STEP_SPEND) {
                if (st.type < 0 || st.type >= T) bad("a step's type out of range");
            } else {
                bad("a step's kind must be 0, 1 or 2");
            }
        }
        long long total_new = sum(new_deck);
        if (total_new != deck_size + news) bad("new_deck does not add up to the deck and the draws from it");
    }
};

// One world: every other seat's hand (counts) and the deck, top first.
struct DealtWorld {
    std::array<TypeCounts, MAX_SEATS> hands{};
    std::vector<int> deck;
};

// The world holds exactly the cards it replaces — every other seat's hand and the deck — as a multiset,
// with the same sizes (what Game.with_hidden checks; public arithmetic, it tells nothing of which seat
// holds what); std::invalid_argument otherwise.
inline void check_world(const Game &g, int seat, const DealtWorld &w) {
    TypeCounts before{}, after{};
    for (int s = 0; s < g.n; ++s) {
        if (s == seat) continue;
        int k = 0;
        for (int t = 0; t < g.board->T; ++t) {
            before[t] += g.hands[s][t];
            after[t] += w.hands[s][t];
            k += w.hands[s][t];
        }
        if (k != g.hand_size[s]) DealData::bad("it deals seat " + std::to_string(s) + " a hand of another size");
    }
    if (w.deck.size() != g.deck.size()) DealData::bad("it deals a deck of another size");
    for (int t : g.deck) before[t] += 1;
    for (int t : w.deck) after[t] += 1;
    if (before != after) DealData::bad("its cards are not the cards of the other hands and the deck");
}

// `root` with world `w` in place of every hand but `seat`'s and of the deck, and the world's shuffle seed
// drawn from `world_rng` (after the deal, as Game.with_hidden takes it): a game the seat cannot tell apart
// from `root`. check_world(root, seat, w) first.
inline Game install_world(const Game &root, int seat, const DealtWorld &w, ShuffleRng &world_rng) {
    Game world = root;
    for (int s = 0; s < root.n; ++s)
        if (s != seat) world.hands[s] = w.hands[s];
    world.deck.assign(w.deck.rbegin(), w.deck.rend());
    world.rng = ShuffleRng(world_rng.next());
    world.plan.reset();
    return world;
}

class WorldDealer {
  public:
    // knowledge.py deal_hidden(data, rng); `data` checked (DealData::check) by the caller.
    static void deal(const DealData &d, ShuffleRng &rng, DealtWorld &out) {
        out.hands = {};
        out.deck.clear();
        if (!d.after_runout) {
            std::vector<int> pool;
            for (int t = 0; t < d.T; ++t)
                for (int k = 0; k < d.pool[t]; ++k) pool.push_back(t);
            rng.shuffle(pool);
            size_t at = 0;
            for (int s = 0; s < d.n; ++s) {
                if (s == d.seat) continue;
                int have = 0;
                for (int t = 0; t < d.T; ++t) {
                    out.hands[s][t] = d.known[s][t];
                    have += d.known[s][t];
                }
                for (int k = have; k < d.hand_sizes[s]; ++k) {
                    if (at >= pool.size()) DealData::bad("the pool is too small for the hands");
                    out.hands[s][pool[at++]] += 1;
                }
            }
            out.deck.assign(pool.begin() + long(at), pool.end());
        } else {
            bool done = false;
            for (int a = 0; a < DEAL_ATTEMPTS && !done; ++a) done = Replay(d, rng, DEAL_BUDGET).run(out);
            if (!done && !Replay(d, rng, -1).run(out)) DealData::bad("no world fits it");
        }
        if (int(out.deck.size()) != d.deck_size) DealData::bad("it deals a deck of another size");
    }

  private:
    // knowledge.py _replay: one replay of the steps since the run-out.
    struct Replay {
        const DealData &d;
        ShuffleRng &rng;
        long long budget, spent = 0;
        std::array<TypeCounts, MAX_SEATS> held{};
        std::array<int, MAX_SEATS> old_slots{}, new_slots{};
        TypeCounts old{}, fresh{};
        enum Result { FAIL, OK, DEAD_END };

        Replay(const DealData &d_, ShuffleRng &r, long long b) : d(d_), rng(r), budget(b) {
            for (int s = 0; s < d.n; ++s) {
                if (s == d.seat) continue;
                held[s] = d.start_known[s];
                int k = 0;
                for (int t = 0; t < d.T; ++t) k += d.start_known[s][t];
                old_slots[s] = d.start_sizes[s] - k;
            }
            old = d.pool;
            fresh = d.new_deck;
        }

        Result walk(size_t i) {
            std::vector<DealStep> undo;
            auto rollback = [&]() {
                for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
                    if (it->kind == STEP_SHOWN) held[it->seat][it->type] -= 1;
                    else if (it->kind == STEP_NEW) new_slots[it->seat] -= 1;
                    else held[it->seat][it->type] += 1;
                }
            };
            for (; i < d.steps.size(); ++i) {
                ++spent;
                if (budget >= 0 ? spent > budget : spent > MAX_EXHAUSTIVE) {
                    if (budget < 0) DealData::bad("no world found within the replay's limit");
                    return DEAD_END;
                }
                const DealStep &st = d.steps[i];
                int s = st.seat, t = st.type;
                if (st.kind == STEP_SHOWN) {
                    held[s][t] += 1;
                    undo.push_back(st);
                } else if (st.kind == STEP_NEW) {
                    new_slots[s] += 1;
                    undo.push_back(st);
                } else if (held[s][t]) {
                    held[s][t] -= 1;
                    undo.push_back(st);
                } else {
                    long long w0 = (long long)old_slots[s] * old[t], w1 = (long long)new_slots[s] * fresh[t];
                    if (!w0 && !w1) {
                        rollback();
                        return FAIL;
                    }
                    if (w0 + w1 >= (1LL << 32)) DealData::bad("counts too large");
                    int first = rng.weighted(std::array<long long, 2>{w0, w1});
                    for (int choice : {first, 1 - first}) {
                        if (!(choice == 0 ? w0 : w1)) continue;
                        int &slot = choice == 0 ? old_slots[s] : new_slots[s];
                        int &card = choice == 0 ? old[t] : fresh[t];
                        slot -= 1;
                        card -= 1;
                        Result r = walk(i + 1);
                        if (r != FAIL) return r;  // OK, or DEAD_END (this replay is thrown away)
                        slot += 1;
                        card += 1;
                    }
                    rollback();
                    return FAIL;
                }
            }
            return OK;
        }

        bool run(DealtWorld &out) {
            Result r = walk(0);
            if (r == DEAD_END) return false;
            if (r == FAIL) DealData::bad("no world fits it");
            std::vector<int> old_cards, new_cards;
            for (int t = 0; t < d.T; ++t) {
                for (int k = 0; k < old[t]; ++k) old_cards.push_back(t);
                for (int k = 0; k < fresh[t]; ++k) new_cards.push_back(t);
            }
            rng.shuffle(old_cards);
            rng.shuffle(new_cards);
            size_t o = 0, w = 0;
            for (int s = 0; s < d.n; ++s) {
                if (s == d.seat) continue;
                out.hands[s] = held[s];
                if (o + size_t(old_slots[s]) > old_cards.size() || w + size_t(new_slots[s]) > new_cards.size())
                    DealData::bad("too few cards for the hands");
                for (int k = 0; k < old_slots[s]; ++k) out.hands[s][old_cards[o++]] += 1;
                for (int k = 0; k < new_slots[s]; ++k) out.hands[s][new_cards[w++]] += 1;
            }
            if (o != old_cards.size()) DealData::bad("cards of the old hands are left over");
            out.deck.assign(new_cards.begin() + long(w), new_cards.end());
            return true;
        }
    };
};

}  // namespace koenig
