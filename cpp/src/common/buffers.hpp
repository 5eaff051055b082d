// Checks of caller-owned NumPy buffers, shared by the Kardinal (kardinal/bindings.cpp) and Kardinal & König
// (koenig/bindings.cpp) encode_into / action_mask_into bindings: a buffer is taken only as it is (no
// implicit conversion, which would write into a copy), and anything else is refused with a TypeError
// (not an array, wrong dtype, not in CPU memory) or a ValueError (wrong shape, not C-contiguous,
// read-only) that names the problem.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>

namespace buffers {

namespace nb = nanobind;
using AnyArray = nb::ndarray<nb::ro>;

inline std::string dtype_text(nb::dlpack::dtype d) {
    using code = nb::dlpack::dtype_code;
    std::string name;
    switch (code(d.code)) {
        case code::Int: name = "int" + std::to_string(d.bits); break;
        case code::UInt: name = "uint" + std::to_string(d.bits); break;
        case code::Float: name = "float" + std::to_string(d.bits); break;
        case code::Complex: name = "complex" + std::to_string(d.bits); break;
        case code::Bool: name = "bool"; break;
        default: name = "dtype code " + std::to_string(int(d.code)) + " of " + std::to_string(d.bits) + " bits";
    }
    if (d.lanes != 1) name += " x" + std::to_string(d.lanes);
    return name;
}

inline std::string shape_text(const AnyArray &a) {
    std::string out = "(";
    for (size_t i = 0; i < a.ndim(); ++i) out += (i ? ", " : "") + std::to_string(a.shape(i));
    return out + (a.ndim() == 1 ? ",)" : ")");
}

inline bool c_contiguous(const AnyArray &a) {
    int64_t size = 1, accum = 1;
    for (size_t i = 0; i < a.ndim(); ++i) size *= int64_t(a.shape(i));
    if (size <= 1) return true;
    for (size_t i = a.ndim(); i-- > 0;) {
        if (a.shape(i) != 1 && a.stride(i) != accum) return false;
        accum *= int64_t(a.shape(i));
    }
    return true;
}

// Why `out` is not the buffer wanted (it failed the nb::ndarray constraints): raises the first problem
// found, in the order not an array, device, dtype, shape, contiguity, read-only.
[[noreturn]] inline void refuse_buffer(nb::handle out, const std::string &wanted, bool (*dtype_ok)(nb::dlpack::dtype),
                                const std::string &dtype_wanted, bool (*shape_ok)(const AnyArray &),
                                const std::string &shape_wanted) {
    AnyArray a;
    std::string type = nb::type_name(out.type()).c_str();
    if (!nb::try_cast(out, a, false))
        throw nb::type_error(("out must be " + wanted + ", got " + type).c_str());
    if (a.device_type() != nb::device::cpu::value)
        throw nb::type_error(("out must be " + wanted + " in CPU memory, got a " + type + " on device type " +
                              std::to_string(a.device_type()))
                                 .c_str());
    if (!dtype_ok(a.dtype()))
        throw nb::type_error(("out must have dtype " + dtype_wanted + ", got " + dtype_text(a.dtype())).c_str());
    if (!shape_ok(a))
        throw nb::value_error(("out must have shape " + shape_wanted + ", got " + shape_text(a)).c_str());
    if (!c_contiguous(a)) throw nb::value_error("out must be C-contiguous (np.ascontiguousarray makes a copy)");
    throw nb::value_error("out is read-only; pass a writable array");
}

inline bool is_mask_dtype(nb::dlpack::dtype d) { return d == nb::dtype<bool>() || d == nb::dtype<int8_t>(); }
inline bool one_dimensional(const AnyArray &a) { return a.ndim() == 1; }

// An action-mask buffer from the caller: a writable C-contiguous 1-d numpy bool or int8 array in CPU
// memory, as its bytes and length; anything else is refused (refuse_buffer), `shape` naming the
// length wanted.
struct Mask {
    uint8_t *data;
    size_t length;
};

inline Mask mask_buffer(nb::handle out, const std::string &shape) {
    nb::ndarray<bool, nb::ndim<1>, nb::c_contig, nb::device::cpu> as_bool;
    nb::ndarray<int8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> as_int8;
    if (nb::try_cast(out, as_bool, false)) return {reinterpret_cast<uint8_t *>(as_bool.data()), as_bool.shape(0)};
    if (nb::try_cast(out, as_int8, false)) return {reinterpret_cast<uint8_t *>(as_int8.data()), as_int8.shape(0)};
    refuse_buffer(out, "a writable C-contiguous numpy bool (or int8) array of shape " + shape, is_mask_dtype,
                  "bool (or int8)", one_dimensional, shape);
}

}  // namespace buffers
