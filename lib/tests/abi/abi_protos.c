// SPDX-License-Identifier: MIT
/*
 * Compiled against the toolkit's cuda.h only: re-declares every libcumc
 * entry point with the prototype text of include/cumc/cuda.h, which
 * abi_check.sh copies into cumc_prototypes.h.  The types in that text then
 * resolve to the toolkit's own, and any prototype that differs from the
 * toolkit's fails to compile: "conflicting types" in C, "conflicting
 * declaration of C function" in C++ (hence the extern "C" block, without
 * which C++ would accept a mismatch as an overload).
 */
#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cumc_prototypes.h"

#ifdef __cplusplus
}
#endif
