// What kardinal/bindings.cpp shares with kardinal/search_bindings.cpp.
#pragma once

#include <nanobind/nanobind.h>

#include "kardinal/engine.hpp"

namespace kardinal_bindings {

// The move code of m: the one shared Python tuple per code that legal_move_codes() hands out.
nanobind::tuple code_tuple(const kardinal::Move &m);

}  // namespace kardinal_bindings
