// The boundary between Python and the core: the one discipline every binding follows, its limits and
// its helpers. No input from Python may crash, hang or silently change the meaning of a call:
//
//  1. Integers are range-checked at full width before any narrowing. A binding takes a Python int as
//     `long long` (nanobind refuses with a TypeError an int that does not fit 64 bits) or as an
//     nb::handle read by `integer`, and narrows only through `narrow`, which checks the documented
//     range and names the argument and the range in its ValueError. Never `int(x)` of a value from
//     Python that has not been through `narrow`.
//  2. Every count and size has an upper bound (`limits` below, exported as kardinal_core.LIMITS and
//     mirrored by kardinal_env.core.limits, which Python checks first where Python allocates per slot),
//     checked before anything is allocated or any search starts.
//  3. Arrays from Python are copied into core-owned memory (`copy_actions`) with the GIL held and
//     checked there; only the copy is read once the GIL is released.
//  4. Floats: NaN and +-inf are refused wherever a float knob enters (`finite`).
//  5. Errors: TypeError for a value of the wrong type, ValueError (or a subclass: IllegalMoveError,
//     DeckError, kardinal_env.core.errors.OutOfRangeError / GameNotOverError) for a wrong value, an
//     index out of range or a call in the wrong state. Nothing else leaves a binding.
//
// tests/test_core_fuzz.py calls every public function and method of kardinal_core with boundary and
// wrong-typed values, each batch of cases in a subprocess, so a signal or a hang is a test failure.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace boundary {

namespace nb = nanobind;

// The upper bounds of every count and size a caller can ask for (kardinal_core.LIMITS).
namespace limits {
constexpr long long SIMULATIONS = 1'000'000;        // a search's simulations per decision
constexpr long long WORLDS = 10'000;                // heuristic playout worlds per candidate move
constexpr long long PLAYOUTS = 1'000'000;           // random_playouts' games per call
constexpr long long NUM_ENVS = 1LL << 20;           // games in one batch
constexpr long long BATCH_BYTES = 8LL << 30;        // a batch's buffers and games together (bytes)
constexpr long long THREADS = 1024;                 // threads of a batch's step/reset
constexpr long long KNOB = 1'000'000;               // small integer knobs: widen, batch, widen_visits, replan
constexpr long long DRAWS = 1'000'000;              // draws of the shuffler's test helpers
}  // namespace limits

// The limits as a dict (kardinal_core.LIMITS).
inline nb::dict limits_dict() {
    nb::dict d;
    d["simulations"] = limits::SIMULATIONS;
    d["worlds"] = limits::WORLDS;
    d["playouts"] = limits::PLAYOUTS;
    d["num_envs"] = limits::NUM_ENVS;
    d["batch_bytes"] = limits::BATCH_BYTES;
    d["threads"] = limits::THREADS;
    d["knob"] = limits::KNOB;
    d["draws"] = limits::DRAWS;
    return d;
}

// `value` (a full-width integer from Python) as T when lo <= value <= hi; ValueError naming `what` and
// the range otherwise.
template <class T = int>
T narrow(long long value, long long lo, long long hi, const std::string &what) {
    if (value < lo || value > hi)
        throw nb::value_error((what + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                               ", got " + std::to_string(value))
                                  .c_str());
    return T(value);
}

// A Python int (bool excluded) at full width, or nullopt for anything else (another type, or an int
// beyond 64 bits).
inline std::optional<long long> integer(nb::handle obj) {
    if (!PyLong_Check(obj.ptr()) || PyBool_Check(obj.ptr())) return std::nullopt;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    if (overflow) return std::nullopt;
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return std::nullopt;
    }
    return v;
}

// `value` if it is finite; ValueError naming `what` otherwise.
inline double finite(double value, const std::string &what) {
    if (!std::isfinite(value)) throw nb::value_error((what + " must be a finite number, got " + std::to_string(value)).c_str());
    return value;
}

// A batch of num_envs games taking bytes_per_game each: ValueError naming the limit unless
// 1 <= num_envs <= limits::NUM_ENVS and the whole fits limits::BATCH_BYTES.
inline int batch_size(long long num_envs, long long bytes_per_game) {
    int n = narrow(num_envs, 1, limits::NUM_ENVS, "num_envs");
    if (bytes_per_game > 0 && num_envs > limits::BATCH_BYTES / bytes_per_game)
        throw nb::value_error(("num_envs " + std::to_string(num_envs) + " needs about " +
                               std::to_string(num_envs * (bytes_per_game >> 10) >> 20) +
                               " GiB of buffers and games, over the limit of " +
                               std::to_string(limits::BATCH_BYTES >> 30) + " GiB (at most " +
                               std::to_string(limits::BATCH_BYTES / bytes_per_game) + " games of these rules)")
                                  .c_str());
    return n;
}

// Raise kardinal_env's exception module.name(message) as the current Python exception (ValueError(message)
// when kardinal_env cannot be imported: the core used on its own).
[[noreturn]] inline void raise_as(const char *module, const char *name, const std::string &message,
                                  nb::handle extra1 = {}, nb::handle extra2 = {}) {
    try {
        nb::object cls = nb::module_::import_(module).attr(name);
        nb::object exc = extra1.is_valid() ? cls(message, extra1, extra2.is_valid() ? nb::borrow(extra2) : nb::none())
                                           : cls(message);
        PyErr_SetObject(cls.ptr(), exc.ptr());
    } catch (nb::python_error &) {
        PyErr_SetString(PyExc_ValueError, message.c_str());
    }
    throw nb::python_error();
}

// An index or seat out of range: kardinal_env.core.errors.OutOfRangeError (a ValueError and an IndexError).
[[noreturn]] inline void out_of_range(const std::string &message) {
    raise_as("kardinal_env.core.errors", "OutOfRangeError", message);
}

// A result asked for before the game is over: kardinal_env.core.errors.GameNotOverError (a ValueError and a
// RuntimeError).
[[noreturn]] inline void not_over(const std::string &message) {
    raise_as("kardinal_env.core.errors", "GameNotOverError", message);
}

// The actions argument of a batch's step(): a C-contiguous int64 array of shape (num_envs,) in CPU
// memory, copied into core-owned memory with the GIL held (another Python thread may write into the
// caller's array while the step runs without the GIL; only the copy is checked and played).
using ActionArray = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

inline std::vector<int64_t> copy_actions(nb::handle actions, int num_envs) {
    ActionArray a;
    if (!nb::try_cast(actions, a, false))
        throw nb::type_error("actions must be a C-contiguous numpy int64 array of shape (num_envs,)");
    if (a.shape(0) != size_t(num_envs))
        throw nb::value_error(
            ("actions must have shape (" + std::to_string(num_envs) + ",), got (" + std::to_string(a.shape(0)) + ",)")
                .c_str());
    return std::vector<int64_t>(a.data(), a.data() + a.shape(0));
}

}  // namespace boundary
