/* SPDX-License-Identifier: MIT */
/*
 * libcumc-ptx: PTX device code on the host's cores.
 *
 * The whole interface between libcumc and the PTX component: load an
 * image, find its functions and globals, launch a grid.  Nothing here
 * knows of CUDA handles, contexts or streams: the caller orders launches
 * and tells which device addresses a kernel may touch (struct
 * cumc_ptx_memory).  All functions are thread-safe on distinct modules;
 * a module may be launched from several threads at once.
 */
#ifndef _CUMC_PTX_H
#define _CUMC_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cumc_ptx_status {
	CUMC_PTX_OK = 0,
	CUMC_PTX_ENOMEM,	/* out of host memory */
	CUMC_PTX_EIMAGE,	/* not PTX, a fatbin nor a fatbin wrapper */
	CUMC_PTX_ENOPTX,	/* device code, but no PTX cumc can use */
	CUMC_PTX_ESYNTAX,	/* the PTX does not parse */
	CUMC_PTX_EUNSUPPORTED,	/* valid PTX cumc does not execute yet */
	CUMC_PTX_ENOTFOUND,	/* no function or global of that name */
	CUMC_PTX_ELAUNCH,	/* bad grid or block dimensions */
	CUMC_PTX_ESHARED,	/* more shared memory than a block has */
	CUMC_PTX_EFAULT,	/* the kernel touched memory it may not */
	CUMC_PTX_ETRAP,		/* the kernel trapped (trap, a bad operation) */
	CUMC_PTX_EUNDEFINED,	/* a function called or an .extern variable
				 * that no input defines */
	CUMC_PTX_EASSERT,	/* a device-side assert failed (__assertfail) */
};

/* What limits a launch: those of the simulated device (an H100's). */
#define CUMC_PTX_MAX_BLOCK_THREADS	1024u
#define CUMC_PTX_MAX_SHARED		(227u << 10)	/* opt-in maximum */
#define CUMC_PTX_DEFAULT_SHARED		(48u << 10)
/*
 * The CTAs a worker (one host thread running blocks, cumc's SM) keeps
 * resident and time-slices: those of one worker always make progress
 * together, so occupancy answers and co-resident grids count on it.
 */
#define CUMC_PTX_RESIDENT		16u

struct cumc_ptx_module;
struct cumc_ptx_function;

/*
 * Loads @image: PTX text (NUL-terminated, or @len bytes when @len is not
 * 0), a fatbin, or the fatbin wrapper of a host object, of which the PTX
 * entry of the highest architecture at or below @max_arch (90 for
 * compute_90) is used.  On failure, a message naming what failed (the
 * instruction and line for PTX cumc cannot run) is written to @log when
 * @log_size is not 0.
 */
enum cumc_ptx_status cumc_ptx_load(const void *image, size_t len,
				   unsigned int max_arch,
				   struct cumc_ptx_module **module,
				   char *log, size_t log_size);
void cumc_ptx_unload(struct cumc_ptx_module *module);

/*
 * The JIT linker.  cumc_ptx_link_input() gives the PTX text of one input
 * (@image as cumc_ptx_load takes it) in *@text (malloc'ed, NUL-terminated,
 * *@text_len bytes without the NUL), checked as cumc_ptx_load checks it
 * but for the functions it calls and the .extern variables it uses,
 * which another input may define.  cumc_ptx_link() joins @count such
 * texts into one PTX image (*@image, malloc'ed, NUL-terminated), which
 * cumc_ptx_load takes: .extern functions and variables resolved across
 * the inputs.  A function or variable without .visible, .extern or .weak
 * is its input's own: where another input declares its name, it is
 * name$cumcN in the image (N its input, from 1).  A .weak definition
 * that several inputs give is kept once: the first, or a .visible one.
 * A kernel, or a function or variable defined .visible, by two inputs
 * is CUMC_PTX_ESYNTAX; a call or an .extern variable that no input
 * defines CUMC_PTX_EUNDEFINED; @log names it, and the input (counted
 * from 1) and line where the parser met it.
 */
enum cumc_ptx_status cumc_ptx_link_input(const void *image, size_t len,
					 unsigned int max_arch, char **text,
					 size_t *text_len, char *log,
					 size_t log_size);
enum cumc_ptx_status cumc_ptx_link(char *const *texts, const size_t *lens,
				   unsigned int count, char **image,
				   size_t *len, char *log, size_t log_size);

/* The PTX ISA version of @module's text: major * 10 + minor. */
unsigned int cumc_ptx_version(const struct cumc_ptx_module *module);

/* The kernels (.entry) of @module, in the order of the PTX. */
unsigned int cumc_ptx_function_count(const struct cumc_ptx_module *module);
const struct cumc_ptx_function *
cumc_ptx_function_at(const struct cumc_ptx_module *module, unsigned int i);
const struct cumc_ptx_function *
cumc_ptx_function_find(const struct cumc_ptx_module *module, const char *name);

const char *cumc_ptx_function_name(const struct cumc_ptx_function *func);
unsigned int cumc_ptx_param_count(const struct cumc_ptx_function *func);
/* Where parameter @i lies in the parameter buffer, and its size. */
void cumc_ptx_param_layout(const struct cumc_ptx_function *func,
			   unsigned int i, size_t *offset, size_t *size);
/* The size of the whole parameter buffer. */
size_t cumc_ptx_param_size(const struct cumc_ptx_function *func);
size_t cumc_ptx_static_shared(const struct cumc_ptx_function *func);
size_t cumc_ptx_local_size(const struct cumc_ptx_function *func);
/* The bytes of constant memory (.const variables) its module declares. */
size_t cumc_ptx_const_size(const struct cumc_ptx_function *func);
unsigned int cumc_ptx_num_regs(const struct cumc_ptx_function *func);

/*
 * A module global (.global or .const variable): its storage, which the
 * module owns and which kernels address by *@addr, and its size.
 */
enum cumc_ptx_status cumc_ptx_global_find(const struct cumc_ptx_module *module,
					  const char *name, void **addr,
					  size_t *size);
/* Calls @fn for each global's storage (to make it known as device memory). */
void cumc_ptx_globals_each(const struct cumc_ptx_module *module,
			   void (*fn)(void *arg, void *addr, size_t size),
			   void *arg);

/*
 * The device memory a kernel may touch besides its module's globals and
 * its shared and local memory.  @check answers whether [addr, addr + len)
 * may be accessed (@write: for writing) and, when it may, the whole range
 * [*lo, *hi) around it known to be accessible the same way, which the
 * executor remembers for the rest of the launch.
 */
struct cumc_ptx_memory {
	bool (*check)(void *arg, uint64_t addr, size_t len, bool write,
		      uint64_t *lo, uint64_t *hi);
	void *arg;
};

/*
 * multimem.ld_reduce, multimem.st and multimem.red on multicast addresses.
 * Types and operators are numbered as libcumc's cumcDataType and
 * cumcReduceOp.  @access performs the access of @count elements of @type
 * at @addr of one instruction, for one thread or for the lanes of a warp
 * whose elements follow each other: ld_reduce reduces the members'
 * elements with @op into @buf; st stores @buf into every member; red
 * combines @buf into every member's elements with @op; ld_reduce_st is a
 * ld_reduce into @buf and then a st of @buf at the same address (a
 * multimem.ld_reduce and the multimem.st of its results that follows it,
 * made as one access, refused whole when either part would be);
 * check_ld_reduce_st answers whether that ld_reduce_st would be made,
 * making nothing (the executor makes the access later, in one call with
 * others that follow it); where it would, @access writes into @buf, two
 * uint64_t, the addresses [lo, hi) around it within which every
 * ld_reduce_st of @type and @op, aligned to @type, would be made as long
 * as *@held stays what it is, so that the executor need not ask again for
 * those.  It answers false, having
 * changed nothing, when the range is not multicast memory the kernel may
 * access that way (the executor then makes the lanes' accesses one by
 * one, and the first that is refused faults the kernel).
 * *@held is the worker's, NULL at its start: what @access keeps from one
 * instruction to the next (the mapping it found), until @release lets go
 * of it and sets it back to NULL.  The executor calls @release when *@held
 * is set, after each round over one CTA's threads (a bounded time: each
 * thread runs to a barrier, its end or its slice), so nothing is held
 * when the launch returns.
 */
enum cumc_ptx_mm_type {
	CUMC_PTX_MM_F16, CUMC_PTX_MM_BF16, CUMC_PTX_MM_F32, CUMC_PTX_MM_F64,
	CUMC_PTX_MM_S32, CUMC_PTX_MM_U32, CUMC_PTX_MM_S64, CUMC_PTX_MM_U64,
};
enum cumc_ptx_mm_op {
	CUMC_PTX_MM_ADD, CUMC_PTX_MM_MIN, CUMC_PTX_MM_MAX,
	CUMC_PTX_MM_AND, CUMC_PTX_MM_OR, CUMC_PTX_MM_XOR,
};
enum cumc_ptx_mm_kind { CUMC_PTX_MM_LD_REDUCE = 1, CUMC_PTX_MM_ST,
			CUMC_PTX_MM_RED, CUMC_PTX_MM_LD_REDUCE_ST,
			CUMC_PTX_MM_CHECK_LD_REDUCE_ST };

struct cumc_ptx_multicast {
	bool (*access)(void *arg, void **held, enum cumc_ptx_mm_kind kind,
		       uint64_t addr, void *buf, size_t count,
		       enum cumc_ptx_mm_type type, enum cumc_ptx_mm_op op);
	void (*release)(void *arg, void **held);
	void *arg;
};

struct cumc_ptx_launch {
	unsigned int grid[3];
	unsigned int block[3];
	unsigned int dynamic_shared;
	/* Whether the function was allowed more than 48 KiB of shared. */
	unsigned int max_dynamic_shared;
	const void *params;		/* cumc_ptx_param_size() bytes */
	const struct cumc_ptx_memory *memory;
	/* multimem's path; NULL: every multimem instruction faults. */
	const struct cumc_ptx_multicast *multicast;
	/* Host threads running blocks; 0: one per online CPU. */
	unsigned int workers;
};

/* Where a kernel failed. */
struct cumc_ptx_fault {
	enum cumc_ptx_status status;
	uint64_t addr;			/* the address of an EFAULT */
	unsigned int line;		/* of the PTX instruction */
	unsigned int block[3];
	unsigned int thread[3];
};

/* Whether @launch's dimensions and shared memory suit @func. */
enum cumc_ptx_status cumc_ptx_launch_check(const struct cumc_ptx_function *func,
					   const struct cumc_ptx_launch *launch);

/*
 * Checks the launch, then runs the grid to completion on the calling
 * thread and a pool of workers.  CUMC_PTX_ELAUNCH and CUMC_PTX_ESHARED
 * come before anything runs; EFAULT and ETRAP stop the grid and fill
 * @fault (may be NULL).
 */
enum cumc_ptx_status cumc_ptx_launch(const struct cumc_ptx_function *func,
				     const struct cumc_ptx_launch *launch,
				     struct cumc_ptx_fault *fault);

const char *cumc_ptx_strerror(enum cumc_ptx_status status);

/* Whether @func runs compiled (Documentation/ptx.md), not interpreted. */
bool cumc_ptx_compiled(const struct cumc_ptx_function *func);

/*
 * Whether the CPU is QEMU's TCG (ptx/cpu.c), where compiled kernels and
 * libcumc's data path run baseline x86-64 code: wider vectors run slower
 * there.
 */
bool cumc_ptx_cpu_emulated(void);

/*
 * Where libcumc-ptx's notes go (CUMC_LOG): that a kernel runs on the
 * interpreter rather than compiled, and why.  NULL: nowhere.
 */
void cumc_ptx_set_log(void (*log)(const char *line));

#endif
