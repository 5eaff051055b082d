// Binding helpers shared by the batched games' Python classes (KardinalBatch in kardinal/bindings.cpp, KoenigBatch
// in koenig/bindings.cpp): the busy flag that refuses a second call while one runs without the GIL,
// the threads argument, NumPy views of a batch's own buffers and new int64 arrays.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/boundary.hpp"

namespace batch_bindings {

namespace nb = nanobind;

// One reset/step at a time per batch (they run without the GIL); `name` names the class in errors.
struct BusyFlag {
    std::atomic<bool> busy{false};
};

[[noreturn]] inline void refuse_busy(const char *name) {
    throw std::runtime_error(std::string(name) + ": another thread is stepping or resetting this batch");
}

inline void check_idle(const BusyFlag &f, const char *name) {
    if (f.busy.load()) refuse_busy(name);
}

// Marks the batch busy for one call; a second call meanwhile (another Python thread) is refused.
class BusyGuard {
  public:
    BusyGuard(BusyFlag &f, const char *name) : f_(f) {
        bool expected = false;
        if (!f_.busy.compare_exchange_strong(expected, true)) refuse_busy(name);
    }
    ~BusyGuard() { f_.busy.store(false); }
    BusyGuard(const BusyGuard &) = delete;
    BusyGuard &operator=(const BusyGuard &) = delete;

  private:
    BusyFlag &f_;
};

inline int check_threads(long long threads) { return boundary::narrow(threads, 0, boundary::limits::THREADS, "threads"); }

inline int check_index(long long i, int num_envs) {
    if (i < 0 || i >= num_envs)
        boundary::out_of_range("game index " + std::to_string(i) + " is out of range: the batch has games 0.." +
                               std::to_string(num_envs - 1));
    return int(i);
}

// A NumPy array over a batch's own buffer; the batch object (owner) lives as long as the array.
template <class T, class Storage>
nb::ndarray<nb::numpy, T> buffer_view(nb::handle owner, Storage &storage, const std::vector<size_t> &dims) {
    return nb::ndarray<nb::numpy, T>(reinterpret_cast<T *>(storage.data()), dims.size(), dims.data(), owner);
}

// The shapes of most views: one entry per game, one per game and seat, or one per game and action.
template <class Batch>
std::vector<size_t> per_game(const Batch &b) {
    return {size_t(b.num_envs())};
}
template <class Batch>
std::vector<size_t> per_seat(const Batch &b) {
    return {size_t(b.num_envs()), size_t(b.players())};
}
template <class Batch>
std::vector<size_t> per_action(const Batch &b) {
    return {size_t(b.num_envs()), size_t(b.action_count())};
}

// The read-only property `name` of the bound class of Batch: the batch's buffer `member` as a NumPy view
// (buffer_view) of T with the dimensions shape(batch). Every array either batch hands out is bound so.
template <class T, class Batch, class Class, class Owner, class Storage, class Shape>
void def_view(Class &cls, const char *name, Storage Owner::*member, Shape shape, const char *doc) {
    cls.def_prop_ro(
        name,
        [member, shape](nb::handle self) {
            Batch &b = nb::cast<Batch &>(self);
            return buffer_view<T>(self, b.*member, shape(b));
        },
        doc);
}

// A new int64 NumPy array holding values.
template <class Values>
nb::ndarray<nb::numpy, int64_t, nb::ndim<1>> int64_array(const Values &values) {
    const size_t size = size_t(values.end() - values.begin());
    int64_t *data = new int64_t[size ? size : 1];
    std::copy(values.begin(), values.end(), data);
    nb::capsule owner(data, [](void *p) noexcept { delete[] static_cast<int64_t *>(p); });
    return nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(data, {size}, owner);
}

// What both batches offer under the same names and shapes: their sizes, and NumPy views of their
// buffers (each batch binds its observation, mask and final observation itself): the seat to act, the
// rewards, terminated, and the final scores, winners, move count and player of the game that ended last
// in each slot.
template <class Batch, class Class>
void bind_common_arrays(Class &cls) {
    cls.def_prop_ro("num_envs", [](const Batch &b) { return b.num_envs(); })
        .def_prop_ro("num_players", [](const Batch &b) { return b.players(); })
        .def_prop_ro("num_actions", [](const Batch &b) { return b.action_count(); });
    def_view<int64_t, Batch>(cls, "current_player", &Batch::current_player, per_game<Batch>,
                             "(N,) int64: the seat to act in each game.");
    def_view<float, Batch>(cls, "rewards", &Batch::rewards, per_seat<Batch>,
                           "(N, players) float32: every seat's reward from the last step's move.");
    def_view<bool, Batch>(cls, "terminated", &Batch::terminated, per_game<Batch>,
                          "(N,) bool: the game ended with the last step's move (and the slot started its next game "
                          "in the same step).");
    def_view<int32_t, Batch>(cls, "final_scores", &Batch::final_scores, per_seat<Batch>,
                             "(N, players) int32: the final scores of the game that ended last in each slot.");
    def_view<bool, Batch>(cls, "final_winners", &Batch::final_winners, per_seat<Batch>,
                          "(N, players) bool: its winners.");
    def_view<int32_t, Batch>(cls, "final_moves", &Batch::final_moves, per_game<Batch>,
                             "(N,) int32: its number of moves.");
    def_view<int32_t, Batch>(cls, "final_player", &Batch::final_player, per_game<Batch>,
                             "(N,) int32: the seat whose move ended it (-1: none yet).");
}

}  // namespace batch_bindings
