/* SPDX-License-Identifier: MIT */
/*
 * The tables of functions the CUDA runtime asks cuGetExportTable for
 * (runtime_tables.c, Documentation/runtime.md).
 */
#ifndef _CUMC_LIB_RUNTIME_TABLES_H
#define _CUMC_LIB_RUNTIME_TABLES_H

#include <cuda.h>

/* The table named @id, or NULL when libcumc has none of that UUID. */
const void *libcumc_runtime_table(const CUuuid *id);

#endif /* _CUMC_LIB_RUNTIME_TABLES_H */
