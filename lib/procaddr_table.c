// SPDX-License-Identifier: MIT
/*
 * The functions cuGetProcAddress hands out (procaddr_table.h).
 *
 * In an object of their own: the build renames the entry points in every
 * other object of the library to their implementations' names, and here
 * alone they keep the exported names (log.h), so that a function found
 * through cuGetProcAddress is the one a program linked against would call,
 * CUMC_LOG's line included.
 */
#include "procaddr.h"
#include "stream.h"

/* The legacy (and default) flavour of every entry point. */
#define CUMC_PROC(symbol, version, function) \
	{ symbol, version, (void *)function },
#define CUMC_PROC_PTDS(symbol, version, function)
const struct libcumc_proc libcumc_procs[] = {
#include "procaddr_table.h"
};
#undef CUMC_PROC
#undef CUMC_PROC_PTDS

/* The per-thread default stream flavour, where it differs. */
#define CUMC_PROC(symbol, version, function)
#define CUMC_PROC_PTDS(symbol, version, function) \
	{ symbol, version, (void *)function },
const struct libcumc_proc libcumc_procs_ptds[] = {
#include "procaddr_table.h"
};
#undef CUMC_PROC
#undef CUMC_PROC_PTDS

const size_t libcumc_num_procs = sizeof(libcumc_procs) / sizeof(libcumc_procs[0]);
const size_t libcumc_num_procs_ptds =
	sizeof(libcumc_procs_ptds) / sizeof(libcumc_procs_ptds[0]);
