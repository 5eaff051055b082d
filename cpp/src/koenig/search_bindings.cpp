// Python bindings of Kardinal & König's searches, heuristic and playouts (bind_koenig_search, called by
// module.cpp): the submodule kardinal_core.koenig_search, free functions taking a KoenigGame first (the
// core sides of agents/search/koenig_compiled.py, agents/search/heuristic_rollouts.py and
// agents/baselines/koenig_heuristic.py). What runs without the GIL works on a copy of the game made with it
// held; the boundary rules of common/boundary.hpp hold as in every binding.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/boundary.hpp"
#include "koenig/bindings.hpp"
#include "koenig/engine.hpp"
#include "koenig/heuristic.hpp"
#include "koenig/ismcts.hpp"
#include "koenig/rollouts.hpp"
#include "koenig/worlds.hpp"

namespace nb = nanobind;
using koenig::Board;
using KGame = koenig::Game;
using koenig_bindings::digits;
using koenig_bindings::int_list;
using koenig_bindings::seed_state;

namespace {

// A search or world seed: an int (bool excluded), taken mod 2**64; TypeError otherwise.
uint64_t search_seed(nb::handle seed) {
    if (!PyLong_Check(seed.ptr()) || PyBool_Check(seed.ptr()))
        throw nb::type_error(("seed must be an int, got " + std::string(nb::type_name(seed.type()).c_str())).c_str());
    unsigned long long v = PyLong_AsUnsignedLongLongMask(seed.ptr());
    if (v == (unsigned long long)-1 && PyErr_Occurred()) throw nb::python_error();
    return v;
}

// SeatKnowledge.deal_data() of a seat of g, checked (koenig::DealData::check): TypeError for a value of
// the wrong type, ValueError for a missing key, wrong sizes, out-of-range or inconsistent counts.
koenig::DealData deal_data(const KGame &g, nb::handle obj) {
    if (!PyDict_Check(obj.ptr()))
        throw nb::type_error(("knowledge must be a dict (SeatKnowledge.deal_data()), got " +
                              std::string(nb::type_name(obj.type()).c_str()))
                                 .c_str());
    const int n = g.n, T = g.board->T;
    auto get = [&](const char *key) -> nb::handle {
        PyObject *v = PyDict_GetItemString(obj.ptr(), key);
        if (!v) throw nb::value_error((std::string("knowledge data: missing key '") + key + "'").c_str());
        return nb::handle(v);
    };
    auto integer = [&](nb::handle v, const std::string &what) {
        auto x = boundary::integer(v);
        if (!x) throw nb::type_error(("knowledge data: " + what + " must be an int").c_str());
        if (*x < -1'000'000 || *x > 1'000'000) throw nb::value_error(("knowledge data: " + what + " out of range").c_str());
        return int(*x);
    };
    auto sequence = [&](nb::handle v, const std::string &what, size_t size) {
        if (!PyList_Check(v.ptr()) && !PyTuple_Check(v.ptr()))
            throw nb::type_error(("knowledge data: " + what + " must be a list").c_str());
        if (size_t(PySequence_Size(v.ptr())) != size)
            throw nb::value_error(("knowledge data: " + what + " must have " + std::to_string(size) + " entries").c_str());
        std::vector<nb::handle> items;
        for (nb::handle item : v) items.push_back(item);
        return items;
    };
    auto counts = [&](nb::handle v, const std::string &what) {
        koenig::TypeCounts c{};
        auto items = sequence(v, what, size_t(T));
        for (int t = 0; t < T; ++t) c[t] = integer(items[size_t(t)], what);
        return c;
    };
    auto rows = [&](nb::handle v, const std::string &what) {
        std::array<koenig::TypeCounts, koenig::MAX_SEATS> r{};
        auto items = sequence(v, what, size_t(n));
        for (int s = 0; s < n; ++s) r[s] = counts(items[size_t(s)], what);
        return r;
    };
    auto per_seat = [&](nb::handle v, const std::string &what) {
        std::array<int, koenig::MAX_SEATS> r{};
        auto items = sequence(v, what, size_t(n));
        for (int s = 0; s < n; ++s) r[s] = integer(items[size_t(s)], what);
        return r;
    };
    koenig::DealData d;
    d.n = n;
    d.T = T;
    d.seat = integer(get("seat"), "seat");
    d.hand_sizes = per_seat(get("hand_sizes"), "hand_sizes");
    d.deck_size = integer(get("deck_size"), "deck_size");
    d.pool = counts(get("pool"), "pool");
    d.known = rows(get("known"), "known");
    nb::handle new_deck = get("new_deck"), start_known = get("start_known"), start_sizes = get("start_sizes");
    nb::handle steps = get("steps");
    d.after_runout = !new_deck.is_none();
    if (!PyList_Check(steps.ptr()) && !PyTuple_Check(steps.ptr()))
        throw nb::type_error("knowledge data: steps must be a list");
    if (d.after_runout) {
        d.new_deck = counts(new_deck, "new_deck");
        d.start_known = rows(start_known, "start_known");
        d.start_sizes = per_seat(start_sizes, "start_sizes");
        if (size_t(PySequence_Size(steps.ptr())) > koenig::MAX_DEAL_STEPS)
            throw nb::value_error("knowledge data: too many steps");
        for (nb::handle step : steps) {
            auto items = sequence(step, "a step", 3);
            d.steps.push_back({integer(items[0], "a step"), integer(items[1], "a step"), integer(items[2], "a step")});
        }
    } else if (!start_known.is_none() || !start_sizes.is_none() || PySequence_Size(steps.ptr()) != 0) {
        throw nb::value_error("knowledge data: start_known, start_sizes and steps are for after the run-out (new_deck)");
    }
    d.check(n, T, g.hand_size, int(g.deck.size()));
    return d;
}

// A sequence (list or tuple) of `size` real numbers (int or float, bool excluded) for the argument
// `what` of heuristic_values (or of `fn`): TypeError naming it for another type, ValueError for another length or a
// value that is not finite.
std::vector<double> real_sequence(nb::handle obj, const char *what, size_t size, const std::string &hint,
                                  const std::string &fn = "heuristic_values") {
    const std::string name = fn + ": " + what;
    if (!PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr()))
        throw nb::type_error((name + " must be a list or tuple of " + hint + ", got " +
                              std::string(nb::type_name(obj.type()).c_str()))
                                 .c_str());
    if (size_t(PySequence_Size(obj.ptr())) != size)
        throw nb::value_error((name + " must have " + std::to_string(size) + " entries (" + hint + "), got " +
                               std::to_string(PySequence_Size(obj.ptr())))
                                  .c_str());
    std::vector<double> out;
    size_t i = 0;
    for (nb::handle item : obj) {
        if (PyBool_Check(item.ptr()) || !(PyFloat_Check(item.ptr()) || PyLong_Check(item.ptr())))
            throw nb::type_error((name + "[" + std::to_string(i) + "] must be a number, got " +
                                  std::string(nb::type_name(item.type()).c_str()))
                                     .c_str());
        double v = PyFloat_AsDouble(item.ptr());
        if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
        if (!std::isfinite(v))
            throw nb::value_error((name + "[" + std::to_string(i) + "] must be finite, got " + std::to_string(v)).c_str());
        out.push_back(v);
        ++i;
    }
    return out;
}

// The heuristic's weights (the 10 HeuristicWeights fields in order), checked as HeuristicWeights checks
// them; errors name `fn`.
koenig::HeuristicWeights heuristic_weights(nb::handle weights, const std::string &fn) {
    static const char *names[] = {"rival_max", "fill", "contest", "alliance_one", "alliance_two",
                                  "chain_three", "chain_two", "hand", "hand_second", "horizon"};
    std::vector<double> w = real_sequence(weights, "weights", 10, "the 10 HeuristicWeights fields in order", fn);
    for (int i = 0; i < 10; ++i)
        if (w[size_t(i)] < 0)
            throw nb::value_error((fn + ": weights[" + std::to_string(i) + "] (" + names[i] + ") must be >= 0").c_str());
    if (w[0] > 1) throw nb::value_error((fn + ": weights[0] (rival_max) must be at most 1").c_str());
    if (w[9] <= 0) throw nb::value_error((fn + ": weights[9] (horizon) must be positive").c_str());
    return {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9]};
}

// The heuristic's `replan` (an int, 1..1000000); errors name `fn`.
int heuristic_replan(nb::handle replan, const std::string &fn) {
    auto r = boundary::integer(replan);
    if (!r)
        throw nb::type_error((fn + ": replan must be an int, got " + std::string(nb::type_name(replan.type()).c_str())).c_str());
    return boundary::narrow(*r, 1, boundary::limits::KNOB, fn + ": replan");
}

}  // namespace

void bind_koenig_search(nb::module_ &core) {
    nb::module_ m = core.def_submodule(
        "koenig_search", "Kardinal & König's searches, heuristic and playouts over a KoenigGame (the game first; it is left unchanged).");
    m.def(
        "ismcts_root",
        [](KGame &g, long long simulations, double exploration, double scale, nb::handle knowledge, nb::handle seed,
           nb::handle weights, nb::handle replan, long long widen, double margin_weight, bool paired,
           long long batch, double z, double t_continue, double win_bonus, long long widen_visits,
           nb::handle root_moves) {
            using boundary::limits::KNOB;
            const int sims = boundary::narrow(simulations, 1, boundary::limits::SIMULATIONS, "ismcts_root: simulations");
            boundary::finite(exploration, "ismcts_root: exploration");
            if (!(boundary::finite(scale, "ismcts_root: scale") > 0))
                throw nb::value_error("ismcts_root: scale must be a positive number");
            std::optional<koenig::IsmctsGuide> guide;
            if (!weights.is_none()) {
                const int widen_n = boundary::narrow(widen, 1, KNOB, "ismcts_root: widen");
                const int batch_n = boundary::narrow(batch, 0, KNOB, "ismcts_root: batch");
                const int widen_visits_n = boundary::narrow(widen_visits, 0, KNOB, "ismcts_root: widen_visits");
                if (!(margin_weight >= 0 && margin_weight <= 1))
                    throw nb::value_error("ismcts_root: margin_weight must be in [0, 1]");
                for (double v : {z, t_continue, win_bonus})
                    if (!(v >= 0 && std::isfinite(v)))
                        throw nb::value_error("ismcts_root: z, t_continue and win_bonus must be finite and >= 0");
                guide = koenig::IsmctsGuide{heuristic_weights(weights, "ismcts_root"),
                                            heuristic_replan(replan, "ismcts_root"), widen_n, margin_weight,
                                            paired, batch_n, z, t_continue, win_bonus, widen_visits_n};
            } else if (paired) {
                throw nb::value_error("ismcts_root: paired needs the guide (weights)");
            }
            if (g.is_over() || g.legal().size() < 2)
                throw nb::value_error("ismcts_root: the decision needs at least two legal moves");
            std::vector<int> roots;
            if (!root_moves.is_none()) {
                if (!guide || !paired) throw nb::value_error("ismcts_root: root_moves are the paired root's");
                koenig::MoveSpan legal = g.legal();
                for (nb::handle m : root_moves) {
                    std::optional<long long> id = boundary::integer(m);
                    if (!id || std::find(legal.begin(), legal.end(), *id) == legal.end() ||
                        std::find(roots.begin(), roots.end(), int(*id)) != roots.end())
                        throw nb::value_error("ismcts_root: root_moves must be distinct legal move ids");
                    roots.push_back(int(*id));
                }
                if (roots.empty()) throw nb::value_error("ismcts_root: root_moves is empty");
            }
            koenig::DealData data = deal_data(g, knowledge);
            if (data.seat != g.current) throw nb::value_error("ismcts_root: the knowledge must be the seat on turn's");
            uint64_t state = search_seed(seed);
            std::vector<koenig::IsmctsChild> children;
            {
                KGame root = g;  // a copy taken with the GIL held
                nb::gil_scoped_release release;
                children = koenig::Ismcts::search(root, sims, exploration, scale, data, state,
                                                  guide ? &*guide : nullptr, roots);
            }
            nb::list out;
            for (const auto &c : children) {
                if (paired) {
                    nb::list shares, margins;
                    for (double v : c.shares) shares.append(v);
                    for (int v : c.margins) margins.append(v);
                    out.append(nb::make_tuple(c.move, c.visits, c.mean, shares, margins));
                } else {
                    out.append(nb::make_tuple(c.move, c.visits, c.mean));
                }
            }
            return out;
        },
        nb::arg("game"), nb::arg("simulations"), nb::arg("exploration"), nb::arg("scale"), nb::arg("knowledge").none(), nb::arg("seed").none(),
        nb::arg("weights").none() = nb::none(), nb::arg("replan").none() = nb::none(), nb::arg("widen") = 3, nb::arg("margin_weight") = 0.0,
        nb::arg("paired") = false, nb::arg("batch") = 0, nb::arg("z") = 2.5, nb::arg("t_continue") = 0.5,
        nb::arg("win_bonus") = 10.0, nb::arg("widen_visits") = 0, nb::arg("root_moves").none() = nb::none(),
        "ISMCTSAgent's search (rollout_moves=0, or rollout=\"guide\" when weights are given) of the seat on "
        "turn, on the core, from that seat's knowledge "
        "(SeatKnowledge.deal_data(): plain counts, no hidden card) and the decision's seed (an int, taken mod "
        "2**64): every world is dealt in C++ (koenig/worlds.hpp) from ShuffleRng(seed) as the Python search "
        "deals it. The root's children as (move id, visits, mean value of the seat on turn), in expansion "
        "order. With weights (the 10 HeuristicWeights fields), replan, widen and margin_weight: the guided "
        "search (koenig/ismcts.hpp's IsmctsGuide: each node searches the mover's widen best heuristic moves, "
        "best first, and every simulation ends with a heuristic playout, valued (1 - margin_weight) win "
        "share + margin_weight sigmoid(final margin / scale)). With paired (a guide only): the paired root "
        "(Ismcts::search_paired: rounds of one world in which every root child is played), each child as "
        "(move id, visits, mean, [the seat's win share per round], [its final score margin per round]); "
        "batch > 0: the paired test (z, t_continue, win_bonus) after every batch rounds stops the rounds. "
        "widen_visits > 0 (a guide only): a node offers its 1 + visits / widen_visits best moves. "
        "root_moves (distinct legal move ids; paired only): the paired root's children, in that order. "
        "TypeError / ValueError for "
        "knowledge that is malformed or does not fit the game, a seed that is not an int, or a bad guide.");
    m.def(
        "heuristic_values",
        [](const KGame &g, nb::handle weights, nb::handle deck_probs, nb::handle replan) {
            koenig::HeuristicWeights hw = heuristic_weights(weights, "heuristic_values");
            const int T = g.board->T;
            std::vector<double> probs =
                real_sequence(deck_probs, "deck_probs", size_t(T), "one probability per card type");
            for (int t = 0; t < T; ++t)
                if (probs[size_t(t)] < 0 || probs[size_t(t)] > 1)
                    throw nb::value_error(("heuristic_values: deck_probs[" + std::to_string(t) + "] must be in [0, 1]").c_str());
            int r = heuristic_replan(replan, "heuristic_values");
            if (g.is_over()) throw nb::value_error("heuristic_values: the game is over; there is no decision");
            std::vector<koenig::HeuristicCandidate> out;
            {
                KGame copy = g;  // a copy taken with the GIL held
                nb::gil_scoped_release release;
                out = koenig::heuristic_candidates(copy, hw, r, probs);
            }
            nb::list result;
            for (const auto &c : out) result.append(nb::make_tuple(c.move, c.value));
            return result;
        },
        nb::arg("game"), nb::arg("weights").none(), nb::arg("deck_probs").none(), nb::arg("replan").none(),
        "The `heuristic` agent's candidates for the seat on turn (agents/baselines/koenig_heuristic.py, "
        "_Planner before its tie-break; koenig/heuristic.hpp): [(move id, value)], the draw moves' values for "
        "a draw decision, else the plans without pieces and the `replan` best placed plans re-valued. "
        "weights: the 10 HeuristicWeights fields in field order; deck_probs: per card type index, the chance "
        "that the deck's next card has that type (deck_probabilities(game, seat): what the seat knows); "
        "replan: a positive int. Reads only public state and the seat's own hand. TypeError / ValueError "
        "naming the argument for bad input, ValueError once the game is over.");
    m.def(
        "deal_world",
        [](const KGame &g, nb::handle knowledge, nb::handle seed) {
            koenig::DealData data = deal_data(g, knowledge);
            koenig::ShuffleRng rng(search_seed(seed));
            koenig::DealtWorld w;
            koenig::WorldDealer::deal(data, rng, w);
            koenig::check_world(g, data.seat, w);
            const Board &b = *g.board;
            nb::dict hands;
            for (int s = 0; s < g.n; ++s) {
                if (s == data.seat) continue;
                std::vector<int> cards;
                for (int t = 0; t < b.T; ++t)
                    for (int k = 0; k < w.hands[s][t]; ++k) cards.push_back(b.types[t]);
                hands[nb::int_(s)] = int_list(cards);
            }
            uint64_t next_seed = rng.next();
            return nb::make_tuple(hands, int_list(digits(b, w.deck)), next_seed);
        },
        nb::arg("game"), nb::arg("knowledge").none(), nb::arg("seed").none(),
        "kardinal_env.koenig.knowledge.deal_hidden(knowledge, ShuffleRng(seed)) in C++, then the world's "
        "shuffle seed (the generator's next draw), as SeatKnowledge.deal draws them: (hands {seat: sorted "
        "digits}, deck digits top first, seed). For the lockstep tests; errors as ismcts_root.");
    m.def(
        "heuristic_rollouts",
        [](KGame &g, nb::handle moves, long long worlds, nb::handle weights, nb::handle replan, nb::handle knowledge,
           nb::handle seed) {
            const std::string fn = "heuristic_rollouts";
            koenig::HeuristicWeights hw = heuristic_weights(weights, fn);
            int r = heuristic_replan(replan, fn);
            const int worlds_n = boundary::narrow(worlds, 1, boundary::limits::WORLDS, fn + ": worlds");
            if (g.is_over()) throw nb::value_error((fn + ": the game is over; there is no decision").c_str());
            if (!PyList_Check(moves.ptr()) && !PyTuple_Check(moves.ptr()))
                throw nb::type_error((fn + ": moves must be a list or tuple of legal move ids").c_str());
            std::vector<int> ids;
            for (nb::handle item : moves) {
                auto id = boundary::integer(item);
                if (!id || !g.is_legal(*id))
                    throw nb::value_error((fn + ": moves must be legal move ids of the seat on turn, got " +
                                           std::string(nb::str(item).c_str()))
                                              .c_str());
                ids.push_back(int(*id));
            }
            if (ids.empty()) throw nb::value_error((fn + ": moves is empty").c_str());
            koenig::DealData data = deal_data(g, knowledge);
            if (data.seat != g.current) throw nb::value_error((fn + ": the knowledge must be the seat on turn's").c_str());
            uint64_t state = search_seed(seed);
            std::vector<koenig::RolloutValue> values;
            {
                KGame root = g;  // a copy taken with the GIL held
                nb::gil_scoped_release release;
                values = koenig::HeuristicRollouts::evaluate(root, ids, worlds_n, data, state, hw, r);
            }
            nb::list out;
            for (const auto &v : values) {
                nb::list shares, margins;
                for (double x : v.shares) shares.append(x);
                for (int x : v.margins) margins.append(x);
                out.append(nb::make_tuple(v.move, shares, margins));
            }
            return out;
        },
        nb::arg("game"), nb::arg("moves").none(), nb::arg("worlds"), nb::arg("weights").none(), nb::arg("replan").none(),
        nb::arg("knowledge").none(), nb::arg("seed").none(),
        "Each of `moves` (legal move ids of the seat on turn) valued by heuristic playouts "
        "(koenig/rollouts.hpp): in each of `worlds` worlds dealt from the seat's knowledge "
        "(SeatKnowledge.deal_data()) with ShuffleRng(seed), the move and then the `heuristic` (weights, "
        "replan) in every seat to the game's end. [(move id, [win share per world], [final score margin per "
        "world])] in the order of `moves` (the margin: the seat's score less the best other seat's). TypeError / ValueError naming the argument for bad input.");
    m.def(
        "random_playouts",
        [](const KGame &g, long long n_games, nb::handle seed) {
            boundary::narrow<long long>(n_games, 0, boundary::limits::PLAYOUTS, "n_games");
            uint64_t state = seed_state(seed);
            koenig::PlayoutSummary s;
            KGame start = g;  // a copy taken with the GIL held: another thread may play on g meanwhile
            {
                nb::gil_scoped_release release;
                s = koenig::random_playouts(start, n_games, state);
            }
            nb::dict out;
            out["games"] = s.games;
            out["decisions"] = s.decisions;
            out["wins"] = int_list(s.wins.begin(), s.wins.begin() + g.n);
            out["score_sum"] = int_list(s.score_sum.begin(), s.score_sum.begin() + g.n);
            return out;
        },
        nb::arg("game"), nb::arg("n_games"), nb::arg("seed").none(),
        "Play n_games random games from copies of game's position inside C++ (uniform legal moves from a "
        "generator seeded with seed; each copy's later shuffles reseeded from it). A dict: games, "
        "decisions, wins per seat (every winner of a tie counts), score_sum per seat.");
}
