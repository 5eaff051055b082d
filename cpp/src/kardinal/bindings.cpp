// Python bindings of the Kardinal engine (bind_kardinal, called by module.cpp): KardinalGame and KardinalBatch
// (its searches: search_bindings.cpp).
//
// KardinalGame mirrors kardinal_env.kardinal.Game on move codes: legal_move_codes() returns the same
// tuples in the same order; play_code / apply_legal_code check the code against them and raise
// TypeError (not a tuple of five ints) or ValueError (not legal now); nothing reaches the engine
// unchecked, so no input can crash the interpreter. encode_into / action_mask_into / legal_action_ids
// (observation.hpp) write the Python ObservationEncoder's and ActionCodec's output into caller-owned
// NumPy buffers, checked the same way.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "kardinal/engine.hpp"
#include "kardinal/bindings.hpp"
#include "common/boundary.hpp"
#include "common/buffers.hpp"
#include "kardinal/observation.hpp"

namespace nb = nanobind;
using kardinal::Game;
using kardinal::Move;

namespace {

const char *const PHASE_NAMES[4] = {"build", "chip", "cardinal", "over"};

// One Python tuple per distinct move code, made once and shared: legal_move_codes() then costs a
// list of borrowed references instead of five new ints and a tuple per move.
class TupleCache {
  public:
    PyObject *get(const Move &m) {
        size_t slot = index(m);
        if (slots_.empty()) slots_.assign(SLOTS, nullptr);
        PyObject *&t = slots_[slot];
        if (!t) {
            t = Py_BuildValue("(iiiii)", int(m.kind), int(m.shape), int(m.colour), int(m.k1), int(m.k2));
            if (!t) throw nb::python_error();
        }
        return t;
    }

  private:
    static constexpr size_t KEYS = kardinal::KEY_LIMIT;
    // builds: ((shape * 4 + colour) * 2 + direction) * KEYS + k1; then cardinal (KEYS + 1: C-), then chips
    static constexpr size_t BUILD_SLOTS = 3 * 4 * 2 * KEYS;
    static constexpr size_t SLOTS = BUILD_SLOTS + KEYS + 1 + 4;
    std::vector<PyObject *> slots_;  // never freed: the module lives as long as the interpreter

    static size_t index(const Move &m) {
        if (m.kind == kardinal::BUILD) {
            size_t dir = (m.k2 >= 0 && m.k2 == m.k1 + kardinal::KEY_STRIDE) ? 1 : 0;
            return ((size_t(m.shape) * 4 + size_t(m.colour)) * 2 + dir) * KEYS + size_t(m.k1);
        }
        if (m.kind == kardinal::CARDINAL) return BUILD_SLOTS + (m.k1 < 0 ? KEYS : size_t(m.k1));
        return BUILD_SLOTS + KEYS + 1 + size_t(m.colour);
    }
};

TupleCache &tuples() {
    static TupleCache cache;
    return cache;
}

// A move code from Python: a tuple of five ints, each in a range a code can hold.
Move parse_code(nb::handle code) {
    PyObject *t = code.ptr();
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 5)
        throw nb::type_error("a move code is a tuple of five ints (kind, shape, colour, square1, square2)");
    long v[5];
    for (int i = 0; i < 5; ++i) {
        PyObject *item = PyTuple_GET_ITEM(t, i);
        if (!PyLong_Check(item)) throw nb::type_error("a move code is a tuple of five ints");
        int overflow = 0;
        long x = PyLong_AsLongAndOverflow(item, &overflow);
        if (x == -1 && PyErr_Occurred()) throw nb::python_error();
        if (overflow || x < -1 || x >= kardinal::KEY_LIMIT) {
            std::string repr = nb::cast<std::string>(nb::repr(code));
            throw nb::value_error(("illegal move code " + repr + ": a value is out of range").c_str());
        }
        v[i] = x;
    }
    return Move{int8_t(std::clamp(v[0], -1L, 100L)), int8_t(std::clamp(v[1], -1L, 100L)),
                int8_t(std::clamp(v[2], -1L, 100L)), int16_t(v[3]), int16_t(v[4])};
}

void play_checked(Game &g, nb::handle code) {
    Move m = parse_code(code);
    if (g.is_over()) throw nb::value_error("game over: the game is over; no move is legal");
    if (g.index_of(m) < 0) {
        std::string repr = nb::cast<std::string>(nb::repr(code));
        throw nb::value_error(("illegal move code " + repr + ": not one of legal_move_codes() in phase " +
                               PHASE_NAMES[g.phase()] + ", seat " + std::to_string(g.current()))
                                  .c_str());
    }
    g.apply(m);
}

void require_over(const Game &g, const char *what) {
    if (!g.is_over()) boundary::not_over(std::string(what) + " is only defined once the game is over");
}

nb::list int_list(const int *values, int n) {
    nb::list out;
    for (int i = 0; i < n; ++i) out.append(values[i]);
    return out;
}

using boundary::finite;

}  // namespace

nb::tuple kardinal_bindings::code_tuple(const Move &m) { return nb::borrow<nb::tuple>(tuples().get(m)); }
using kardinal_bindings::code_tuple;

// ==================================================================== observation and mask buffers
// Helpers of KardinalGame.encode_into / action_mask_into / legal_action_ids (observation.hpp): the
// caller's array is taken only as it is (no implicit conversion, which would write into a copy), and
// anything else is refused with a TypeError (not an array, wrong dtype) or a ValueError (wrong shape,
// not C-contiguous, read-only, a window the Python encoder refuses) that names the problem.
namespace {

using ObservationArray = nb::ndarray<uint8_t, nb::shape<kardinal::OBS_CHANNELS, -1, -1>, nb::c_contig, nb::device::cpu>;

using buffers::AnyArray;
using buffers::refuse_buffer;

bool is_uint8(nb::dlpack::dtype d) { return d == nb::dtype<uint8_t>(); }
bool observation_shape(const AnyArray &a) {
    return a.ndim() == 3 && a.shape(0) == size_t(kardinal::OBS_CHANNELS) && a.shape(1) == a.shape(2);
}

void check_seat(const Game &g, long long seat, const char *what) {
    int n = g.num_players();
    if (seat < 0 || seat >= n)
        throw nb::value_error((std::string(what) + " " + std::to_string(seat) + " is out of range: a " +
                               std::to_string(n) + "-player game has seats 0.." + std::to_string(n - 1))
                                  .c_str());
}

void check_window_of(const Game &g, long long window) {
    std::string error = kardinal::window_error(g.rules, window);
    if (!error.empty()) throw nb::value_error(error.c_str());
}

// The window of an action mask of length 17*W*W + 5; ValueError when no window has that many actions.
int mask_window(const Game &g, size_t length) {
    long long w = 0;
    if (length >= size_t(kardinal::NON_SPATIAL_ACTIONS) &&
        (length - kardinal::NON_SPATIAL_ACTIONS) % kardinal::SPATIAL_ACTION_PLANES == 0) {
        long long area = (long long)(length - kardinal::NON_SPATIAL_ACTIONS) / kardinal::SPATIAL_ACTION_PLANES;
        w = (long long)std::llround(std::sqrt(double(area)));
        if (w * w != area) w = 0;
    }
    int frame = kardinal::frame_window(g.rules);
    if (w == 0)
        throw nb::value_error(("out must have 17*W*W + 5 entries for the window W (" +
                               std::to_string(kardinal::num_actions(frame)) + " for this game's window " +
                               std::to_string(frame) + "), got length " + std::to_string(length))
                                  .c_str());
    check_window_of(g, w);
    return int(w);
}

}  // namespace

// ==================================================================== batched games (batch.hpp)
// KardinalBatch: N games stepped together for kardinal_env.vector's "core" backend. Everything of this
// section is new and separate from KardinalGame's bindings above (which it does not change): the batch
// owns its output buffers (allocated once) and hands them to NumPy as arrays whose owner is the batch
// object, so they stay valid as long as any of them lives; reset() and step() release the GIL and may
// split the games over std::threads. step() first checks every action against its game's legal ids and
// returns the first game whose action is not legal (-1: all legal, every game moved), so an illegal
// action changes nothing; kardinal_env.vector turns that index into the engine's error naming the rule.
#include "kardinal/batch.hpp"
#include "common/batch_bindings.hpp"

namespace {

using batch_bindings::BusyGuard;
using batch_bindings::check_threads;
using batch_bindings::int64_array;

constexpr const char *BATCH_NAME = "KardinalBatch";

struct PyBatch : kardinal::Batch, batch_bindings::BusyFlag {
    using kardinal::Batch::Batch;
};

int check_index(const PyBatch &b, long long i) {
    batch_bindings::check_idle(b, BATCH_NAME);
    return batch_bindings::check_index(i, b.num_envs());
}

void bind_batch(nb::module_ &m) {
    nb::class_<PyBatch> cls(m, "KardinalBatch",
                            "N Kardinal games stepped together in C++ (kardinal_env.vector's core backend; see there).");
    batch_bindings::bind_common_arrays<PyBatch>(cls);
    cls.def(
            "__init__",
            [](PyBatch *self, const Game &start, long long num_envs, const std::string &reward, double chip_shaping,
               double score_shaping) {
                if (start.move_count() != 0)
                    throw nb::value_error("KardinalBatch needs a game at its start (no move played) as the template");
                const long long window = kardinal::frame_window(start.rules);
                const long long per_game = 2 * kardinal::OBS_CHANNELS * window * window + kardinal::num_actions(int(window)) +
                                           (long long)(sizeof(Game) + 2 * sizeof(kardinal::ObservationParts)) + 256;
                const int n = boundary::batch_size(num_envs, per_game);
                int scheme;
                if (reward == "win_loss") scheme = kardinal::REWARD_WIN_LOSS;
                else if (reward == "margin") scheme = kardinal::REWARD_MARGIN;
                else throw nb::value_error(("reward must be one of ['win_loss', 'margin'], got '" + reward + "'").c_str());
                finite(chip_shaping, "chip_shaping");
                finite(score_shaping, "score_shaping");
                new (self) PyBatch(start.rules, n, scheme, chip_shaping, score_shaping);
            },
            nb::arg("start"), nb::arg("num_envs"), nb::arg("reward") = "win_loss", nb::arg("chip_shaping") = 0.0,
            nb::arg("score_shaping") = 0.0,
            "A batch of num_envs games with the rules of start (a KardinalGame with no move played; "
            "kardinal_env.kardinal.compiled.game_of_module makes one from Rules). reward: 'win_loss' or "
            "'margin'; chip_shaping: reward per chip the acting seat takes (kardinal_v0's rewards); score_shaping: "
            "times the change of the acting seat's projected margin (rewards.ShapingTracker). The "
            "games start at the position of reset(), which must be called before step().")
        .def_prop_ro("window", &PyBatch::window);
    auto window_shape = [](const PyBatch &b) {
        size_t n = size_t(b.num_envs()), w = size_t(b.window());
        return std::vector<size_t>{n, size_t(kardinal::OBS_CHANNELS), w, w};
    };
    batch_bindings::def_view<uint8_t, PyBatch>(
        cls, "observation", &PyBatch::observation, window_shape,
        "(N, 72, W, W) uint8: each game's observation of the seat to act (a view of the batch's buffer).");
    batch_bindings::def_view<bool, PyBatch>(cls, "action_mask", &PyBatch::action_mask,
                                            batch_bindings::per_action<PyBatch>,
                                            "(N, 17 W W + 5) bool: the legal actions of the seat to act.");
    batch_bindings::def_view<uint8_t, PyBatch>(
        cls, "final_observation", &PyBatch::final_observation, window_shape,
        "(N, 72, W, W) uint8: a game's final position seen by final_player, written when it ends.");
    cls
        .def(
            "reset",
            [](PyBatch &b, long long threads) {
                int k = check_threads(threads);
                BusyGuard guard(b, BATCH_NAME);
                nb::gil_scoped_release release;
                b.reset(k);
            },
            nb::arg("threads") = 0,
            "Every game back to its start; the buffers show the first decisions (rewards and terminated 0).")
        .def(
            "step",
            [](PyBatch &b, nb::handle actions, long long threads) {
                int k = check_threads(threads);
                std::vector<int64_t> copy = boundary::copy_actions(actions, b.num_envs());
                BusyGuard guard(b, BATCH_NAME);
                const int64_t *data = copy.data();  // the core's own copy: only it is checked and played
                long long bad;
                {
                    nb::gil_scoped_release release;
                    bad = b.find_illegal(data);
                    if (bad < 0) b.step(k);
                }
                return bad;
            },
            nb::arg("actions"), nb::arg("threads") = 0,
            "Play actions[i] in game i for every game (threads: split the games over that many threads; 0 "
            "or 1: the calling thread), auto-resetting the games that end. Returns -1; or, when some action "
            "is not a legal id of its game, the first such game's index, having changed nothing.")
        .def(
            "legal_action_ids",
            [](PyBatch &b, long long i) { return int64_array(b.legal_ids(check_index(b, i))); },
            nb::arg("index"), "The legal action ids of game index's decision (a new int64 array), in legal order.")
        .def(
            "all_legal_action_ids",
            [](PyBatch &b) {
                batch_bindings::check_idle(b, BATCH_NAME);
                std::vector<long long> ids, offsets{0};
                for (int i = 0; i < b.num_envs(); ++i) {
                    const auto &g = b.legal_ids(i);
                    ids.insert(ids.end(), g.begin(), g.end());
                    offsets.push_back((long long)ids.size());
                }
                return nb::make_tuple(int64_array(ids), int64_array(offsets));
            },
            "Every game's legal action ids at once: (ids, offsets), game i's being ids[offsets[i]:offsets[i+1]].")
        .def(
            "game",
            [](PyBatch &b, long long i) { return Game(b.game(check_index(b, i))); },
            nb::arg("index"), "A copy of game index (a new KardinalGame; the batch's game is not touched).")
        .def(
            "history_codes",
            [](PyBatch &b, long long i) {
                nb::list out;
                for (const Move &m : b.history(check_index(b, i))) out.append(code_tuple(m));
                return out;
            },
            nb::arg("index"), "The move codes game index has played since its start (a new list).");
}

// KardinalGame: the decision, moves, chips, results and copies.
void bind_game_moves(nb::class_<Game> &cls) {
    cls
        .def(
            "legal_move_codes",
            [](Game &g) {
                const auto &moves = g.legal();
                PyObject *list = PyList_New(Py_ssize_t(moves.size()));
                if (!list) throw nb::python_error();
                nb::list out = nb::steal<nb::list>(list);
                for (size_t i = 0; i < moves.size(); ++i) {
                    PyObject *t = tuples().get(moves[i]);
                    Py_INCREF(t);
                    PyList_SET_ITEM(list, Py_ssize_t(i), t);
                }
                return out;
            },
            "Legal moves of the current decision as move codes, in the Python engine's order (a new list).")
        .def("num_legal_moves", [](Game &g) { return g.legal().size(); })
        .def(
            "play_index",
            [](Game &g, long i) {
                const auto &moves = g.legal();
                if (i < 0 || size_t(i) >= moves.size())
                    boundary::out_of_range("move index " + std::to_string(i) + " out of range (" +
                                           std::to_string(moves.size()) + " legal moves)");
                g.apply(moves[size_t(i)]);
            },
            nb::arg("index"), "Play the legal move at this position of legal_move_codes().")
        .def(
            "play_action",
            [](Game &g, long long action) -> nb::object {
                // The id is compared with the legal ids (as wide integers: nothing is narrowed), so any
                // value that is not one plays nothing; the caller explains the refusal.
                if (g.is_over()) return nb::none();
                std::vector<long long> ids;
                kardinal::legal_action_ids(g, kardinal::frame_window(g.rules), ids);
                auto at = std::find(ids.begin(), ids.end(), action);
                if (at == ids.end()) return nb::none();
                const Move move = g.legal()[size_t(at - ids.begin())];
                nb::object code = code_tuple(move);
                g.apply(move);
                return code;
            },
            nb::arg("action"),
            "Play the legal move whose action id (ActionCodec(rules) at frame_window, for the deciding seat) "
            "is action and return its move code; None, playing nothing, when action is not a legal id now.")
        .def("play_code", &play_checked, nb::arg("code").none(),
             "Play a legal move code; TypeError for a malformed code, ValueError for an illegal one.")
        .def("apply_legal_code", &play_checked, nb::arg("code").none(),
             "Same as play_code: the core checks every code (the check is a scan of the cached legal moves).")
        .def("is_legal_code",
             [](Game &g, nb::handle code) {
                 try {
                     return g.index_of(parse_code(code)) >= 0;
                 } catch (const nb::builtin_exception &) {
                     return false;
                 }
             },
             nb::arg("code").none(), "Whether code is one of legal_move_codes() (False for anything malformed).")
        .def("chips",
             [](const Game &g) {
                 nb::list out;
                 for (int s = 0; s < g.num_players(); ++s) {
                     int h[4] = {g.held(s, 0), g.held(s, 1), g.held(s, 2), g.held(s, 3)};
                     out.append(int_list(h, 4));
                 }
                 return out;
             })
        .def("chips_held",
             [](const Game &g, long long seat) {
                 if (seat < 0 || seat >= g.num_players())
                     boundary::out_of_range("seat " + std::to_string(seat) + " out of range (0.." +
                                            std::to_string(g.num_players() - 1) + ")");
                 return g.held(int(seat), 0) + g.held(int(seat), 1) + g.held(int(seat), 2) + g.held(int(seat), 3);
             })
        .def("supply",
             [](const Game &g) {
                 int v[4] = {g.supply(0), g.supply(1), g.supply(2), g.supply(3)};
                 return int_list(v, 4);
             })
        .def("set_aside",
             [](const Game &g) {
                 int v[4] = {g.aside(0), g.aside(1), g.aside(2), g.aside(3)};
                 return int_list(v, 4);
             })
        .def("edifices_left",
             [](const Game &g) {
                 nb::list out;
                 for (int c = 0; c < 4; ++c) {
                     int v[3] = {g.inventory(3 * c), g.inventory(3 * c + 1), g.inventory(3 * c + 2)};
                     out.append(int_list(v, 3));
                 }
                 return out;
             })
        .def("cathedral_touches",
             [](const Game &g) {
                 int v[4];
                 for (int s = 0; s < g.num_players(); ++s) v[s] = g.cathedral_touches(s);
                 return int_list(v, g.num_players());
             })
        .def("projected_scores",
             [](const Game &g) {
                 int v[4];
                 for (int s = 0; s < g.num_players(); ++s) v[s] = g.projected_score(s);
                 return int_list(v, g.num_players());
             })
        .def_prop_ro("last_built",
                     [](const Game &g) -> std::optional<nb::tuple> {
                         if (g.last_shape() < 0) return std::nullopt;
                         return nb::make_tuple(g.last_shape(), g.last_colour());
                     })
        .def("scores",
             [](const Game &g) {
                 require_over(g, "scores()");
                 int v[4];
                 for (int s = 0; s < g.num_players(); ++s) v[s] = g.score(s);
                 return int_list(v, g.num_players());
             })
        .def("winners",
             [](const Game &g) {
                 require_over(g, "winners()");
                 return int_list(g.winners().data(), int(g.winners().size()));
             })
        .def("finishing_order",
             [](const Game &g) {
                 require_over(g, "finishing_order()");
                 int n = g.num_players();
                 std::vector<int> seats(size_t(n), 0);
                 std::iota(seats.begin(), seats.end(), 0);
                 auto key = [&](int s) { return std::make_pair(g.score(s), g.cathedral_touches(s)); };
                 std::stable_sort(seats.begin(), seats.end(), [&](int a, int b) { return key(a) > key(b); });
                 nb::list out;
                 nb::list group;
                 for (int i = 0; i < n; ++i) {
                     if (i > 0 && key(seats[size_t(i)]) != key(seats[size_t(i) - 1])) {
                         out.append(group);
                         group = nb::list();
                     }
                     group.append(seats[size_t(i)]);
                 }
                 out.append(group);
                 return out;
             })
        .def("clone", [](const Game &g) { return Game(g); }, "An independent copy.");
}

// KardinalGame: the queries of the Python Game (kardinal_env/kardinal/core_game.py: the public Game API backed by this engine).
void bind_game_queries(nb::class_<Game> &cls) {
    cls
        // ============================================================ queries of the Python Game
        // (kardinal_env/kardinal/core_game.py: the public Game API backed by this engine)
        .def(
            "buildings",
            [](const Game &g) {
                nb::list out;
                for (int b = 0; b < g.num_buildings(); ++b)
                    out.append(nb::make_tuple(g.building_shape(b), g.building_colour(b), g.building_builder(b),
                                              g.building_square(b, 0), g.building_square(b, 1)));
                return out;
            },
            "Every building as (shape, colour, builder, key1, key2): the nave and the clock tower first "
            "(colour and builder -1), then the edifices in build order (key2 -1 for one square).")
        .def(
            "site_summaries",
            [](const Game &g) {
                nb::dict out;
                for (int16_t k : g.site_keys()) {
                    int bits = g.site_bits(k);
                    if (bits) out[nb::int_(int(k))] = bits;
                }
                return out;
            },
            "The sites as a new dict key -> neighbour bit summary, in the order they became sites (the "
            "Python engine's site table).")
        .def(
            "cardinal_target_keys",
            [](const Game &g) {
                std::vector<int> keys;
                for (int16_t k : g.site_keys())
                    if (g.site_bits(k) && k != g.cardinal_key()) keys.push_back(k);
                std::sort(keys.begin(), keys.end());
                nb::list out;
                for (int k : keys) out.append(k);
                return out;
            },
            "Square keys the cardinal may be moved to now (ascending), whatever the phase.")
        .def("is_cardinal_target", [](const Game &g, long long key) {
                 return key >= 0 && key < kardinal::KEY_LIMIT && g.is_cardinal_target(int(key));
             }, nb::arg("key"), "Whether the cardinal may be moved to square key now: a site, not its own square.")
        .def(
            "projected_holdings",
            [](const Game &g, long long seat) {
                check_seat(g, seat, "seat");
                int h[4];
                g.projected_holdings(int(seat), h);
                return int_list(h, 4);
            },
            nb::arg("seat"), "Chips per colour seat would hold if the game ended now (Game.projected_holdings).")
        .def(
            "builds_for",
            [](Game &g, long long seat, bool ignore_cardinal) {
                check_seat(g, seat, "seat");
                std::vector<Move> moves;
                g.builds_of(int(seat), ignore_cardinal ? -1 : g.cardinal_key(), moves);
                nb::list out;
                for (const Move &m : moves) out.append(code_tuple(m));
                return out;
            },
            nb::arg("seat"), nb::arg("ignore_cardinal") = false,
            "Every build seat could make now as if on turn (Game.builds_for), a new list of move codes.")
        .def(
            "next_builder",
            [](Game &g, bool ignore_cardinal) {
                std::vector<Move> moves;
                int seat = g.next_builder(ignore_cardinal, moves);
                nb::list out;
                for (const Move &m : moves) out.append(code_tuple(m));
                if (seat < 0) return nb::make_tuple(nb::none(), nb::list());
                return nb::make_tuple(seat, out);
            },
            nb::arg("ignore_cardinal") = false,
            "Game.next_builder: (seat, its builds) of the first following seat with a build, (None, []) "
            "when none has.")
        .def(
            "build_chips",
            [](const Game &g, nb::handle code) {
                Move m = parse_code(code);
                auto interior = [](int k) {
                    int x = k / kardinal::KEY_STRIDE, y = k % kardinal::KEY_STRIDE;
                    return x >= 1 && x < kardinal::KEY_STRIDE - 1 && y >= 1 && y < kardinal::KEY_STRIDE - 1;
                };
                if (m.kind != kardinal::BUILD || !interior(m.k1) || (m.k2 >= 0 && !interior(m.k2)) ||
                    (m.k2 < 0 && m.k2 != -1))
                    throw nb::value_error(("build_chips needs a build move code, got " +
                                           nb::cast<std::string>(nb::repr(code)))
                                              .c_str());
                kardinal::BuildGain gain = g.build_chips(m);
                int touched[8];
                int count = g.touched_in_order(m, touched);
                nb::list ids, colours;
                for (int i = 0; i < count; ++i) {
                    ids.append(touched[i]);
                    colours.append(g.building_colour(touched[i]));
                }
                return nb::make_tuple(ids, colours, int_list(gain.colours, 4), gain.substitutes, gain.set_aside,
                                      gain.touches_cathedral);
            },
            nb::arg("code"),
            "What the build code would score for the seat on turn now (Game.build_chips): (touched building "
            "ids in the Python engine's order, their colours (-1: the cathedral), regular chips per colour, "
            "substitutes, set_aside, touches_cathedral).");
}

// KardinalGame: the observation and the action mask written into caller-owned buffers (observation.hpp).
void bind_game_observation(nb::class_<Game> &cls) {
    cls
        // ============================================================ observation and action mask
        // (observation.hpp) ObservationEncoder.encode and ActionCodec.action_mask / legal_actions
        // written into caller-owned NumPy buffers, byte for byte as the Python reference.
        .def_prop_ro("frame_window", [](const Game &g) { return kardinal::frame_window(g.rules); },
                     "The window W the encoder and the codec frame this game with (actions.frame_window: the "
                     "rules' window variant, else the lossless 53).")
        .def(
            "encode_into",
            [](const Game &g, long long observer, nb::handle out) {
                check_seat(g, observer, "observer");
                ObservationArray arr;
                if (!nb::try_cast(out, arr, false))
                    refuse_buffer(out, "a writable C-contiguous numpy.uint8 array of shape (72, W, W)", is_uint8,
                                  "uint8", observation_shape, "(72, W, W)");
                if (arr.shape(1) != arr.shape(2))
                    throw nb::value_error(("out must have shape (72, W, W), got (72, " + std::to_string(arr.shape(1)) +
                                           ", " + std::to_string(arr.shape(2)) + ")")
                                              .c_str());
                check_window_of(g, (long long)arr.shape(1));
                kardinal::ObservationParts parts;
                kardinal::observe(g, int(observer), int(arr.shape(1)), parts);
                uint8_t *data = arr.data();
                {
                    nb::gil_scoped_release release;
                    kardinal::write_observation(parts, data);
                }
            },
            nb::arg("observer"), nb::arg("out").none(),
            "Write ObservationEncoder(rules, W).encode(game, observer) into out, a writable C-contiguous "
            "numpy.uint8 array of shape (72, W, W) (W: frame_window, the only window the Python encoder "
            "accepts for these rules); every byte of out is written, nothing is allocated, returns None. "
            "TypeError: not an array, or not uint8; ValueError: another shape or window, not C-contiguous, "
            "read-only, observer out of range. A finished game encodes as in Python.")
        .def(
            "action_mask_into",
            [](Game &g, nb::handle out, std::optional<long long> seat) {
                if (seat) check_seat(g, *seat, "seat");
                auto [data, length] = buffers::mask_buffer(out, "(17*W*W + 5,)");
                int window = mask_window(g, length);
                std::vector<long long> ids;
                if (!g.is_over() && (!seat || *seat == g.current())) kardinal::legal_action_ids(g, window, ids);
                {
                    nb::gil_scoped_release release;
                    kardinal::write_action_mask(ids, window, data);
                }
            },
            nb::arg("out").none(), nb::arg("seat").none() = nb::none(),
            "Write ActionCodec(rules, W).action_mask(game, seat) into out, a writable C-contiguous numpy "
            "bool (or int8) array of length 17*W*W + 5 (W: frame_window): ones at legal_action_ids(W) when "
            "seat (default: the deciding seat) decides now, zeros everywhere else and once the game is over. "
            "Returns None. TypeError: not an array, or not bool/int8; ValueError: another length or window, "
            "not C-contiguous, read-only, seat out of range.")
        .def(
            "legal_action_ids",
            [](Game &g, std::optional<long long> window) {
                long long w = window ? *window : kardinal::frame_window(g.rules);
                check_window_of(g, w);
                std::vector<long long> ids;
                kardinal::legal_action_ids(g, int(w), ids);
                int64_t *data = new int64_t[ids.size() ? ids.size() : 1];
                std::copy(ids.begin(), ids.end(), data);
                nb::capsule owner(data, [](void *p) noexcept { delete[] static_cast<int64_t *>(p); });
                return nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(data, {ids.size()}, owner);
            },
            nb::arg("window").none() = nb::none(),
            "ActionCodec(rules, window).legal_actions(game): the action ids of the current decision's legal "
            "moves for the deciding seat, in the order of legal_move_codes(), as a new numpy int64 array "
            "(empty once the game is over). window: default frame_window; ValueError for one the Python "
            "codec refuses.");;
}

}  // namespace

void bind_kardinal(nb::module_ &m) {

    nb::class_<Game> cls(m, "KardinalGame",
                     "One game of Kardinal in C++, on the Python engine's move codes (kardinal_env.kardinal.Game).");
    cls
        .def(
            "__init__",
            [](Game *self, int players, bool shared_pool, const std::string &exhausted_colour,
               const std::string &neutral_build_chips, const std::string &neutral_touch_chips,
               std::optional<int> window) {
                kardinal::Rules r;
                r.players = players;
                r.shared_pool = shared_pool;
                if (exhausted_colour != "none" && exhausted_colour != "substitute")
                    throw nb::value_error("exhausted_colour must be 'none' or 'substitute'");
                if (neutral_build_chips != "put_aside" && neutral_build_chips != "keep")
                    throw nb::value_error("neutral_build_chips must be 'put_aside' or 'keep'");
                if (neutral_touch_chips != "score" && neutral_touch_chips != "none")
                    throw nb::value_error("neutral_touch_chips must be 'score' or 'none'");
                r.substitute = exhausted_colour == "substitute";
                r.neutral_put_aside = neutral_build_chips == "put_aside";
                r.neutral_touch_score = neutral_touch_chips == "score";
                if (window && *window == 0) throw nb::value_error("window must be None or an odd integer from 3 to 53");
                r.window = window ? *window : 0;
                new (self) Game(r);
            },
            nb::arg("players"), nb::arg("shared_pool") = false, nb::arg("exhausted_colour") = "none",
            nb::arg("neutral_build_chips") = "put_aside", nb::arg("neutral_touch_chips") = "score",
            nb::arg("window").none() = nb::none())
        .def_prop_ro("num_players", &Game::num_players)
        .def_prop_ro("current_player",
                     [](const Game &g) -> std::optional<int> {
                         if (g.is_over()) return std::nullopt;
                         return g.current();
                     })
        .def_prop_ro("phase", [](const Game &g) { return std::string(PHASE_NAMES[g.phase()]); })
        .def_prop_ro("is_over", &Game::is_over)
        .def_prop_ro("move_count", &Game::move_count)
        .def_prop_ro("cardinal_key", &Game::cardinal_key)
        .def_prop_ro("pending_chips", &Game::pending)
        .def_prop_ro("current_seat", &Game::current,
                     "The seat on turn, kept once the game is over (the last seat that played; LiveView.current).");
    bind_game_moves(cls);
    bind_game_queries(cls);
    bind_game_observation(cls);
    cls.def("__repr__", [](const Game &g) {
            std::string cur = g.is_over() ? "None" : std::to_string(g.current());
            return "KardinalGame(players=" + std::to_string(g.num_players()) + ", phase='" + PHASE_NAMES[g.phase()] +
                   "', current_player=" + cur + ", moves=" + std::to_string(g.move_count()) + ")";
        });
    bind_batch(m);
}
