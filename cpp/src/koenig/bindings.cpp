// Python bindings of the Kardinal & König engine (bind_koenig, called by module.cpp; engine.hpp): KoenigBoard,
// KoenigGame, KoenigBatch and the shared shuffler (koenig_shuffle, koenig_draws, koenig_weighted,
// koenig_getrandbits, koenig_seed_state); its searches: search_bindings.cpp. kardinal_env/koenig/compiled.py is
// the way in from Python (it builds the KoenigBoard from a parsed board).
//
// Every input is checked before it reaches the engine: a move that is not legal raises the Python
// engine's IllegalMoveError (kardinal_env.core.errors; a ValueError) with the same rule and message,
// a deck or reshuffle order that does not fit raises kardinal_env.koenig.engine.DeckError (a
// ValueError), malformed board arrays ValueError, wrong types TypeError, seats out of range IndexError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/tuple.h>

#include <cmath>
#include <optional>
#include <tuple>

#include "common/batch_bindings.hpp"
#include "common/boundary.hpp"
#include "common/buffers.hpp"
#include "koenig/engine.hpp"
#include "koenig/batch.hpp"
#include "koenig/bindings.hpp"
#include "koenig/observation.hpp"

namespace nb = nanobind;
using koenig::Board;
using KGame = koenig::Game;

namespace {

using boundary::raise_as;
using koenig_bindings::digits;
using koenig_bindings::int_list;
using koenig_bindings::seed_state;

// As Game.play_id: the error's move is the move string for an id of the table, else the input.
[[noreturn]] void raise_illegal(const koenig::IllegalMove &e, nb::handle move, const Board *board = nullptr) {
    nb::str rule(e.rule.c_str());
    if (board && e.move_id >= 0) {
        nb::str name(board->moves[size_t(e.move_id)].c_str());
        raise_as("kardinal_env.core.errors", "IllegalMoveError", e.message, rule, name);
    }
    raise_as("kardinal_env.core.errors", "IllegalMoveError", e.message, rule, move);
}

// A move id from any object: an int that fits 64 bits (bool excluded) or nullopt.
std::optional<long long> as_move_id(nb::handle obj) { return boundary::integer(obj); }

void play_checked(KGame &g, nb::handle move) {
    auto id = as_move_id(move);
    try {
        if (!id) {
            std::string r = nb::repr(move).c_str();
            throw koenig::IllegalMove{"malformed move", "malformed move: no move id " + r + " on this board"};
        }
        g.play_id(*id);
    } catch (const koenig::IllegalMove &e) {
        raise_illegal(e, move, g.board.get());
    } catch (const koenig::DeckProblem &e) {
        raise_as("kardinal_env.koenig.engine", "DeckError", e.message);
    }
}

// Game._explain for a move that is not in the board's move table (malformed, unknown ids, a single
// card that does not name the country): parsed by the Python notation module, explained here.
[[noreturn]] void reject_unlisted(const KGame &g, nb::handle move) {
    const Board &b = *g.board;
    std::string rule, reason;
    nb::object parsed;
    try {
        parsed = nb::module_::import_("kardinal_env.koenig.notation").attr("parse_move")(move);
    } catch (nb::python_error &e) {
        if (!e.matches(PyExc_ValueError)) throw;  // MalformedMoveError is a ValueError
        rule = "malformed move";
        reason = nb::str(e.value()).c_str();
    }
    if (rule.empty() && g.is_over()) {
        rule = "game over";
        reason = "the game is over; no move is legal";
    }
    if (rule.empty()) {
        const std::string kind = nb::cast<std::string>(parsed.attr("kind"));
        const std::string board_name = nb::repr(nb::str(b.name.c_str())).c_str();
        auto unknown_card = [&](nb::handle card) {
            rule = "unknown id";
            reason = "no card type " + std::string(nb::str(card).c_str()) + " on board " + board_name + " (types " +
                     koenig::list_repr(b.types) + ")";
        };
        if (kind == "K" || kind == "A") {
            nb::object target = parsed.attr("target");
            const std::string id = nb::cast<std::string>(target);
            const auto &ids = kind == "K" ? b.site_ids : b.country_ids;
            auto found = std::find(ids.begin(), ids.end(), id);
            int t = b.type_of_digit(nb::cast<int>(parsed.attr("card")));
            if (found == ids.end()) {
                rule = "unknown id";
                reason = std::string(kind == "K" ? "no site " : "no country ") + nb::repr(target).c_str() + " on board " +
                         board_name;
            } else if (t < 0) {
                unknown_card(parsed.attr("card"));
            } else {
                int index = int(found - ids.begin());
                int site = kind == "K" ? index : -1, c = kind == "K" ? b.site_country[index] : index;
                std::tie(rule, reason) =
                    g.explain_piece(site, c, t, nb::cast<bool>(parsed.attr("pair")), nb::cast<std::string>(move));
            }
        } else if (kind == "discard") {
            unknown_card(parsed.attr("card"));
        } else if (kind == "draw" && g.phase != koenig::DRAW) {
            std::tie(rule, reason) = g.explain(b.deck_id);  // "phase": the seat must do something else now
        } else if (kind == "draw" && !parsed.attr("target").is_none()) {
            unknown_card(parsed.attr("target"));
        } else {
            throw std::logic_error("engine bug: a move of the table was treated as unlisted");
        }
    }
    std::string message = rule + ": " + reason + " (" + nb::repr(move).c_str() + ")";
    raise_illegal({rule, message}, move);
}

// Card digits -> type indices ("deck" / "reshuffle"), DeckError for anything else.
std::vector<int> card_order(const Board &b, nb::handle given, const char *what) {
    std::vector<int> out;
    std::string types = koenig::list_repr(b.types);
    auto refuse = [&]() {
        raise_as("kardinal_env.koenig.engine", "DeckError",
                 std::string(what) + ": expected a list of card types " + types + ", got " + nb::repr(given).c_str());
    };
    if (!PyList_Check(given.ptr()) && !PyTuple_Check(given.ptr())) refuse();
    for (nb::handle item : given) {
        auto v = as_move_id(item);
        int t = v && *v >= 0 && *v <= 9 ? b.type_of_digit(int(*v)) : -1;
        if (t < 0) refuse();
        out.push_back(t);
    }
    return out;
}

int check_seat(const KGame &g, long long seat) {
    if (seat < 0 || seat >= g.n)
        boundary::out_of_range("seat " + std::to_string(seat) + " out of range (0.." + std::to_string(g.n - 1) + ")");
    return int(seat);
}

nb::list hand_digits(const KGame &g, int seat) {
    nb::list out;
    for (int t = 0; t < g.board->T; ++t)
        for (int k = 0; k < g.hands[seat][t]; ++k) out.append(g.board->types[t]);
    return out;
}

nb::list owners(const KGame &g) {
    nb::list out;
    for (int o : g.owner) {
        if (o < 0)
            out.append(nb::none());
        else
            out.append(o);
    }
    return out;
}

nb::list per_country(const KGame &g, const std::vector<int> &flat) {
    nb::list out;
    for (int c = 0; c < g.board->C; ++c) out.append(int_list(flat.begin() + c * g.n, flat.begin() + (c + 1) * g.n));
    return out;
}

nb::object optional_digits(const KGame &g, const std::optional<std::vector<int>> &xs) {
    if (!xs) return nb::none();
    return int_list(digits(*g.board, *xs));
}

nb::dict breakdown(const KGame &g, const std::vector<int> &parts) {
    nb::dict out;
    const char *names[] = {"cloisters", "alliances", "chains"};
    for (int k = 0; k < 3; ++k) out[names[k]] = int_list(parts.begin() + k * g.n, parts.begin() + (k + 1) * g.n);
    return out;
}

void need_over(const KGame &g, const char *what) {
    if (!g.is_over()) boundary::not_over(std::string(what) + "() is only defined once the game is over");
}

nb::list finishing_order(const KGame &g) {
    std::vector<int> levels(g.scores.begin(), g.scores.begin() + g.n);
    std::sort(levels.begin(), levels.end(), std::greater<int>());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    nb::list out;
    for (int v : levels) {
        nb::list group;
        for (int s = 0; s < g.n; ++s)
            if (g.scores[s] == v) group.append(s);
        out.append(group);
    }
    return out;
}


// ------------------------------------------------------------------ observation and mask buffers
// (koenig/observation.hpp) The caller's array is taken only as it is (buffers.hpp): float32 (L,) for
// an observation, bool or int8 (num_moves,) for a mask. The game is read with the GIL held into a
// per-thread scratch (no allocation once it has grown), and the caller's buffer written without it.
using KObsArray = nb::ndarray<float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

bool is_float32(nb::dlpack::dtype d) { return d == nb::dtype<float>(); }
using buffers::one_dimensional;

void check_observer(const KGame &g, long long seat, const char *what) {
    if (seat < 0 || seat >= g.n)
        throw nb::value_error((std::string(what) + " " + std::to_string(seat) + " is out of range: a " +
                               std::to_string(g.n) + "-player game has seats 0.." + std::to_string(g.n - 1))
                                  .c_str());
}

void koenig_encode_into(const KGame &g, long long observer, nb::handle out) {
    check_observer(g, observer, "observer");
    const size_t size = size_t(koenig::observation_size(*g.board));
    const std::string shape = "(" + std::to_string(size) + ",)";
    KObsArray arr;
    if (!nb::try_cast(out, arr, false))
        buffers::refuse_buffer(out, "a writable C-contiguous numpy.float32 array of shape " + shape, is_float32,
                               "float32", one_dimensional, shape);
    if (arr.shape(0) != size)
        throw nb::value_error(("out must have shape " + shape + " (this board's observation), got (" +
                               std::to_string(arr.shape(0)) + ",)")
                                  .c_str());
    thread_local std::vector<float> scratch;
    scratch.resize(size);
    koenig::encode_observation(g, int(observer), scratch.data());
    float *data = arr.data();
    {
        nb::gil_scoped_release release;
        std::memcpy(data, scratch.data(), size * sizeof(float));
    }
}

void koenig_action_mask_into(KGame &g, nb::handle out, std::optional<long long> seat) {
    if (seat) check_observer(g, *seat, "seat");
    const size_t size = size_t(g.board->num_moves);
    const std::string shape = "(" + std::to_string(size) + ",)";
    auto [data, length] = buffers::mask_buffer(out, shape);
    if (length != size)
        throw nb::value_error(("out must have shape " + shape + " (this board's moves), got (" +
                               std::to_string(length) + ",)")
                                  .c_str());
    thread_local std::vector<uint8_t> scratch;
    scratch.resize(size);
    koenig::write_action_mask(g, seat ? int(*seat) : -1, scratch.data());
    {
        nb::gil_scoped_release release;
        std::memcpy(data, scratch.data(), size);
    }
}


// ==================================================================== batched games (koenig/batch.hpp)
// KoenigBatch: N games stepped together for kardinal_env.vector's "core" backend, bound as KardinalBatch
// is (kardinal/bindings.cpp): the batch owns its buffers and hands them to NumPy as arrays owned by the batch
// object; reset() and step() release the GIL and may split the games over std::threads; step() checks
// every action first and returns the first game whose action is not a legal id (-1: every game moved).
struct PyKoenigBatch : koenig::Batch, batch_bindings::BusyFlag {
    using koenig::Batch::Batch;
};

constexpr const char *KOENIG_BATCH_NAME = "KoenigBatch";

int batch_index(const PyKoenigBatch &b, long long i) {
    batch_bindings::check_idle(b, KOENIG_BATCH_NAME);
    return batch_bindings::check_index(i, b.num_envs());
}

void bind_koenig_batch(nb::module_ &m) {
    using B = PyKoenigBatch;
    nb::class_<B> cls(m, "KoenigBatch",
                      "N Kardinal & König games stepped together in C++ (kardinal_env.vector's core backend; see there).");
    batch_bindings::bind_common_arrays<B>(cls);
    cls.def(
            "__init__",
            [](B *self, std::shared_ptr<Board> board, long long players, const std::string &discard, long long num_envs,
               const std::string &reward, double score_shaping) {
                if (!board) throw nb::type_error("board must be a KoenigBoard");
                if (!std::isfinite(score_shaping))
                    throw nb::value_error(("score_shaping must be a finite number, got " + std::to_string(score_shaping)).c_str());
                if (players < 3 || players > 5)
                    throw nb::value_error(("players must be 3, 4 or 5, got " + std::to_string(players)).c_str());
                if (discard != "one" && discard != "any")
                    throw nb::value_error(("discard must be one of ['one', 'any'], got '" + discard + "'").c_str());
                const long long per_game = 2 * 4 * (long long)koenig::observation_size(*board) + board->num_moves +
                                           (long long)sizeof(KGame) + 256;
                const int n = boundary::batch_size(num_envs, per_game);
                int scheme;
                if (reward == "win_loss") scheme = batching::REWARD_WIN_LOSS;
                else if (reward == "margin") scheme = batching::REWARD_MARGIN;
                else throw nb::value_error(("reward must be one of ['win_loss', 'margin'], got '" + reward + "'").c_str());
                new (self) B(board, int(players), discard == "any", n, scheme, score_shaping);
            },
            nb::arg("board"), nb::arg("players"), nb::arg("discard"), nb::arg("num_envs"),
            nb::arg("reward") = "win_loss", nb::arg("score_shaping") = 0.0,
            "A batch of num_envs games of Rules(players, discard, board) (board: a KoenigBoard, "
            "kardinal_env.koenig.compiled.core_board). reward: 'win_loss' or 'margin'; score_shaping: times the change "
            "of the acting seat's projected margin (rewards.ShapingTracker). Fill next_seed, then "
            "call reset(): each game is dealt with its slot's next_seed (as Game(rules, seed)).")
        .def_prop_ro("observation_size", [](const B &b) { return b.observation_length(); });
    auto row_shape = [](const B &b) { return std::vector<size_t>{size_t(b.num_envs()), b.observation_length()}; };
    batch_bindings::def_view<float, B>(
        cls, "observation", &B::observation, row_shape,
        "(N, L) float32: each game's observation of the seat to act (a view of the batch's buffer).");
    batch_bindings::def_view<bool, B>(cls, "action_mask", &B::action_mask, batch_bindings::per_action<B>,
                                      "(N, num_moves) bool: the legal actions of the seat to act.");
    batch_bindings::def_view<float, B>(
        cls, "final_observation", &B::final_observation, row_shape,
        "(N, L) float32: a game's final position seen by final_player, written when it ends.");
    batch_bindings::def_view<uint64_t, B>(
        cls, "next_seed", &B::next_seed, batch_bindings::per_game<B>,
        "(N,) uint64, writable: the seed of the next game dealt in each slot (at reset(), or when a step ends "
        "the slot's game). The batch reads it; the caller refills it.");
    cls
        .def(
            "reset",
            [](B &b, long long threads) {
                int k = batch_bindings::check_threads(threads);
                batch_bindings::BusyGuard guard(b, KOENIG_BATCH_NAME);
                nb::gil_scoped_release release;
                b.reset(k);
            },
            nb::arg("threads") = 0,
            "A new game in every slot, dealt with next_seed; the buffers show the first decisions (rewards "
            "and terminated 0).")
        .def(
            "step",
            [](B &b, nb::handle actions, long long threads) {
                int k = batch_bindings::check_threads(threads);
                std::vector<int64_t> copy = boundary::copy_actions(actions, b.num_envs());
                batch_bindings::BusyGuard guard(b, KOENIG_BATCH_NAME);
                const int64_t *data = copy.data();  // the core's own copy: only it is checked and played
                long long bad;
                {
                    nb::gil_scoped_release release;
                    bad = b.find_illegal(data);
                    if (bad < 0) b.step(data, k);
                }
                return bad;
            },
            nb::arg("actions"), nb::arg("threads") = 0,
            "Play actions[i] (a move id) in game i for every game (threads: split the games over that many "
            "threads; 0 or 1: the calling thread), dealing a new game (next_seed) in the slots whose game "
            "ends. Returns -1; or, when some action is not a legal id of its game, the first such game's "
            "index, having changed nothing.")
        .def(
            "legal_action_ids",
            [](B &b, long long i) { return batch_bindings::int64_array(b.legal_ids(batch_index(b, i))); },
            nb::arg("index"), "The legal action ids of game index's decision (a new int64 array), in legal order.")
        .def(
            "all_legal_action_ids",
            [](B &b) {
                batch_bindings::check_idle(b, KOENIG_BATCH_NAME);
                std::vector<int64_t> ids, offsets{0};
                for (int i = 0; i < b.num_envs(); ++i) {
                    koenig::MoveSpan ms = b.legal_ids(i);
                    ids.insert(ids.end(), ms.begin(), ms.end());
                    offsets.push_back(int64_t(ids.size()));
                }
                return nb::make_tuple(batch_bindings::int64_array(ids), batch_bindings::int64_array(offsets));
            },
            "Every game's legal action ids at once: (ids, offsets), game i's being ids[offsets[i]:offsets[i+1]].")
        .def(
            "history_ids", [](B &b, long long i) { return int_list(b.game(batch_index(b, i)).history); },
            nb::arg("index"), "The move ids game index has played since its deal (a new list).")
        .def(
            "seed", [](B &b, long long i) { return b.seed(batch_index(b, i)); }, nb::arg("index"),
            "The seed game index was dealt with (Game(rules, seed) deals the same game).")
        .def(
            "game", [](B &b, long long i) { return KGame(b.game(batch_index(b, i))); }, nb::arg("index"),
            "A copy of game index as a KoenigGame.");
}

void bind_board(nb::module_ &m) {
    nb::class_<Board>(m, "KoenigBoard",
                      "A Kardinal & König board for the core, from a parsed board's arrays "
                      "(kardinal_env.koenig.compiled.core_board builds it from a kardinal_env.koenig.board.Board).")
        .def(
            "__init__",
            [](Board *self, std::string name, std::vector<std::string> country_ids, std::vector<std::string> site_ids,
               std::vector<int> site_country, std::vector<int> types, std::vector<int> counts,
               std::vector<std::vector<int>> type_countries, std::vector<std::pair<int, int>> roads,
               std::vector<std::pair<int, int>> alliances) {
                new (self) Board(std::move(name), std::move(country_ids), std::move(site_ids), std::move(site_country),
                                 std::move(types), std::move(counts), std::move(type_countries), roads,
                                 std::move(alliances));
            },
            nb::arg("name"), nb::arg("country_ids"), nb::arg("site_ids"), nb::arg("site_country"), nb::arg("types"),
            nb::arg("counts"), nb::arg("type_countries"), nb::arg("roads"), nb::arg("alliances"),
            "ValueError naming the problem for inconsistent arrays; TypeError for wrong types.")
        .def_ro("name", &Board::name)
        .def_ro("moves", &Board::moves, "The move table (Board.moves): action id -> move string.")
        .def_ro("num_moves", &Board::num_moves)
        .def("__repr__", [](const Board &b) {
            return "KoenigBoard('" + b.name + "': " + std::to_string(b.C) + " countries, " + std::to_string(b.S) +
                   " sites, " + std::to_string(b.num_moves) + " moves)";
        });
}

// KoenigGame: the decision, moves, results and every public query of the position.
void bind_game_moves(nb::class_<KGame> &cls) {
    cls
        .def(
            "legal_move_ids",
            [](KGame &g) {
                koenig::MoveSpan ms = g.legal();
                PyObject *list = PyList_New(Py_ssize_t(ms.size()));
                if (!list) throw nb::python_error();
                for (size_t i = 0; i < ms.size(); ++i) PyList_SET_ITEM(list, Py_ssize_t(i), PyLong_FromLong(ms[i]));
                return nb::steal<nb::list>(list);
            },
            "Legal moves of the current decision as ids into the board's move table, in the Python "
            "engine's order (a new list; empty once over).")
        .def("legal_moves", [](KGame &g) {
            nb::list out;
            for (int m : g.legal()) out.append(g.board->moves[m]);
            return out;
        })
        .def("num_legal_moves", [](KGame &g) { return g.legal().size(); })
        .def("play_id", &play_checked, nb::arg("move_id").none(),
             "Play a move id, checked: IllegalMoveError naming the rule (as Game.play_id).")
        .def("apply_legal_id", &play_checked, nb::arg("move_id").none(),
             "Same as play_id: the core checks every id (a scan of the cached legal moves).")
        .def("is_legal_id",
             [](KGame &g, nb::handle move) {
                 auto id = as_move_id(move);
                 return id && g.is_legal(*id);
             },
             nb::arg("move_id").none())
        .def(
            "play",
            [](KGame &g, nb::handle move) {
                auto it = g.board->move_index.end();
                if (PyUnicode_Check(move.ptr())) it = g.board->move_index.find(nb::cast<std::string>(move));
                if (it == g.board->move_index.end()) reject_unlisted(g, move);
                try {
                    if (!g.is_legal(it->second)) g.reject(it->second);
                    g.apply(it->second);
                } catch (const koenig::IllegalMove &e) {
                    raise_illegal(e, move);
                } catch (const koenig::DeckProblem &e) {
                    raise_as("kardinal_env.koenig.engine", "DeckError", e.message);
                }
            },
            nb::arg("move").none(), "Play a move in notation, checked like Game.play (IllegalMoveError naming the rule).")
        .def(
            "play_index",
            [](KGame &g, long long i) {
                koenig::MoveSpan ms = g.legal();
                if (i < 0 || size_t(i) >= ms.size())
                    boundary::out_of_range("move index " + std::to_string(i) + " out of range (" +
                                           std::to_string(ms.size()) + " legal moves)");
                try {
                    g.apply(ms[size_t(i)]);
                } catch (const koenig::DeckProblem &e) {
                    raise_as("kardinal_env.koenig.engine", "DeckError", e.message);
                }
            },
            nb::arg("index"), "Play the legal move at this position of legal_move_ids().")
        .def("scores", [](const KGame &g) { return int_list(g.scores.begin(), g.scores.begin() + g.n); })
        .def("winners",
             [](const KGame &g) {
                 need_over(g, "winners");
                 return int_list(g.winners);
             })
        .def("finishing_order",
             [](const KGame &g) {
                 need_over(g, "finishing_order");
                 return finishing_order(g);
             })
        .def("interim_scores", [](const KGame &g) -> nb::object {
            if (g.runouts == 0) return nb::none();
            return int_list(g.interim);
        })
        .def("final_breakdown", [](const KGame &g) -> nb::object {
            if (!g.is_over()) return nb::none();
            return breakdown(g, g.final_parts);
        })
        .def("scoring_now", [](const KGame &g) { return breakdown(g, g.scoring_now()); })
        .def("projected_scores", [](const KGame &g) { return int_list(g.projected_scores()); })
        .def("hand", [](const KGame &g, long long seat) { return hand_digits(g, check_seat(g, seat)); }, nb::arg("seat"))
        .def("hand_counts",
             [](const KGame &g, long long seat) {
                 int s = check_seat(g, seat);
                 return int_list(g.hands[s].begin(), g.hands[s].begin() + g.board->T);
             },
             nb::arg("seat"))
        .def("hand_size", [](const KGame &g, long long seat) { return g.hand_size[check_seat(g, seat)]; }, nb::arg("seat"))
        .def("pieces_left",
             [](const KGame &g, long long seat) {
                 int s = check_seat(g, seat);
                 return std::make_pair(g.cl_left[s], g.ad_left[s]);
             },
             nb::arg("seat"))
        .def("display", [](const KGame &g) { return g.display_sorted_digits(); })
        .def("deck_size", [](const KGame &g) { return g.deck.size(); })
        .def("discard_pile", [](const KGame &g) { return digits(*g.board, g.pile); })
        .def("owners", &owners)
        .def("cloister_counts", [](const KGame &g) { return per_country(g, g.cl); })
        .def("advisor_counts", [](const KGame &g) { return per_country(g, g.ad); });
}

// KoenigGame: the whole state (hidden cards too, for the lockstep tests and the Python game), copies, the observation and the mask.
void bind_game_state(nb::class_<KGame> &cls) {
    cls
        .def(
            "snapshot",
            [](const KGame &g) {
                const Board &b = *g.board;
                nb::dict d;
                d["current"] = g.current;
                d["phase"] = koenig::PHASE_NAMES[g.phase];
                nb::list hands, left;
                for (int s = 0; s < g.n; ++s) {
                    hands.append(hand_digits(g, s));
                    left.append(nb::make_tuple(g.cl_left[s], g.ad_left[s]));
                }
                d["hands"] = hands;
                d["display"] = digits(b, g.display);
                d["deck"] = digits(b, std::vector<int>(g.deck.rbegin(), g.deck.rend()));
                d["pile"] = digits(b, g.pile);
                d["owners"] = owners(g);
                d["advisors"] = per_country(g, g.ad);
                d["pieces_left"] = left;
                d["scores"] = int_list(g.scores.begin(), g.scores.begin() + g.n);
                d["runouts"] = g.runouts;
                d["last_round"] = g.last_round;
                d["turn"] = nb::make_tuple(g.country, g.pieces, g.paid, g.discards);
                d["history"] = int_list(g.history);
                nb::list missed;
                for (auto [moves, seat] : g.missed) missed.append(nb::make_tuple(moves, seat));
                d["missed"] = missed;
                d["reshuffled"] = optional_digits(g, g.reshuffled);
                d["winners"] = g.is_over() ? nb::object(int_list(g.winners)) : nb::none();
                return d;
            },
            "Every piece of state (hidden cards included) as Game.snapshot() writes it.")
        .def(
            "live_view",
            [](const KGame &g) {
                nb::list owner;
                for (int o : g.owner) owner.append(o);
                return nb::make_tuple(
                    owner, per_country(g, g.cl), per_country(g, g.ad),
                    int_list(g.hand_size.begin(), g.hand_size.begin() + g.n),
                    int_list(g.cl_left.begin(), g.cl_left.begin() + g.n),
                    int_list(g.ad_left.begin(), g.ad_left.begin() + g.n),
                    int_list(g.scores.begin(), g.scores.begin() + g.n), int_list(g.display), int_list(g.pile),
                    int(g.deck.size()), g.runouts, g.last_round, g.phase, g.current, g.country, g.pieces,
                    g.paid + g.discards, g.placements);
            },
            "The fields of Game.live_view() in its order (new lists; type indices, not digits): owner, "
            "cloisters, advisors, hand_sizes, cloisters_left, advisors_left, scores, display, pile, deck_size, "
            "runouts, last_round, phase, current, country, pieces, cards, placements.")
        .def(
            "deck_takes_raw",
            [](const KGame &g) {
                nb::list out;
                for (const auto &t : g.takes) out.append(nb::make_tuple(t.moves, t.taker, t.card));
                return out;
            },
            "Every card taken from the deck after the deal as (moves played, taker or -1, type index): "
            "hidden information, for Game.deck_takes (which shows each card only to the seat that saw it).")
        .def_prop_ro("movers", [](const KGame &g) { return int_list(g.by); },
                     "The seat that made each move of history_ids (public).")
        .def("clone", [](const KGame &g) { return KGame(g); }, "An independent copy; it shuffles as this game would.")
        .def_prop_ro("observation_size", [](const KGame &g) { return koenig::observation_size(*g.board); },
                     "L, the length of this board's observation (ObservationEncoder(rules).size).")
        .def("encode_into", &koenig_encode_into, nb::arg("observer"), nb::arg("out").none(),
             "Write ObservationEncoder(rules).encode(game, observer) into out, a writable C-contiguous "
             "numpy.float32 array of shape (observation_size,); every entry is written, returns None. Only what "
             "observer may know (its hand, public facts). TypeError: not an array, or not float32; ValueError: "
             "another shape, not C-contiguous, read-only, observer out of range.")
        .def("action_mask_into", &koenig_action_mask_into, nb::arg("out").none(),
             nb::arg("seat").none() = nb::none(),
             "Write ActionCodec(rules).action_mask(game, seat) into out, a writable C-contiguous numpy int8 (or "
             "bool) array of shape (num_moves,): ones at the legal move ids when seat (default: the deciding "
             "seat) decides now, zeros otherwise and once the game is over. Returns None. TypeError: not an "
             "array, or not int8/bool; ValueError: another shape, not C-contiguous, read-only, seat out of range.");
}

// The shared shuffler (kardinal_env.core.shuffle) for the lockstep tests.
void bind_shuffler(nb::module_ &m) {
    m.def("koenig_seed_state", &seed_state, nb::arg("seed").none(),
          "kardinal_env.core.shuffle.seed_state in C++ (None: a state from std::random_device).");
    m.def(
        "koenig_draws",
        [](nb::handle seed, long long k) {
            boundary::narrow<long long>(k, 0, boundary::limits::DRAWS, "k");
            koenig::ShuffleRng rng(seed_state(seed));
            std::vector<uint64_t> out;
            for (long long i = 0; i < k; ++i) out.push_back(rng.next());
            return out;
        },
        nb::arg("seed").none(), nb::arg("k"), "The first k draws of ShuffleRng(seed).");
    m.def(
        "koenig_weighted",
        [](nb::handle seed, std::vector<long long> weights, long long k) {
            boundary::narrow<long long>(k, 0, boundary::limits::DRAWS, "k");
            long long total = 0;
            for (long long w : weights) {
                if (w < 0 || w >= (1LL << 32)) throw nb::value_error("weights must be in 0..2**32-1");
                total += w;
            }
            if (total < 1 || total >= (1LL << 32)) throw nb::value_error("the weights' total must be in 1..2**32-1");
            koenig::ShuffleRng rng(seed_state(seed));
            std::vector<int> out;
            for (long long i = 0; i < k; ++i) out.push_back(rng.weighted(weights));
            return out;
        },
        nb::arg("seed").none(), nb::arg("weights"), nb::arg("k"),
        "The first k ShuffleRng(seed).weighted(weights) draws.");
    m.def(
        "koenig_getrandbits",
        [](nb::handle seed, int bits, long long k) {
            if (bits < 1 || bits > 64) throw nb::value_error("bits must be 1..64");
            boundary::narrow<long long>(k, 0, boundary::limits::DRAWS, "k");
            koenig::ShuffleRng rng(seed_state(seed));
            std::vector<uint64_t> out;
            for (long long i = 0; i < k; ++i) out.push_back(rng.getrandbits(bits));
            return out;
        },
        nb::arg("seed").none(), nb::arg("bits"), nb::arg("k"), "The first k ShuffleRng(seed).getrandbits(bits).");
    m.def(
        "koenig_shuffle",
        [](nb::handle seed, long long size) {
            boundary::narrow<long long>(size, 0, boundary::limits::DRAWS, "size");
            koenig::ShuffleRng rng(seed_state(seed));
            std::vector<long long> items(static_cast<size_t>(size));
            for (long long i = 0; i < size; ++i) items[size_t(i)] = i;
            rng.shuffle(items);
            return items;
        },
        nb::arg("seed").none(), nb::arg("size"), "list(range(size)) shuffled by ShuffleRng(seed).shuffle.");
}

}  // namespace

void bind_koenig(nb::module_ &m) {
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const koenig::IllegalMove &e) {
            PyErr_SetString(PyExc_ValueError, e.message.c_str());
        } catch (const koenig::DeckProblem &e) {
            PyErr_SetString(PyExc_ValueError, e.message.c_str());
        }
    });
    bind_board(m);

    nb::class_<KGame> cls(m, "KoenigGame",
                      "One game of Kardinal & König in C++ on the Python engine's move ids "
                      "(kardinal_env.koenig.Game); build it with kardinal_env.koenig.compiled.core_game.");
    cls
        .def(
            "__init__",
            [](KGame *self, std::shared_ptr<Board> board, long long players, const std::string &discard,
               nb::handle seed, nb::handle deck, nb::handle reshuffle) {
                if (!board) throw nb::type_error("board must be a KoenigBoard");
                if (discard != "one" && discard != "any")
                    throw nb::value_error(("discard must be one of ['one', 'any'], got '" + discard + "'").c_str());
                if (players < 3 || players > 5)
                    throw nb::value_error(("players must be 3, 4 or 5, got " + std::to_string(players)).c_str());
                uint64_t state = seed_state(seed);
                std::optional<std::vector<int>> d, r;
                if (!deck.is_none()) d = card_order(*board, deck, "deck");
                if (!reshuffle.is_none()) r = card_order(*board, reshuffle, "reshuffle");
                try {
                    new (self) KGame(board, int(players), discard == "any", state, d, r);
                } catch (const koenig::DeckProblem &e) {
                    raise_as("kardinal_env.koenig.engine", "DeckError", e.message);
                }
            },
            nb::arg("board"), nb::arg("players"), nb::arg("discard") = "one", nb::arg("seed").none() = nb::none(),
            nb::arg("deck").none() = nb::none(), nb::arg("reshuffle").none() = nb::none(),
            "As Game(Rules(players, discard, board), seed, deck=..., reshuffle=...): the same shuffles "
            "(kardinal_env.core.shuffle), deck and reshuffle as type digits, top first.")
        .def_prop_ro("num_players", [](const KGame &g) { return g.n; })
        .def_prop_ro("current_player",
                     [](const KGame &g) -> std::optional<int> {
                         if (g.is_over()) return std::nullopt;
                         return g.current;
                     })
        .def_prop_ro("phase", [](const KGame &g) { return std::string(koenig::PHASE_NAMES[g.phase]); })
        .def_prop_ro("is_over", &KGame::is_over)
        .def_prop_ro("move_count", &KGame::move_count)
        .def_prop_ro("runouts", [](const KGame &g) { return g.runouts; })
        .def_prop_ro("last_round", [](const KGame &g) { return g.last_round; })
        .def_prop_ro("turn_country",
                     [](const KGame &g) -> std::optional<std::string> {
                         if (g.country < 0) return std::nullopt;
                         return g.board->country_ids[g.country];
                     })
        .def_prop_ro("pieces_this_turn", [](const KGame &g) { return g.pieces; })
        .def_prop_ro("cards_this_turn", [](const KGame &g) { return g.paid + g.discards; })
        .def_prop_ro("board", [](const KGame &g) { return std::const_pointer_cast<Board>(g.board); })
        .def_prop_ro("history", [](const KGame &g) {
            nb::list out;
            for (int m : g.history) out.append(g.board->moves[m]);
            return out;
        })
        .def_prop_ro("history_ids", [](const KGame &g) { return int_list(g.history); })
        .def_prop_ro("initial_deck", [](const KGame &g) { return digits(*g.board, g.deck0); })
        .def_prop_ro("reshuffle_order", [](const KGame &g) { return optional_digits(g, g.reshuffled); })
        .def_prop_ro("reshuffle_plan", [](const KGame &g) { return optional_digits(g, g.plan); },
                     "The reshuffle order given to the constructor (type digits), or None.")
        .def_prop_ro("missed_turns", [](const KGame &g) {
            nb::list out;
            for (auto [moves, seat] : g.missed) out.append(nb::make_tuple(moves, seat));
            return out;
        });
    bind_game_moves(cls);
    bind_game_state(cls);
    cls.def("__repr__", [](const KGame &g) {
            return "KoenigGame(players=" + std::to_string(g.n) + ", phase='" + koenig::PHASE_NAMES[g.phase] +
                   "', current_player=" + (g.is_over() ? std::string("None") : std::to_string(g.current)) +
                   ", moves=" + std::to_string(g.history.size()) + ", deck=" + std::to_string(g.deck.size()) +
                   ", runouts=" + std::to_string(g.runouts) + ")";
        });

    bind_shuffler(m);
    bind_koenig_batch(m);
}
