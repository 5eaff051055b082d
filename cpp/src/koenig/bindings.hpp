// What koenig/bindings.cpp shares with koenig/search_bindings.cpp.
#pragma once

#include <nanobind/nanobind.h>

#include <random>
#include <string>
#include <vector>

#include "koenig/engine.hpp"

namespace koenig_bindings {

namespace nb = nanobind;

// kardinal_env.core.shuffle.seed_state: an int (taken mod 2**64), a str (its FNV-1a hash) or None (a
// state from std::random_device); TypeError otherwise.
inline uint64_t seed_state(nb::handle seed) {
    if (seed.is_none()) {
        std::random_device rd;
        return (uint64_t(rd()) << 32) ^ uint64_t(rd());
    }
    if (PyLong_Check(seed.ptr())) {
        unsigned long long v = PyLong_AsUnsignedLongLongMask(seed.ptr());
        if (v == (unsigned long long)-1 && PyErr_Occurred()) throw nb::python_error();
        return v;
    }
    if (PyUnicode_Check(seed.ptr())) {
        Py_ssize_t size;
        const char *data = PyUnicode_AsUTF8AndSize(seed.ptr(), &size);
        if (!data) throw nb::python_error();
        return koenig::fnv1a64(std::string(data, size_t(size)));
    }
    throw nb::type_error(("seed must be an int, a str or None, got " +
                          std::string(nb::type_name(seed.type()).c_str()))
                             .c_str());
}

// Card type indices -> the board's card digits.
inline std::vector<int> digits(const koenig::Board &b, const std::vector<int> &idx) {
    std::vector<int> out;
    out.reserve(idx.size());
    for (int t : idx) out.push_back(b.types[t]);
    return out;
}

template <class It>
nb::list int_list(It begin, It end) {
    nb::list out;
    for (It it = begin; it != end; ++it) out.append(*it);
    return out;
}

inline nb::list int_list(const std::vector<int> &xs) { return int_list(xs.begin(), xs.end()); }

}  // namespace koenig_bindings
