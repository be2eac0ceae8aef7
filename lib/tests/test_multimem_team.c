// SPDX-License-Identifier: MIT
/*
 * A team of processes set up the way collective libraries do it (runs in
 * the VM): rank 0 creates the multicast object and passes it as a file
 * descriptor over a Unix socket; every rank initializes on its own, adds its
 * device, binds its own memory and maps the object. Then every rank checks
 * multimem.ld_reduce for every type and operator, multimem.st into slices
 * and multimem.red into a shared counter, and the team tears down in any
 * order, leaving nothing behind.
 */
#include <check.h>
#include <cuda.h>
#include <cumc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"
#include "fdpass.h"
#include "multimem_ref.h"

#define RANKS 4
#define ELEMENTS 3000

/* The test process relays the object and runs the barriers. */
static int sockets[RANKS][2];

#define TRY(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "rank %d: %s:%d: %s\n", rank,	\
				__FILE__, __LINE__, #cond);		\
			_exit(1);					\
		}							\
	} while (0)

static int rank;

/* A rank's side of a barrier: tell the test process, wait for the rest. */
static void barrier(void)
{
	char byte = 'b';

	TRY(write(sockets[rank][1], &byte, 1) == 1);
	TRY(read(sockets[rank][1], &byte, 1) == 1);
}

struct member {
	size_t size;
	CUmemGenericAllocationHandle mc, mem;
	CUdeviceptr mc_va, uc_va;
};

static CUdeviceptr map_with_access(CUmemGenericAllocationHandle h, size_t size)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, rank },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	TRY(cuMemAddressReserve(&va, size, 0, 0, 0) == CUDA_SUCCESS);
	TRY(cuMemMap(va, size, 0, h, 0) == CUDA_SUCCESS);
	TRY(cuMemSetAccess(va, size, &desc, 1) == CUDA_SUCCESS);
	return va;
}

/* Rank 0 creates the object; the others import what it sent. */
static void join_team(struct member *me)
{
	CUmulticastObjectProp prop = {
		.numDevices = RANKS,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};
	CUmemAllocationProp mem_prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, rank },
	};
	int fd;

	TRY(cuInit(0) == CUDA_SUCCESS);
	TRY(cuMulticastGetGranularity(&me->size, &prop,
			CU_MULTICAST_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS);
	prop.size = me->size;
	if (rank == 0) {
		TRY(cuMulticastCreate(&me->mc, &prop) == CUDA_SUCCESS);
		TRY(cuMemExportToShareableHandle(&fd, me->mc,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		    CUDA_SUCCESS);
		TRY(fdpass_send(sockets[rank][1], fd) == 0);
	} else {
		fd = fdpass_recv(sockets[rank][1]);
		TRY(fd >= 0);
		TRY(cuMemImportFromShareableHandle(&me->mc,
				(void *)(uintptr_t)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		    CUDA_SUCCESS);
	}
	close(fd);
	TRY(cuMulticastAddDevice(me->mc, rank) == CUDA_SUCCESS);
	TRY(cuMemCreate(&me->mem, me->size, &mem_prop, 0) == CUDA_SUCCESS);
	me->uc_va = map_with_access(me->mem, me->size);
	/* Waits for every rank's device, as NCCL's comment says. */
	TRY(cuMulticastBindMem(me->mc, 0, me->mem, 0, me->size, 0) ==
	    CUDA_SUCCESS);
	me->mc_va = map_with_access(me->mc, me->size);
}

static void *own(const struct member *me)
{
	return (void *)(uintptr_t)me->uc_va;
}

static void check_ld_reduce(const struct member *me, const struct case_ *c)
{
	static unsigned char out[ELEMENTS * 8];
	size_t i;
	int r;

	for (i = 0; i < ELEMENTS; i++)
		put(own(me), c->type, i, value(rank, i));
	barrier();
	TRY(cumcMultimemLdReduce(out, me->mc_va, ELEMENTS, c->type, c->op) ==
	    CUDA_SUCCESS);
	for (i = 0; i < ELEMENTS; i++) {
		double want_f = float_value(c->type, 0, i);
		uint64_t want_i = int_value(c->type, 0, i);

		for (r = 1; r < RANKS; r++) {
			want_f = ref_float(c->op, want_f, float_value(c->type, r, i));
			want_i = ref_int(c->type, c->op, want_i,
					 int_value(c->type, r, i));
		}
		if (is_float(c->type))
			TRY(get_float(out, c->type, i) == want_f);
		else
			TRY(get_int(out, c->type, i) == want_i);
	}
	barrier();
}

/* Each rank stores its slice; every member then holds every slice. */
static void check_st(const struct member *me)
{
	size_t slice = me->size / RANKS, i;
	unsigned char *mine = malloc(slice);
	int r;

	TRY(mine);
	memset(mine, rank + 1, slice);
	TRY(cumcMultimemSt(me->mc_va + rank * slice, mine, slice) == CUDA_SUCCESS);
	barrier();
	for (r = 0; r < RANKS; r++)
		for (i = 0; i < slice; i += 4096)
			TRY(((unsigned char *)own(me))[r * slice + i] == r + 1);
	free(mine);
	barrier();
}

/* The barrier pattern of NCCL: every rank adds into one counter. */
static void check_red(const struct member *me)
{
	uint32_t add = rank + 1;

	*(volatile uint32_t *)own(me) = 0;
	barrier();
	TRY(cumcMultimemRed(me->mc_va, &add, 1, CUMC_U32, CUMC_OP_ADD) ==
	    CUDA_SUCCESS);
	barrier();
	TRY(*(volatile uint32_t *)own(me) == RANKS * (RANKS + 1) / 2);
	barrier();
}

/* Even ranks clean up; odd ones just exit and leave it to the kernel. */
static void leave_team(struct member *me)
{
	if (rank % 2)
		return;
	TRY(cuMemUnmap(me->mc_va, me->size) == CUDA_SUCCESS);
	TRY(cuMemAddressFree(me->mc_va, me->size) == CUDA_SUCCESS);
	TRY(cuMulticastUnbind(me->mc, rank, 0, me->size) == CUDA_SUCCESS);
	TRY(cuMemUnmap(me->uc_va, me->size) == CUDA_SUCCESS);
	TRY(cuMemAddressFree(me->uc_va, me->size) == CUDA_SUCCESS);
	TRY(cuMemRelease(me->mem) == CUDA_SUCCESS);
	TRY(cuMemRelease(me->mc) == CUDA_SUCCESS);
}

static void run_rank(void)
{
	struct member me;
	size_t c;

	join_team(&me);
	barrier();
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		check_ld_reduce(&me, &cases[c]);
	check_st(&me);
	check_red(&me);
	leave_team(&me);
	_exit(0);
}

/* Live objects of the module, as one line, for before/after comparison. */
static void read_counts(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/debug/cumc/objects", "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Relay rank 0's object, then serve barriers until every rank is gone. */
static void coordinate(void)
{
	char byte;
	int r, fd;

	fd = fdpass_recv(sockets[0][0]);
	ck_assert_int_ge(fd, 0);
	for (r = 1; r < RANKS; r++)
		ck_assert_int_eq(fdpass_send(sockets[r][0], fd), 0);
	close(fd);
	for (;;) {
		for (r = 0; r < RANKS; r++)
			if (read(sockets[r][0], &byte, 1) != 1)
				return;
		for (r = 0; r < RANKS; r++)
			ck_assert_int_eq(write(sockets[r][0], &byte, 1), 1);
	}
}

START_TEST(team_of_processes)
{
	char before[512], after[512];
	pid_t pids[RANKS];
	int r, status;

	read_counts(before, sizeof(before));
	for (r = 0; r < RANKS; r++)
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sockets[r]), 0);
	for (r = 0; r < RANKS; r++) {
		pids[r] = fork();
		ck_assert_int_ge(pids[r], 0);
		if (pids[r] == 0) {
			rank = r;
			run_rank();
		}
		close(sockets[r][1]);
	}
	coordinate();
	for (r = 0; r < RANKS; r++) {
		ck_assert_int_eq(waitpid(pids[r], &status, 0), pids[r]);
		ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
			      "rank %d failed (see its message above)", r);
		close(sockets[r][0]);
	}
	read_counts(after, sizeof(after));
	ck_assert_str_eq(before, after);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("multimem team");
	TCase *tc = tcase_create("team");

	tcase_add_test(tc, team_of_processes);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return check_run(s);
}
