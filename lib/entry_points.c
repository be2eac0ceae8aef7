// SPDX-License-Identifier: MIT
/*
 * The exported functions (log.h) and the tables cuGetProcAddress hands
 * them out from (procaddr.c), expanded from the table of entry points
 * (entry_points.table, through the entry_points.h scripts/entry-table
 * makes of it).
 *
 * The one object the build leaves its names: in every other one an entry
 * point's name becomes its implementation's (log.h), while here it is the
 * function CUMC_ENTRY_POINT defines, so that a function found through
 * cuGetProcAddress is the one a program linked against would call,
 * CUMC_LOG's line included.
 */
#include "internal.h"
#include "interop.h"
#include "log.h"
#include "procaddr.h"

/* Not macros of parameters: those would expand cuda.h's macros of names. */
#define CUMC_ENTRY CUMC_ENTRY_POINT
#define CUMC_ENTRY_DRIVER CUMC_ENTRY_POINT_DRIVER
#define CUMC_ENTRY_INIT CUMC_ENTRY_POINT_INIT
#include "entry_points.h"

/*
 * A row's parameters are those cuda.h gives the name it declares it by:
 * the table cannot forward other arguments than the caller passes.
 */
#define CUMC_HEADER(symbol, name)					\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(libcumc_entry_##symbol), __typeof__(name)),	\
		"the parameters of " #symbol " in the table are not "	\
		"those of " #name " in cuda.h");
#include "entry_points.h"

/* The legacy (and default) flavour of every entry point. */
#define CUMC_PROC(symbol, version, function) \
	{ symbol, version, (void *)libcumc_entry_##function },
const struct libcumc_proc libcumc_procs[] = {
#include "entry_points.h"
};

/* The per-thread default stream flavour, where it differs. */
#define CUMC_PROC_PTDS(symbol, version, function) \
	{ symbol, version, (void *)libcumc_entry_##function },
const struct libcumc_proc libcumc_procs_ptds[] = {
#include "entry_points.h"
};

const size_t libcumc_num_procs = sizeof(libcumc_procs) / sizeof(libcumc_procs[0]);
const size_t libcumc_num_procs_ptds =
	sizeof(libcumc_procs_ptds) / sizeof(libcumc_procs_ptds[0]);
