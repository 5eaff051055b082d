// Python bindings of Kardinal's searches (bind_kardinal_search, called by module.cpp): the submodule
// kardinal_core.kardinal_search, free functions taking a KardinalGame first (the core side of
// agents/search/mcts.py and agents/search/kardinal_compiled.py): random playouts, mcts:N and the
// playout policy. Each searches a copy of the game made with the GIL held and leaves the game unchanged.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <vector>

#include "common/boundary.hpp"
#include "kardinal/bindings.hpp"
#include "kardinal/engine.hpp"
#include "kardinal/mcts.hpp"

namespace nb = nanobind;
using kardinal::Game;
using kardinal::Move;
using kardinal_bindings::code_tuple;

namespace {

void require_playing(const Game &g) {
    if (g.is_over()) throw nb::value_error("no legal move: the game is over");
}

// mcts_move's and mcts_root's arguments, checked (the game must still be playing).
kardinal::MctsOptions mcts_options(const Game &g, long long simulations, uint64_t seed, double exploration,
                                   std::optional<double> widen_base, double margin_weight) {
    require_playing(g);
    kardinal::MctsOptions o;
    o.simulations = boundary::narrow<long long>(simulations, 1, boundary::limits::SIMULATIONS, "simulations");
    o.seed = seed;
    o.exploration = boundary::finite(exploration, "exploration");
    o.widen = widen_base.has_value();
    o.widen_base = widen_base ? boundary::finite(*widen_base, "widen_base") : 0.0;
    o.margin_weight = boundary::finite(margin_weight, "margin_weight");
    return o;
}

}  // namespace

void bind_kardinal_search(nb::module_ &core) {
    nb::module_ m = core.def_submodule(
        "kardinal_search", "Kardinal's searches over a KardinalGame (the game first; it is left unchanged).");
    m.def(
        "random_playouts",
        [](const Game &g, long long n_games, uint64_t seed) {
            boundary::narrow<long long>(n_games, 0, boundary::limits::PLAYOUTS, "n_games");
            kardinal::PlayoutSummary s;
            {
                nb::gil_scoped_release release;
                s = kardinal::random_playouts(g, n_games, seed);
            }
            nb::list wins, scores;
            for (int i = 0; i < g.num_players(); ++i) {
                wins.append(s.wins[size_t(i)]);
                scores.append(s.score_sum[size_t(i)]);
            }
            nb::dict out;
            out["games"] = s.games;
            out["decisions"] = s.decisions;
            out["wins"] = wins;
            out["score_sum"] = scores;
            return out;
        },
        nb::arg("game"), nb::arg("n_games"), nb::arg("seed") = 0,
        "Play n_games uniformly random games to the end from game's position inside C++; a dict: games, "
        "decisions, wins (per seat, ties count for every winner), score_sum (per seat).");
    m.def(
        "mcts_move",
        [](const Game &g, long long simulations, uint64_t seed, double exploration, std::optional<double> widen_base,
           double margin_weight) {
            kardinal::MctsOptions o = mcts_options(g, simulations, seed, exploration, widen_base, margin_weight);
            Game root(g);  // searched without the GIL: the copy, never the Python-owned game
            Move chosen;
            {
                nb::gil_scoped_release release;
                chosen = kardinal::mcts_move(root, o);
            }
            return code_tuple(chosen);
        },
        nb::arg("game"), nb::arg("simulations"), nb::arg("seed") = 0, nb::arg("exploration") = 0.7,
        nb::arg("widen_base").none() = 2.0, nb::arg("margin_weight") = 0.25,
        "Kardinal's mcts:N in C++ (agents.search.mcts with Kardinal's playout policy, its own seeded "
        "generator): the move code chosen for game's current decision after `simulations` simulations. "
        "widen_base=None: plain UCT without progressive widening. ValueError once the game is over.");
    m.def(
        "mcts_root",
        [](const Game &g, long long simulations, uint64_t seed, double exploration, std::optional<double> widen_base,
           double margin_weight) {
            kardinal::MctsOptions o = mcts_options(g, simulations, seed, exploration, widen_base, margin_weight);
            Game root(g);  // searched without the GIL: the copy, never the Python-owned game
            std::vector<kardinal::Mcts::RootChild> children;
            {
                nb::gil_scoped_release release;
                kardinal::Mcts search(root.rules, o);
                search.search(root);
                children = search.root_children();
            }
            nb::list out;
            for (const auto &c : children) out.append(nb::make_tuple(code_tuple(c.move), c.visits, c.value));
            return out;
        },
        nb::arg("game"), nb::arg("simulations"), nb::arg("seed") = 0, nb::arg("exploration") = 0.7,
        nb::arg("widen_base").none() = 2.0, nb::arg("margin_weight") = 0.25,
        "The root of mcts_move's search: a list of (move code, visits, mean reward of the deciding seat) "
        "for every child the search expanded, in expansion order (mcts_move plays the most visited, "
        "ties: the higher mean, then the first). Empty when the decision has one legal move.");
    m.def(
        "playout_move",
        [](Game &g, uint64_t seed) {
            require_playing(g);
            kardinal::Playout policy(g.rules);
            kardinal::ShuffleRng rng(seed);
            return code_tuple(policy.choose(g, rng));
        },
        nb::arg("game"), nb::arg("seed") = 0,
        "The move code Kardinal's playout policy (C++ port of agents.baselines.kardinal_greedy.Playout) "
        "picks in game now, drawing from a generator seeded with seed.");
    m.def(
        "ordered_move_codes",
        [](Game &g) {
            std::vector<Move> moves = g.legal();
            kardinal::Playout policy(g.rules);
            policy.order(g, moves);
            nb::list out;
            for (const Move &m : moves) out.append(code_tuple(m));
            return out;
        },
        nb::arg("game"),
        "game.legal_move_codes() as the playout policy orders them for progressive widening (Playout.order: "
        "most promising first, equal ones in legal order).");
}
