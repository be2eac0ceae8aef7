/* SPDX-License-Identifier: MIT */
/*
 * Test helper: look at device memory from the CPU, shared by the library's
 * tests (lib/tests/) and the module's selftests (selftests/, which build
 * with -Ilib/tests).
 *
 * probe_fill() and probe_mismatches() write and check a few words only, as
 * the VM emulates every load and store; probe_touch_in_child() tells
 * whether an address can be loaded from or stored to without dying.
 */
#ifndef CUMC_TESTS_PROBE_H
#define CUMC_TESTS_PROBE_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>

#define PROBE_COUNT 4

/* The offset of word @i of PROBE_COUNT in @length bytes. */
static inline uint64_t probe_offset(uint64_t length, int i)
{
	const uint64_t offsets[] = { 0, 4096 + 8, length / 2, length - 8 };

	return offsets[i];
}

/* Write the probed words of @length bytes at @addr from @seed. */
static inline void probe_fill(uint64_t addr, uint64_t length, uint64_t seed)
{
	int i;

	for (i = 0; i < PROBE_COUNT; i++) {
		uint64_t off = probe_offset(length, i);

		*(volatile uint64_t *)(uintptr_t)(addr + off) = seed ^ off;
	}
}

/* How many probed words differ from what probe_fill(@seed) wrote. */
static inline int probe_mismatches(uint64_t addr, uint64_t length,
				   uint64_t seed)
{
	int i, bad = 0;

	for (i = 0; i < PROBE_COUNT; i++) {
		uint64_t off = probe_offset(length, i);

		if (*(volatile uint64_t *)(uintptr_t)(addr + off) != (seed ^ off))
			bad++;
	}
	return bad;
}

/* What a child sharing our memory does to the address it is given. */
struct probe_touch {
	volatile unsigned char *addr;
	bool write;
};

static inline int probe_touch_fn(void *arg)
{
	struct probe_touch *t = arg;
	unsigned char v = *t->addr;

	/* Store back what was there: a store that works changes nothing. */
	if (t->write)
		*t->addr = v;
	return 0;
}

/*
 * Load from (and with @write, store back to) @addr in a child that shares
 * our address space. Returns 0 when it could, the signal that killed it
 * otherwise, -1 when it ended any other way.
 */
static inline int probe_touch_in_child(uint64_t addr, bool write)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	struct probe_touch t = {
		.addr = (volatile unsigned char *)(uintptr_t)addr,
		.write = write,
	};
	int status;
	pid_t pid;

	pid = clone(probe_touch_fn, stack + sizeof(stack), CLONE_VM | SIGCHLD,
		    &t);
	if (pid < 0)
		return -1;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

#endif /* CUMC_TESTS_PROBE_H */
