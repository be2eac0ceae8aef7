/* SPDX-License-Identifier: MIT */
/*
 * CUMC_LOG: one line for each entry point call that fails, naming the entry
 * point, its CUresult and, when a system call caused it, that call and its
 * errno (Documentation/api.md, "CUMC_LOG").
 *
 * How every entry point gets it without a line of its own: the build
 * renames each name of the table of entry points (entry_points.table) to
 * libcumc_impl_<name> in the library's objects (scripts/entry-table syms;
 * the implementations of driver rows have that name in the source), so
 * the functions in lib/, and their calls to one another, take those
 * names; the exported names are then the functions CUMC_ENTRY_POINT
 * defines in entry_points.c, one for each row of the table, with the
 * parameters the row gives. entry_points.c alone keeps the exported names:
 * what cuGetProcAddress hands out logs too.
 *
 * While no line is wanted (CUMC_LOG off, no cuLogs* call), an exported
 * function tests one variable and jumps to its implementation.
 */
#ifndef _CUMC_LIB_LOG_H
#define _CUMC_LIB_LOG_H

#include <cuda.h>
#include <cumc.h>

/* Where the lines go, -1 while CUMC_LOG is off. */
extern int libcumc_log_fd __attribute__((visibility("hidden")));
/*
 * Nonzero while lines are made: CUMC_LOG is on, or the program asked for
 * the driver's log (cuLogs*, logbuf.h, which defines it).
 */
extern int libcumc_log_lines __attribute__((visibility("hidden")));

/*
 * Reads CUMC_LOG into libcumc_log_fd; the library calls it as it loads.
 * Tests call it again after changing CUMC_LOG.
 */
void libcumc_log_setup(void);

/*
 * Notes that the system call @what (with @arg, if not NULL: a path) failed
 * with @err, for the line of the entry point being called on this thread.
 * @what and @arg must outlive the call. Nothing when CUMC_LOG is off.
 */
void libcumc_log_errno(const char *what, const char *arg, int err);

/*
 * Adds @text to the line of the entry point being called on this thread,
 * should it fail (a PTX load's message: what failed, how to build for
 * cumc). Nothing while no line is made.
 */
void libcumc_log_note(const char *text);

/*
 * @text as a line of its own, from any thread: libcumc-ptx's notes (a
 * kernel left to the interpreter and why, the JIT's library missing, its
 * cache unwritable) and where a grid stopped.
 */
void libcumc_log_line(const char *text);

/* The name of a /dev/cumc command ("CUMC_MAP"), NULL if unknown. */
const char *libcumc_ioctl_name(unsigned long request);

/* An exported function starts: it has no system call failure yet. */
void libcumc_log_enter(void);

/* An exported function returns @res: its line, unless @res is a success. */
CUresult libcumc_log_exit(const char *entry_point, CUresult res);

/*
 * The same pair for a function a program calls other than through an
 * entry point (a slot of the CUDA runtime's export tables): its line is
 * named @name.
 */
static inline void libcumc_log_slot_enter(void)
{
	if (libcumc_log_lines)
		libcumc_log_enter();
}

static inline CUresult libcumc_log_slot_exit(const char *name, CUresult res)
{
	return libcumc_log_lines ? libcumc_log_exit(name, res) : res;
}

/*
 * The exported function @symbol, with the parameters @params of its
 * implementation libcumc_impl_<symbol>, to which it passes @args.
 */
#define CUMC_ENTRY_POINT(symbol, params, args)				\
	CUresult CUDAAPI libcumc_impl_##symbol params;			\
	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);	\
	CUresult CUDAAPI libcumc_entry_##symbol params			\
	{								\
		if (__builtin_expect(!libcumc_log_lines, 1))		\
			return libcumc_impl_##symbol args;		\
		libcumc_log_enter();					\
		return libcumc_log_exit(#symbol, libcumc_impl_##symbol args); \
	}

/*
 * The exported function @entry, of the symbol named @name, with the
 * parameters @params, for an entry point that needs cuInit: before cuInit
 * it answers what libcumc_driver() (internal.h) does, after it what @impl,
 * a call of the implementation that may pass the driver state drv, does.
 */
#define CUMC_ENTRY_POINT_CHECKED(name, entry, params, impl)		\
	CUresult CUDAAPI entry params __asm__(name);			\
	CUresult CUDAAPI entry params					\
	{								\
		const struct libcumc_driver *drv;			\
		CUresult res = libcumc_driver(&drv);			\
									\
		if (__builtin_expect(!libcumc_log_lines, 1))		\
			return res != CUDA_SUCCESS ? res : impl;	\
		libcumc_log_enter();					\
		return libcumc_log_exit(name,				\
					res != CUDA_SUCCESS ? res : impl); \
	}

/*
 * As CUMC_ENTRY_POINT, for an entry point the table marks init: its
 * implementation runs after cuInit only. What depends on @symbol is made
 * here, where cuda.h's macros of names do not expand it.
 */
#define CUMC_ENTRY_POINT_INIT(symbol, params, args)			\
	CUresult CUDAAPI libcumc_impl_##symbol params;			\
	CUMC_ENTRY_POINT_CHECKED(#symbol, libcumc_entry_##symbol, params, \
				 libcumc_impl_##symbol args)

/*
 * The same for one the table marks driver: it passes the driver state and
 * then its own arguments, @impl_args, to libcumc_impl_<symbol>, whose
 * parameters are @impl_params (entry.h).
 */
#define CUMC_ENTRY_POINT_DRIVER(symbol, params, args, impl_params, impl_args) \
	CUresult libcumc_impl_##symbol impl_params;			\
	CUMC_ENTRY_POINT_CHECKED(#symbol, libcumc_entry_##symbol, params, \
				 libcumc_impl_##symbol impl_args)

#endif /* _CUMC_LIB_LOG_H */
