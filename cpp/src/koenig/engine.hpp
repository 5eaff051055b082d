// The Kardinal & König rules engine in C++: the same rules, move ids, legal-move order, errors and
// shuffles as the Python reference (kardinal_env/koenig/engine.py), which it follows function by
// function. tests/test_core_koenig.py keeps the two in lockstep. The board comes from Python
// (kardinal_env.koenig.board parses and validates board files; the core checks the arrays it gets).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/rng.hpp"

namespace koenig {

using common::fnv1a64;
using common::ShuffleRng;

constexpr int MAX_SEATS = 5;
constexpr int MAX_TYPES = 10;
constexpr int CLOISTERS = 20;
constexpr int ADVISORS = 8;
constexpr int HAND_SIZE = 3;
constexpr int DISPLAY_SIZE = 2;
constexpr int MAX_CARDS_PER_TURN = 3;
constexpr int MAX_PIECES_PER_TURN = 2;
enum Phase { PLACE = 0, SECOND = 1, DISCARD = 2, DRAW = 3, OVER = 4 };
inline const char *PHASE_NAMES[] = {"place", "second", "discard", "draw", "over"};

// An illegal move: rule (as the Python engine's IllegalMoveError.rule) and the full message.
struct IllegalMove {
    std::string rule, message;
    int move_id = -1;  // the move table's id when the move is one (the error then carries its name)
};
// A deck or reshuffle order that does not hold the cards it must (the Python engine's DeckError).
struct DeckProblem {
    std::string message;
};

inline std::string list_repr(const std::vector<int> &xs) {
    std::string s = "[";
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
    return s + "]";
}

// A compiled board (kardinal_env.koenig.board.Board): indices, adjacency and the move table.
struct Board {
    std::string name;
    std::vector<std::string> country_ids, site_ids, moves;
    std::vector<int> site_country, country_type, types, counts;
    std::vector<std::vector<int>> country_sites, type_countries, adjacency;
    std::vector<std::pair<int, int>> alliances;
    std::unordered_map<std::string, int> move_index;
    int S = 0, C = 0, T = 0, P = 0, advisor_base = 0, end_id = 0, discard_base = 0, draw_base = 0, deck_id = 0,
        num_moves = 0;

    // Checks every array (std::invalid_argument naming the problem) and builds the move table.
    Board(std::string name_, std::vector<std::string> country_ids_, std::vector<std::string> site_ids_,
          std::vector<int> site_country_, std::vector<int> types_, std::vector<int> counts_,
          std::vector<std::vector<int>> type_countries_, const std::vector<std::pair<int, int>> &roads,
          std::vector<std::pair<int, int>> alliances_)
        : name(std::move(name_)), country_ids(std::move(country_ids_)), site_ids(std::move(site_ids_)),
          site_country(std::move(site_country_)), types(std::move(types_)), counts(std::move(counts_)),
          type_countries(std::move(type_countries_)), alliances(std::move(alliances_)) {
        auto bad = [](const std::string &what) { throw std::invalid_argument("board: " + what); };
        C = int(country_ids.size());
        S = int(site_ids.size());
        T = int(types.size());
        if (C < 1) bad("no countries");
        if (T < 1 || T > MAX_TYPES) bad("1 to 10 card types needed, got " + std::to_string(T));
        if (int(site_country.size()) != S) bad("site_country must have one entry per site");
        if (int(counts.size()) != T || int(type_countries.size()) != T)
            bad("counts and type_countries must have one entry per card type");
        for (int t = 0; t < T; ++t) {
            if (types[t] < 0 || types[t] > 9) bad("card type " + std::to_string(types[t]) + " is not a digit 0-9");
            if (t && types[t] <= types[t - 1]) bad("card types must be distinct and ascending");
            if (counts[t] < 1) bad("card counts must be positive");
        }
        country_sites.assign(C, {});
        for (int s = 0; s < S; ++s) {
            int c = site_country[s];
            if (c < 0 || c >= C) bad("site " + std::to_string(s) + " names country " + std::to_string(c) + ", out of range");
            if (s && c < site_country[s - 1]) bad("sites must be listed country by country");
            country_sites[c].push_back(s);
        }
        for (int c = 0; c < C; ++c)
            if (country_sites[c].empty()) bad("country " + country_ids[c] + " has no sites");
        country_type.assign(C, -1);
        for (int t = 0; t < T; ++t)
            for (int c : type_countries[t]) {
                if (c < 0 || c >= C) bad("card type names country " + std::to_string(c) + ", out of range");
                if (country_type[c] >= 0) bad("country " + country_ids[c] + " is named by two card types");
                country_type[c] = t;
            }
        for (int c = 0; c < C; ++c)
            if (country_type[c] < 0) bad("no card type names country " + country_ids[c]);
        adjacency.assign(S, {});
        for (auto [a, b] : roads) {
            if (a < 0 || a >= S || b < 0 || b >= S || a == b) bad("a road joins sites out of range or a site with itself");
            adjacency[a].push_back(b);
            adjacency[b].push_back(a);
        }
        for (auto &nbrs : adjacency) {
            std::sort(nbrs.begin(), nbrs.end());
            if (std::adjacent_find(nbrs.begin(), nbrs.end()) != nbrs.end()) bad("a road is listed twice");
        }
        for (auto [a, b] : alliances)
            if (a < 0 || a >= C || b < 0 || b >= C || a == b) bad("an alliance joins countries out of range or a country with itself");
        for (const auto &id : country_ids)
            if (id.empty()) bad("empty country id");
        for (const auto &id : site_ids)
            if (id.empty()) bad("empty site id");
        // The move table, as Board.__init__ lists it.
        P = T + 1;
        auto digit = [&](int t) { return std::to_string(types[t]); };
        for (int s = 0; s < S; ++s) {
            moves.push_back("K@" + site_ids[s] + "/" + digit(country_type[site_country[s]]));
            for (int t = 0; t < T; ++t) moves.push_back("K@" + site_ids[s] + "/" + digit(t) + digit(t));
        }
        advisor_base = int(moves.size());
        for (int c = 0; c < C; ++c) {
            moves.push_back("A@" + country_ids[c] + "/" + digit(country_type[c]));
            for (int t = 0; t < T; ++t) moves.push_back("A@" + country_ids[c] + "/" + digit(t) + digit(t));
        }
        end_id = int(moves.size());
        moves.push_back("end");
        discard_base = int(moves.size());
        for (int t = 0; t < T; ++t) moves.push_back("discard:" + digit(t));
        draw_base = int(moves.size());
        for (int t = 0; t < T; ++t) moves.push_back("draw:" + digit(t));
        deck_id = int(moves.size());
        moves.push_back("draw:deck");
        num_moves = int(moves.size());
        for (int i = 0; i < num_moves; ++i)
            if (!move_index.emplace(moves[i], i).second) bad("two moves share the name " + moves[i] + " (repeated ids)");
    }
    int type_of_digit(int d) const {
        for (int t = 0; t < T; ++t)
            if (types[t] == d) return t;
        return -1;
    }
};

// ---------------------------------------------------------------- scoring (kardinal_env.koenig.scoring)
inline void cloister_points(const int *counts, int n, int *out) {
    int total = 0;
    std::array<int, MAX_SEATS> levels{};
    int nl = 0;
    for (int s = 0; s < n; ++s) {
        total += counts[s];
        if (counts[s] > 0 && std::find(levels.begin(), levels.begin() + nl, counts[s]) == levels.begin() + nl)
            levels[nl++] = counts[s];
    }
    for (int i = 1; i < nl; ++i)  // descending (an insertion sort: at most 5 levels)
        for (int j = i; j > 0 && levels[j] > levels[j - 1]; --j) std::swap(levels[j], levels[j - 1]);
    for (int s = 0; s < n; ++s) {
        out[s] = 0;
        if (counts[s] <= 0) continue;
        for (int i = 0; i < nl; ++i)
            if (levels[i] == counts[s]) out[s] = i == 0 ? total : levels[i - 1];
    }
}

// The longest simple path (in sites) of one connected group of a seat's cloisters (scoring.longest_paths).
struct ChainSearch {
    const std::vector<int> &owner;
    const std::vector<std::vector<int>> &adjacency;
    int seat;
    std::vector<char> visited;
    int best = 0, size = 0;
    bool mine(int u) const { return owner[u] == seat; }
    bool go(int v, int length) {
        if (length > best) {
            best = length;
            if (best == size) return true;
        }
        for (int u : adjacency[v])
            if (mine(u) && !visited[u]) {
                visited[u] = 1;
                if (go(u, length + 1)) return true;
                visited[u] = 0;
            }
        return false;
    }
    int longest(const std::vector<int> &comp) {
        size = int(comp.size());
        if (size <= 2) return size;
        bool simple = true;  // a path or a cycle: every site is on one chain
        for (int v : comp) {
            int degree = 0;
            for (int u : adjacency[v]) degree += mine(u);
            if (degree > 2) simple = false;
        }
        if (simple) return size;
        best = 1;
        for (int v : comp) {
            for (int u : comp) visited[u] = 0;
            visited[v] = 1;
            if (go(v, 1)) break;
        }
        return best;
    }
};

inline int seat_chain_points(const std::vector<int> &owner, const std::vector<std::vector<int>> &adjacency, int seat) {
    int S = int(owner.size()), count = 0;
    for (int s = 0; s < S; ++s) count += owner[s] == seat;
    if (count < 4) return 0;
    ChainSearch search{owner, adjacency, seat, std::vector<char>(size_t(S), 0)};
    std::vector<char> seen(size_t(S), 0);
    std::vector<int> comp;
    int points = 0;
    for (int root = 0; root < S; ++root) {
        if (owner[root] != seat || seen[root]) continue;
        comp.assign(1, root);
        seen[root] = 1;
        for (size_t i = 0; i < comp.size(); ++i)
            for (int u : adjacency[comp[i]])
                if (owner[u] == seat && !seen[u]) {
                    seen[u] = 1;
                    comp.push_back(u);
                }
        int length = search.longest(comp);
        if (length >= 4) points += length;
    }
    return points;
}

struct Take {
    int moves, taker, card;
};

// A read-only view of the cached legal moves.
struct MoveSpan {
    const int *p;
    size_t n;
    const int *begin() const { return p; }
    const int *end() const { return p + n; }
    size_t size() const { return n; }
    bool empty() const { return n == 0; }
    int operator[](size_t i) const { return p[i]; }
};

// ---------------------------------------------------------------- the game (kardinal_env.koenig.engine.Game)
class Game {
  public:
    std::shared_ptr<const Board> board;
    int n = 0;
    bool discard_any = false;
    std::array<std::array<int, MAX_TYPES>, MAX_SEATS> hands{};
    std::array<int, MAX_SEATS> hand_size{}, cl_left{}, ad_left{}, scores{};
    std::vector<int> display, deck, pile, owner, cl, cl_total, cl_max, ad, ad_total;  // cl/ad: [country * n + seat]
    std::vector<std::vector<int>> free_sites;
    std::vector<int> interim, final_parts;  // final_parts: cloisters, alliances, chains (3 * n) once over
    int runouts = 0;
    bool last_round = false;
    int current = 0, phase = PLACE, country = -1, pieces = 0, paid = 0, discards = 0;
    bool was_empty = false;
    std::vector<int> moves_;  // a buffer of num_moves ids (each legal id appears once); n_moves_ in use
    int n_moves_ = 0;
    bool moves_valid = false;
    std::vector<int> history, by;
    ShuffleRng rng;
    std::vector<int> deck0;
    std::optional<std::vector<int>> plan, reshuffled;
    std::vector<std::pair<int, int>> missed;
    std::vector<int> winners;
    int placements = 0;
    std::vector<Take> takes;

  private:
    mutable std::array<int, MAX_SEATS> chain_cache_{}, chain_key_{-1, -1, -1, -1, -1};  // chain_points()
    mutable std::array<int, MAX_SEATS> projected_cache_{};    // projected_into()
    mutable std::array<int, 3> projected_key_{-1, -1, -1};

  public:

    // deck / reshuffle: card orders as type *indices*, top first (the bindings convert and check digits).
    Game(std::shared_ptr<const Board> b, int players, bool any, uint64_t seed, std::optional<std::vector<int>> given_deck,
         std::optional<std::vector<int>> given_plan)
        : board(std::move(b)), n(players), discard_any(any), rng(seed) {
        const Board &B = *board;
        if (n < 3 || n > 5) throw std::invalid_argument("players must be 3, 4 or 5, got " + std::to_string(n));
        int removed = n == 3 ? 2 : n == 4 ? 1 : 0;
        std::array<int, MAX_TYPES> spare{};
        std::vector<int> cards;
        for (int t = 0; t < B.T; ++t) {
            if (B.counts[t] < removed)
                throw std::invalid_argument("board '" + B.name + "': card type " + std::to_string(B.types[t]) + " has " +
                                            std::to_string(B.counts[t]) + " card(s), but " + std::to_string(n) +
                                            " players remove " + std::to_string(removed) + " of each type");
            for (int k = 0; k < B.counts[t] - removed; ++k) cards.push_back(t);
            spare[t] = B.counts[t] - removed;
        }
        if (int(cards.size()) <= HAND_SIZE * n + DISPLAY_SIZE)
            throw std::invalid_argument("board '" + B.name + "': a deck of " + std::to_string(cards.size()) +
                                        " cards for " + std::to_string(n) + " players does not outlast the deal of " +
                                        std::to_string(HAND_SIZE * n + DISPLAY_SIZE) + " cards");
        if (given_deck) {
            std::vector<int> sorted = *given_deck;
            std::sort(sorted.begin(), sorted.end());
            if (sorted != cards)
                throw DeckProblem{"deck: holds " + census(*given_deck) + " but the " + std::to_string(n) +
                                  "-player deck on board '" + B.name + "' is " + census(cards)};
            deck0 = *given_deck;
        } else {
            deck0 = cards;
            rng.shuffle(deck0);
        }
        if (given_plan) {
            for (int t : *given_plan) spare[t] -= 1;
            for (int t = 0; t < B.T; ++t)
                if (spare[t] < 0)
                    throw DeckProblem{"reshuffle: holds " + census(*given_plan) + ", more than the " + std::to_string(n) +
                                      "-player deck on board '" + B.name + "' has (" + census(cards) + ")"};
            plan = given_plan;
        }
        deck.assign(deck0.rbegin(), deck0.rend());
        for (int s = 0; s < n; ++s) {
            for (int k = 0; k < HAND_SIZE; ++k) {
                hands[s][deck.back()] += 1;
                deck.pop_back();
            }
            hand_size[s] = HAND_SIZE;
            cl_left[s] = CLOISTERS;
            ad_left[s] = ADVISORS;
        }
        for (int k = 0; k < DISPLAY_SIZE; ++k) {
            display.push_back(deck.back());
            deck.pop_back();
        }
        moves_.assign(size_t(2 * B.num_moves), 0);  // each legal id appears once: num_moves would do
        owner.assign(B.S, -1);
        free_sites = B.country_sites;
        cl.assign(B.C * n, 0);
        ad.assign(B.C * n, 0);
        cl_total.assign(B.C, 0);
        cl_max.assign(B.C, 0);
        ad_total.assign(B.C, 0);
    }

    std::string census(const std::vector<int> &cards) const {  // type indices -> "{type 0: 3, type 2: 1}"
        std::array<int, MAX_TYPES> k{};
        for (int t : cards) k[t] += 1;
        std::string s = "{";
        bool first = true;
        for (int t = 0; t < board->T; ++t)
            if (k[t]) {
                s += (first ? "" : ", ") + std::string("type ") + std::to_string(board->types[t]) + ": " + std::to_string(k[t]);
                first = false;
            }
        return s + "}";
    }

    bool is_over() const { return phase == OVER; }
    int move_count() const { return int(history.size()); }

    MoveSpan legal() {
        if (!moves_valid) {
            int *w = moves_.data();
            generate(w);
            n_moves_ = int(w - moves_.data());
            moves_valid = true;
        }
        return {moves_.data(), size_t(n_moves_)};
    }
    bool is_legal(long long m) {
        MoveSpan ms = legal();
        return std::find(ms.begin(), ms.end(), m) != ms.end();
    }

    // Play a move id, checked: IllegalMove naming the rule (as Game.play_id).
    void play_id(long long m) {
        if (!is_legal(m)) {
            if (m >= 0 && m < board->num_moves) reject(int(m));
            throw IllegalMove{"malformed move", "malformed move: no move id " + std::to_string(m) + " on this board"};
        }
        apply(int(m));
    }

    // ------------------------------------------------------------ generation
    // Payment offsets j (0 = single, 1 + t = pair of t) affordable for country c within budget cards.
    int pay_options(int seat, int c, int budget, int *opts) const {
        const auto &hand = hands[seat];
        int k = 0;
        if (hand[board->country_type[c]]) opts[k++] = 0;
        if (budget >= 2)
            for (int t = 0; t < board->T; ++t)
                if (hand[t] >= 2) opts[k++] = 1 + t;
        return k;
    }

    void generate(int *&w) const {  // writes the legal ids at w, advancing it
        const Board &b = *board;
        if (phase == DRAW) {
            std::array<int, MAX_TYPES> k{};
            for (int t : display) k[t] += 1;
            for (int t = 0; t < b.T; ++t)
                if (k[t]) *w++ = b.draw_base + t;
            if (!deck.empty()) *w++ = b.deck_id;
            return;
        }
        int seat = current;
        const auto &hand = hands[seat];
        const int P = b.P;
        if (phase == PLACE) {
            std::array<int, MAX_TYPES> pairs{};
            int np = 0;
            for (int t = 0; t < b.T; ++t)
                if (hand[t] >= 2) pairs[np++] = 1 + t;
            if (cl_left[seat]) {
                for (int t = 0; t < b.T; ++t)
                    if (hand[t])
                        for (int c : b.type_countries[t])
                            for (int s : free_sites[c]) *w++ = s * P;
                for (int i = 0; i < np; ++i)
                    for (int c = 0; c < b.C; ++c)
                        for (int s : free_sites[c]) *w++ = s * P + pairs[i];
            }
            if (ad_left[seat]) {
                if (np) {
                    for (int c = 0; c < b.C; ++c)
                        if (ad_total[c] < cl_max[c]) {
                            int base = b.advisor_base + c * P;
                            if (hand[b.country_type[c]]) *w++ = base;
                            for (int i = 0; i < np; ++i) *w++ = base + pairs[i];
                        }
                } else {
                    for (int t = 0; t < b.T; ++t)
                        if (hand[t])
                            for (int c : b.type_countries[t])
                                if (ad_total[c] < cl_max[c]) *w++ = b.advisor_base + c * P;
                }
            }
            for (int t = 0; t < b.T; ++t)
                if (hand[t]) *w++ = b.discard_base + t;
            return;
        }
        if (phase == SECOND) {
            second_moves(w);
            return;
        }
        if (phase == DISCARD) {
            *w++ = b.end_id;
            for (int t = 0; t < b.T; ++t)
                if (hand[t]) *w++ = b.discard_base + t;
        }
    }

    void second_moves(int *&w) const {
        const Board &b = *board;
        int seat = current, c = country;
        int opts[MAX_TYPES + 1];
        int k = pay_options(seat, c, MAX_CARDS_PER_TURN - paid, opts);
        if (!k) return;
        const int *start = w;
        if (cl_left[seat])
            for (int i = 0; i < k; ++i)
                for (int s : free_sites[c]) *w++ = s * b.P + opts[i];
        if (ad_left[seat] && ad_total[c] < cl_max[c]) {
            int base = b.advisor_base + c * b.P;
            for (int i = 0; i < k; ++i) *w++ = base + opts[i];
        }
        if (w > start) *w++ = b.end_id;
    }

    // ------------------------------------------------------------ moves
    void apply(int m) {
        const Board &b = *board;
        history.push_back(m);
        by.push_back(current);
        if (m >= b.draw_base) {
            int seat = current, t;
            if (m == b.deck_id) {
                t = deck.back();
                deck.pop_back();
                takes.push_back({int(history.size()), seat, t});
                if (deck.empty()) runout();
            } else {
                t = m - b.draw_base;
                display.erase(std::find(display.begin(), display.end(), t));
            }
            hands[seat][t] += 1;
            hand_size[seat] += 1;
            if (hand_size[seat] >= HAND_SIZE || (display.empty() && deck.empty()))
                end_turn();
            else
                moves_valid = false;
            return;
        }
        if (m < b.end_id) {
            const int P = b.P;
            int seat = current, site, c, j;
            auto &hand = hands[seat];
            if (m < b.advisor_base) {
                site = m / P;
                j = m % P;
                c = b.site_country[site];
            } else {
                c = (m - b.advisor_base) / P;
                j = (m - b.advisor_base) % P;
                site = -1;
            }
            if (j) {
                int t = j - 1;
                hand[t] -= 2;
                pile.push_back(t);
                pile.push_back(t);
                hand_size[seat] -= 2;
                paid += 2;
            } else {
                int t = b.country_type[c];
                hand[t] -= 1;
                pile.push_back(t);
                hand_size[seat] -= 1;
                paid += 1;
            }
            bool empty_before = cl_total[c] == 0;
            if (site >= 0) {
                owner[site] = seat;
                auto &f = free_sites[c];
                f.erase(std::find(f.begin(), f.end(), site));
                int &row = cl[c * n + seat];
                row += 1;
                cl_total[c] += 1;
                if (row > cl_max[c]) cl_max[c] = row;
                cl_left[seat] -= 1;
            } else {
                ad[c * n + seat] += 1;
                ad_total[c] += 1;
                ad_left[seat] -= 1;
            }
            pieces += 1;
            placements += 1;
            if (pieces == 1) {
                country = c;
                was_empty = empty_before;
                if (!empty_before) {
                    int *w = moves_.data();
                    second_moves(w);
                    n_moves_ = int(w - moves_.data());
                    if (n_moves_) {
                        phase = SECOND;
                        moves_valid = true;
                        return;
                    }
                }
            }
            start_draw();
        } else if (m == b.end_id) {
            start_draw();
        } else {
            int seat = current, t = m - b.discard_base;
            hands[seat][t] -= 1;
            hand_size[seat] -= 1;
            pile.push_back(t);
            discards += 1;
            if (!discard_any || discards == MAX_CARDS_PER_TURN || !hand_size[seat]) {
                start_draw();
            } else {
                phase = DISCARD;
                moves_valid = false;
            }
        }
    }

    void start_draw() {
        if (hand_size[current] < HAND_SIZE && !(display.empty() && deck.empty())) {
            phase = DRAW;
            moves_valid = false;
        } else {
            end_turn();
        }
    }

    void runout() {
        runouts += 1;
        if (runouts == 1) {
            interim.assign(n, 0);
            std::array<int, MAX_SEATS> pts{};
            for (int c = 0; c < board->C; ++c) {
                cloister_points(&cl[c * n], n, pts.data());
                for (int s = 0; s < n; ++s) interim[s] += pts[s];
            }
            for (int s = 0; s < n; ++s) scores[s] += interim[s];
            std::vector<int> order;
            if (plan) {
                std::vector<int> a = *plan, p = pile;
                std::sort(a.begin(), a.end());
                std::sort(p.begin(), p.end());
                if (a != p) throw DeckProblem{"reshuffle: holds " + census(*plan) + " but the discard pile is " + census(pile)};
                order = *plan;
            } else {
                order = pile;
                rng.shuffle(order);
            }
            reshuffled = order;
            pile.clear();
            deck.assign(order.rbegin(), order.rend());
            if (deck.empty()) runout();
        } else {
            last_round = true;
        }
    }

    void end_turn() {
        while (int(display.size()) < DISPLAY_SIZE && !deck.empty()) {
            int t = deck.back();
            deck.pop_back();
            display.push_back(t);
            takes.push_back({int(history.size()), -1, t});
            if (deck.empty()) runout();
        }
        int seat = current;
        country = -1;
        pieces = paid = discards = 0;
        was_empty = false;
        while (true) {
            if (last_round && seat == n - 1) {
                finish();
                return;
            }
            seat = (seat + 1) % n;
            if (hand_size[seat]) break;
            missed.push_back({int(history.size()), seat});
            if (!last_round) {
                bool any = false;
                for (int s = 0; s < n; ++s) any = any || hand_size[s];
                if (!any) throw std::logic_error("engine bug: no seat holds a card before the last round");
            }
        }
        current = seat;
        phase = PLACE;
        moves_valid = false;
    }

    // (cloisters, alliances, chains) points per seat on the current board: 3 * n values.
    std::vector<int> scoring_now() const {
        const Board &b = *board;
        std::vector<int> out(3 * n, 0);
        std::array<int, MAX_SEATS> pts{};
        for (int c = 0; c < b.C; ++c) {
            cloister_points(&cl[c * n], n, pts.data());
            for (int s = 0; s < n; ++s) out[s] += pts[s];
        }
        for (auto [a, c2] : b.alliances) {
            const int *ca = &ad[a * n], *cb = &ad[c2 * n];
            int top_a = *std::max_element(ca, ca + n), top_b = *std::max_element(cb, cb + n);
            if (top_a < 1 || top_b < 1) continue;
            int worth = 0;
            for (int s = 0; s < n; ++s) worth += ca[s] + cb[s];
            for (int s = 0; s < n; ++s)
                if (ca[s] == top_a && cb[s] == top_b) out[n + s] += worth;
        }
        for (int s = 0; s < n; ++s) out[2 * n + s] = chain_points(s);
        return out;
    }

    // seat_chain_points(owner, adjacency, seat), cached per seat: owner[] changes only when a seat
    // places a cloister (apply), which lowers that seat's cl_left, so the cache of a seat holds while
    // its cl_left does (a copy of the game copies the cache with the state it describes).
    int chain_points(int seat) const {
        if (chain_key_[seat] != cl_left[seat]) {
            chain_cache_[seat] = seat_chain_points(owner, board->adjacency, seat);
            chain_key_[seat] = cl_left[seat];
        }
        return chain_cache_[seat];
    }

    std::vector<int> projected_scores() const {
        std::vector<int> out(size_t(n), 0);
        projected_into(out.data());
        return out;
    }

    // projected_scores() into out (n values), cached: the projection reads the pieces on the board
    // (they change only with a placement, counted by placements), the scores and the run-outs (they
    // change only in runout() and finish()), so it holds while placements, runouts and phase == OVER do.
    void projected_into(int *out) const {
        const std::array<int, 3> key{placements, runouts, phase == OVER ? 1 : 0};
        if (key != projected_key_) {
            for (int s = 0; s < n; ++s) projected_cache_[s] = scores[s];
            if (phase != OVER) {
                auto now = scoring_now();
                int times = runouts == 0 ? 2 : 1;
                for (int s = 0; s < n; ++s) projected_cache_[s] += times * now[s] + now[n + s] + now[2 * n + s];
            }
            projected_key_ = key;
        }
        std::copy(projected_cache_.begin(), projected_cache_.begin() + n, out);
    }

    void finish() {
        final_parts = scoring_now();
        for (int s = 0; s < n; ++s) scores[s] += final_parts[s] + final_parts[n + s] + final_parts[2 * n + s];
        int best = *std::max_element(scores.begin(), scores.begin() + n);
        winners.clear();
        for (int s = 0; s < n; ++s)
            if (scores[s] == best) winners.push_back(s);
        phase = OVER;
        n_moves_ = 0;
        moves_valid = true;
    }

    std::vector<int> display_sorted_digits() const {
        std::vector<int> out;
        for (int t : display) out.push_back(board->types[t]);
        std::sort(out.begin(), out.end());
        return out;
    }

    // ------------------------------------------------------------ diagnosis (Game._explain)
    [[noreturn]] void reject(int m) const {
        auto [rule, reason] = explain(m);
        throw IllegalMove{rule, rule + ": " + reason + " ('" + board->moves[m] + "')", m};
    }

    std::pair<std::string, std::string> explain(int m) const {
        const Board &b = *board;
        if (phase == OVER) return {"game over", "the game is over; no move is legal"};
        const std::string seat = std::to_string(current);
        const auto &hand = hands[current];
        if (m < b.end_id) {
            int site, c, j;
            if (m < b.advisor_base) {
                site = m / b.P;
                j = m % b.P;
                c = b.site_country[site];
            } else {
                c = (m - b.advisor_base) / b.P;
                j = (m - b.advisor_base) % b.P;
                site = -1;
            }
            return explain_piece(site, c, j ? j - 1 : b.country_type[c], j > 0, b.moves[m]);
        }
        if (m == b.end_id) {
            if (phase == PLACE || phase == DRAW) return {"end", "'end' only stops after a first piece or during discarding (discard='any')"};
            throw std::logic_error("engine bug: 'end' is rejected but no rule explains why");
        }
        if (m < b.draw_base) {
            int t = m - b.discard_base;
            if (phase == SECOND) return {"discard", "a piece was placed this turn: discarding is instead of placing"};
            if (phase == DRAW) return {"phase", "seat " + seat + " must now draw (draw:{t} or draw:deck)"};
            if (!hand[t]) return {"discard", "seat " + seat + " holds no card of type " + std::to_string(b.types[t])};
            throw std::logic_error("engine bug: '" + b.moves[m] + "' is rejected but no rule explains why");
        }
        if (phase != DRAW) {
            static const char *what[] = {"place or discard", "place a second piece or end", "discard or end"};
            return {"phase", "seat " + seat + " must now " + what[phase]};
        }
        if (m == b.deck_id) return {"draw", "the deck is empty; draw from the display"};
        return {"draw", "the display holds no card of type " + std::to_string(b.types[m - b.draw_base]) +
                            " (display: " + list_repr(display_sorted_digits()) + ")"};
    }

    // The rule a piece breaks (Game._explain's K/A branch, after the phase is known not to be over): a
    // cloister on site (or an advisor in country c when site < 0) paid with type index t (a pair or one).
    std::pair<std::string, std::string> explain_piece(int site, int c, int t, bool pair, const std::string &name) const {
        const Board &b = *board;
        const std::string seat = std::to_string(current);
        const auto &hand = hands[current];
        const std::string &cname = b.country_ids[c];
        int cost = pair ? 2 : 1;
        if (phase == DRAW) {
            if (pieces == MAX_PIECES_PER_TURN) return {"two pieces", "seat " + seat + " placed two pieces this turn; it must now draw"};
            if (pieces == 1 && was_empty)
                return {"empty country", b.country_ids[country] +
                                             " was empty at the start of the turn: it takes one cloister and the turn goes on to drawing"};
            if (pieces == 1) return {"phase", "no second piece is legal for seat " + seat + "; it must now draw"};
            return {"phase", "seat " + seat + " discarded this turn and must now draw (draw:{t} or draw:deck)"};
        }
        if (phase == DISCARD) return {"discard", "discarding is instead of placing: after a discard no piece may be placed"};
        if (phase == SECOND && c != country)
            return {"one country", "this turn's pieces go to " + b.country_ids[country] + "; " + cname + " is another country"};
        if (phase == SECOND && paid + cost > MAX_CARDS_PER_TURN)
            return {"three cards", std::to_string(paid) + " cards are paid this turn; " + std::to_string(cost) + " more would exceed 3"};
        if (!pair && std::find(b.type_countries[t].begin(), b.type_countries[t].end(), c) == b.type_countries[t].end())
            return {"payment", "a type-" + std::to_string(b.types[t]) + " card does not name " + cname + "; pay with a type-" +
                                   std::to_string(b.types[b.country_type[c]]) + " card or a pair"};
        if (hand[t] < cost)
            return {"payment", "seat " + seat + " holds " + std::to_string(hand[t]) + " card(s) of type " +
                                   std::to_string(b.types[t]) + ", the payment needs " + std::to_string(cost)};
        if (phase == PLACE && cl_total[c] == 0 && site < 0)
            return {"empty country", cname + " holds no cloister: the first piece there must be a cloister"};
        if (site >= 0) {
            if (!cl_left[current]) return {"supply", "seat " + seat + " has no cloister left"};
            if (owner[site] >= 0)
                return {"site", "site " + b.site_ids[site] + " already holds a cloister of seat " + std::to_string(owner[site])};
        } else {
            if (!ad_left[current]) return {"supply", "seat " + seat + " has no advisor left"};
            if (ad_total[c] + 1 > cl_max[c])
                return {"advisor limit", cname + " would hold " + std::to_string(ad_total[c] + 1) +
                                             " advisors but no seat has more than " + std::to_string(cl_max[c]) + " cloister(s) there"};
        }
        throw std::logic_error("engine bug: '" + name + "' is rejected but no rule explains why");
    }

    // ------------------------------------------------------------ playouts
    long long random_playout(ShuffleRng &choice) {
        long long decisions = 0;
        while (phase != OVER) {
            MoveSpan ms = legal();
            apply(ms[choice.below(uint32_t(ms.size()))]);
            ++decisions;
        }
        return decisions;
    }
};

struct PlayoutSummary {
    long long games = 0, decisions = 0;
    std::array<long long, MAX_SEATS> wins{}, score_sum{};
};

// n_games random games from copies of start: moves uniformly at random from a generator seeded with
// seed; each copy's later shuffles (the run-out) reseeded from that generator, so copies differ there.
inline PlayoutSummary random_playouts(const Game &start, long long n_games, uint64_t seed) {
    PlayoutSummary out;
    ShuffleRng rng(seed);
    for (long long g = 0; g < n_games; ++g) {
        Game game = start;
        game.rng = ShuffleRng(rng.next());
        out.decisions += game.random_playout(rng);
        out.games += 1;
        for (int w : game.winners) out.wins[w] += 1;
        for (int s = 0; s < game.n; ++s) out.score_sum[s] += game.scores[s];
    }
    return out;
}

}  // namespace koenig
