// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of cumc_trace.h, created here once for the whole module.
 */
#define CREATE_TRACE_POINTS
#include "cumc_trace.h"
