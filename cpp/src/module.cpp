// The extension module kardinal_core: the compiled core of kardinal-env. Each game binds itself: its engine
// and batch as classes (kardinal/bindings.cpp, koenig/bindings.cpp), its searches as free functions taking
// the game first, in a submodule of their own (kardinal/search_bindings.cpp: kardinal_core.kardinal_search;
// koenig/search_bindings.cpp: kardinal_core.koenig_search). What they share is in common/ (the boundary
// discipline every binding follows: common/boundary.hpp).
#include <nanobind/nanobind.h>

#include "common/boundary.hpp"

namespace nb = nanobind;

void bind_kardinal(nb::module_ &m);
void bind_koenig(nb::module_ &m);
void bind_kardinal_search(nb::module_ &m);
void bind_koenig_search(nb::module_ &m);

NB_MODULE(kardinal_core, m) {
    m.doc() = "kardinal-env's compiled core: the Kardinal and Kardinal & Koenig engines, batches and searches in C++";
    m.attr("LIMITS") = boundary::limits_dict();  // the upper bounds of every count and size (common/boundary.hpp)
    // The interface version kardinal_env.core.backend.CORE_ABI checks when it imports the module: raised
    // whenever a binding the Python side relies on changes (2: KardinalGame.play_action; 3: the
    // searches moved from methods of the games to kardinal_search / koenig_search).
    m.attr("ABI") = 3;
    bind_kardinal(m);
    bind_koenig(m);
    bind_kardinal_search(m);
    bind_koenig_search(m);
}
