// SPDX-License-Identifier: MIT
/*
 * cumc-allreduce: an all-reduce over the multicast fabric, one process per
 * simulated device, set up exactly as a collective library sets up NVLS:
 * rank 0 creates the multicast object and passes it to the others as a file
 * descriptor; every rank adds its device, binds its own buffer and maps the
 * object. Each rank then reduces its slice with multimem.ld_reduce and
 * broadcasts it with multimem.st. Every rank checks every element of its
 * buffer against a reference computed on the CPU; the exit status is 0 only
 * when all of them match. --ring runs a unicast ring all-reduce over the
 * same buffers for comparison. --kernel runs the same one-shot all-reduce
 * as device code (tools/allreduce_kernel.cu): a kernel on every rank's GPU
 * whose blocks ld_reduce and st their part of the rank's slice, meeting the
 * other ranks' blocks at a barrier on a signal pad before and after.
 *
 * With --nodes, the ranks are spread over the nodes of a multi-node fabric
 * (scripts/fabric-run), each node running its own share: they meet over
 * TCP at rank 0's node and share every object as a fabric handle, as a
 * collective library does across the nodes of an NVL72 rack.
 */
#include <cuda.h>
#include <cumc.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#ifndef CUMC_VERSION
#define CUMC_VERSION "unknown"
#endif

#define MAX_RANKS 128
#define TYPE_F32 1
#define TYPE_BF16 2
/* ld_reduce and st go through a bounce buffer this size, which stays in cache. */
#define CHUNK_BYTES (64 << 10)

/*
 * --kernel's grid on every rank. Block b of every rank meets the others at
 * counter b of the signal pad, which follows the message in each member's
 * buffer; the kernel's PTX is tools/allreduce_kernel.ptx, built into the
 * tool (the Makefile's allreduce_kernel_ptx.c).
 */
#define KERNEL_BLOCKS 8
#define KERNEL_THREADS 128
#define PAD_BYTES (KERNEL_BLOCKS * sizeof(unsigned int))
extern const char cumc_allreduce_ptx[];

/* Up to this long, ranks wait to meet rank 0 across nodes. */
#define CONNECT_WAIT_SECS 300
#define DEFAULT_PORT 29500

struct opts {
	int n, iters, warmup, ring, kernel, corrupt, types;
	int nodes, node;	/* the fabric's nodes, and the one this is */
	size_t min_bytes, max_bytes;
	size_t kernel_max;	/* --kernel-max: the kernel's largest message */
	const char *json, *data;
	const char *root;	/* where rank 0 listens: HOST[:PORT] */
};

struct rank {
	int id, n;
	int socks[MAX_RANKS];	/* rank 0: one per peer; the others: socks[0] */
	int node;
	CUdevice dev;
	size_t size;		/* each member's buffer, and the object's size */
	CUmemGenericAllocationHandle mc, mem, left;
	CUdeviceptr mc_va, buf_va, left_va;
	/* --kernel: the module, its two kernels, the signal pad's offset */
	CUmodule mod;
	CUfunction kernel_f32, kernel_bf16;
	size_t pad_offset;
	unsigned int signals;	/* each pad counter's value: 2n a launch */
};

/* One run: a message size, an element type and an algorithm. */
struct run {
	size_t bytes, count;
	cumcDataType type;
	int es;			/* bytes per element */
	int period;		/* of the data pattern, see value() */
};

/* What a rank found when checking its buffer. */
struct verdict {
	uint64_t checked, mismatches, first;
	uint32_t got, want;
	int rank;
};

/* What a rank bound, for the topology diagram. */
struct binding {
	int node, dev, pid;
	size_t mc_offset, size;
	char name[64];
};

static struct opts opt = {
	.n = 8, .iters = 5, .warmup = 1, .corrupt = -1, .types = TYPE_F32,
	.nodes = 1, .min_bytes = 1 << 20, .max_bytes = 1 << 20,
};
static int my_rank = -1;

static void die(const char *fmt, ...) __attribute__((noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "cumc-allreduce: ");
	if (my_rank >= 0)
		fprintf(stderr, "rank %d: ", my_rank);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void cu(CUresult res, const char *what)
{
	const char *name = NULL;

	if (res == CUDA_SUCCESS)
		return;
	cuGetErrorName(res, &name);
	die("%s: %s", what, name ? name : "unknown error");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Messages over SOCK_SEQPACKET, with at most one descriptor attached. */
static void send_msg(int sock, const void *buf, size_t len, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* MSG_NOSIGNAL: a peer gone is an error here, not a SIGPIPE. */
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)len)
		die("sendmsg: %s", strerror(errno));
}

/* Receive exactly @len bytes; returns the descriptor attached, or -1. */
static int recv_msg(int sock, void *buf, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t got;
	int fd = -1;

	/* MSG_WAITALL: a stream between nodes may deliver it in parts. */
	got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	/* A peer that died closes its socket: end this rank too, never hang. */
	if (got != (ssize_t)len)
		die("a peer went away (recvmsg: %s)", got < 0 ? strerror(errno) : "short");
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* HOST[:PORT] of --root, resolved. */
static struct addrinfo *root_addr(void)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	};
	const char *colon = strrchr(opt.root, ':');
	char host[256], port[16];
	struct addrinfo *ai;
	int err;

	snprintf(host, sizeof(host), "%.*s",
		 colon ? (int)(colon - opt.root) : (int)strlen(opt.root), opt.root);
	if (colon)
		snprintf(port, sizeof(port), "%s", colon + 1);
	else
		snprintf(port, sizeof(port), "%d", DEFAULT_PORT);
	err = getaddrinfo(host, port, &hints, &ai);
	if (err)
		die("%s: %s", opt.root, gai_strerror(err));
	return ai;
}

/* Barriers are one-byte messages: send them now, not in a batch. */
static void no_delay(int sock)
{
	int one = 1;

	if (setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY: %s", strerror(errno));
}

/* Rank 0 across nodes: every other rank connects and says which it is. */
static void accept_ranks(struct rank *r, const struct addrinfo *ai)
{
	struct timeval wait = { .tv_sec = CONNECT_WAIT_SECS }, forever = { 0 };
	int one = 1, ls, sock, id, k;

	ls = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (ls < 0 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) ||
	    bind(ls, ai->ai_addr, ai->ai_addrlen) || listen(ls, MAX_RANKS))
		die("listening at %s: %s", opt.root, strerror(errno));
	for (k = 1; k < r->n; k++) {
		sock = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (sock < 0)
			die("waiting for the other ranks at %s: %s", opt.root,
			    errno == EAGAIN ? "not all came" : strerror(errno));
		recv_msg(sock, &id, sizeof(id));
		if (id < 1 || id >= r->n || r->socks[id])
			die("a peer at %s says it is rank %d", opt.root, id);
		/*
		 * The limit on meeting came with the socket from the listening
		 * one; the all-reduce waits on its peers as long as they work
		 * (a peer that dies closes its socket, and the caller bounds
		 * the run): a slow peer must not read as a lost one.
		 */
		if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &forever,
			       sizeof(forever)))
			die("SO_RCVTIMEO: %s", strerror(errno));
		no_delay(sock);
		r->socks[id] = sock;
	}
	close(ls);
}

/* Any other rank: reach rank 0, whose node may still be starting. */
static void connect_rank0(struct rank *r, const struct addrinfo *ai)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	double deadline = now() + CONNECT_WAIT_SECS;
	int sock;

	for (;;) {
		sock = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (sock < 0)
			die("socket: %s", strerror(errno));
		if (!connect(sock, ai->ai_addr, ai->ai_addrlen))
			break;
		if (errno != ECONNREFUSED && errno != ENETUNREACH &&
		    errno != EHOSTUNREACH && errno != ETIMEDOUT)
			die("connecting to %s: %s", opt.root, strerror(errno));
		close(sock);
		if (now() > deadline)
			die("rank 0 is not listening at %s after %d s", opt.root,
			    CONNECT_WAIT_SECS);
		nanosleep(&pause, NULL);
	}
	no_delay(sock);
	send_msg(sock, &r->id, sizeof(r->id), -1);
	r->socks[0] = sock;
}

/* Ranks on several nodes meet over TCP at rank 0's node. */
static void meet(struct rank *r)
{
	struct addrinfo *ai = root_addr();

	if (r->id)
		connect_rank0(r, ai);
	else
		accept_ranks(r, ai);
	freeaddrinfo(ai);
}

/* Ranks on one node talk over the socketpairs main() made. */
static void keep_pairs(struct rank *r, int (*pairs)[2])
{
	int k;

	for (k = 1; k < r->n; k++) {
		if (r->id == 0)
			r->socks[k] = pairs[k][0];
		else if (r->id == k)
			r->socks[0] = pairs[k][1];
		/* Closing the rest lets a rank see its peer die as EOF. */
		if (r->id != 0)
			close(pairs[k][0]);
		if (r->id != k)
			close(pairs[k][1]);
	}
}

/* Rank 0 is the hub: everyone reports in, then rank 0 lets everyone go. */
static void barrier(struct rank *r)
{
	char b = 0;
	int k;

	if (r->id) {
		send_msg(r->socks[0], &b, 1, -1);
		recv_msg(r->socks[0], &b, 1);
		return;
	}
	for (k = 1; k < r->n; k++)
		recv_msg(r->socks[k], &b, 1);
	for (k = 1; k < r->n; k++)
		send_msg(r->socks[k], &b, 1, -1);
}

/* Rank 0 collects @len bytes from every rank into @all (rank order). */
static void gather(struct rank *r, const void *mine, void *all, size_t len)
{
	int k;

	if (r->id) {
		send_msg(r->socks[0], mine, len, -1);
		return;
	}
	memcpy(all, mine, len);
	for (k = 1; k < r->n; k++)
		recv_msg(r->socks[k], (char *)all + k * len, len);
}

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

/*
 * How objects travel between ranks: as a POSIX fd on one node, as a
 * fabric handle between nodes, where no descriptor can go.
 */
static CUmemAllocationHandleType share_type(void)
{
	return opt.nodes > 1 ? CU_MEM_HANDLE_TYPE_FABRIC :
			       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
}

/* An object on its way to another rank; an fd goes beside the message. */
struct handle_msg {
	size_t size;
	CUmemFabricHandle fabric;
};

/* Export @h into @m; returns the fd to send with it, or -1. */
static int export_handle(CUmemGenericAllocationHandle h, struct handle_msg *m)
{
	int fd = -1;

	if (share_type() == CU_MEM_HANDLE_TYPE_FABRIC)
		cu(cuMemExportToShareableHandle(&m->fabric, h,
				CU_MEM_HANDLE_TYPE_FABRIC, 0),
		   "cuMemExportToShareableHandle(fabric)");
	else
		cu(cuMemExportToShareableHandle(&fd, h,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		   "cuMemExportToShareableHandle(fd)");
	return fd;
}

/* Import what export_handle() made of an object @what: @m, or @fd. */
static CUmemGenericAllocationHandle import_handle(struct handle_msg *m, int fd,
						  const char *what)
{
	CUmemGenericAllocationHandle h;

	if (share_type() == CU_MEM_HANDLE_TYPE_FABRIC) {
		cu(cuMemImportFromShareableHandle(&h, &m->fabric,
				CU_MEM_HANDLE_TYPE_FABRIC),
		   "cuMemImportFromShareableHandle(fabric)");
		return h;
	}
	if (fd < 0)
		die("no descriptor came with the %s", what);
	cu(cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
	   "cuMemImportFromShareableHandle(fd)");
	close(fd);
	return h;
}

static CUdeviceptr map(CUmemGenericAllocationHandle h, size_t size, CUdevice dev)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	cu(cuMemAddressReserve(&va, size, 0, 0, 0), "cuMemAddressReserve");
	cu(cuMemMap(va, size, 0, h, 0), "cuMemMap");
	cu(cuMemSetAccess(va, size, &desc, 1), "cuMemSetAccess");
	return va;
}

static void unmap(CUdeviceptr va, size_t size)
{
	cu(cuMemUnmap(va, size), "cuMemUnmap");
	cu(cuMemAddressFree(va, size), "cuMemAddressFree");
}

/* The size every member binds: @bytes rounded as the driver recommends. */
static size_t team_size(int n, size_t bytes)
{
	CUmulticastObjectProp mp = {
		.numDevices = n, .size = bytes, .handleTypes = share_type(),
	};
	size_t gran;

	cu(cuMulticastGetGranularity(&gran, &mp, CU_MULTICAST_GRANULARITY_RECOMMENDED),
	   "cuMulticastGetGranularity");
	return round_up(bytes, gran);
}

/* Rank 0 creates the object and sends it to every other rank. */
static void share_object(struct rank *r, size_t bytes)
{
	CUmulticastObjectProp mp = {
		.numDevices = r->n, .handleTypes = share_type(),
	};
	struct handle_msg m = { 0 };
	int fd, k;

	if (r->id) {
		fd = recv_msg(r->socks[0], &m, sizeof(m));
		r->size = m.size;
		r->mc = import_handle(&m, fd, "multicast object");
		return;
	}
	r->size = mp.size = team_size(r->n, bytes);
	cu(cuMulticastCreate(&r->mc, &mp), "cuMulticastCreate");
	fd = export_handle(r->mc, &m);
	m.size = r->size;
	for (k = 1; k < r->n; k++)
		send_msg(r->socks[k], &m, sizeof(m), fd);
	if (fd >= 0)
		close(fd);
}

/* This rank's buffer: shareable, since a shareable object binds only such. */
static void alloc_buffer(struct rank *r)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.requestedHandleTypes = share_type(),
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, r->dev },
	};
	size_t gran;

	cu(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM),
	   "cuMemGetAllocationGranularity");
	if (r->size % gran)
		die("object size %zu is not a multiple of the allocation granularity %zu",
		    r->size, gran);
	cu(cuMemCreate(&r->mem, r->size, &prop, 0), "cuMemCreate");
	r->buf_va = map(r->mem, r->size, r->dev);
}

static void describe_binding(struct rank *r, struct binding *all)
{
	struct binding b = {
		.node = r->node, .dev = r->dev, .pid = getpid(), .mc_offset = 0,
		.size = r->size,
	};

	cu(cuDeviceGetName(b.name, sizeof(b.name), r->dev), "cuDeviceGetName");
	gather(r, &b, all, sizeof(b));
}

/* Every rank loads the kernel's PTX on its own device. */
static void setup_kernel(struct rank *r)
{
	cu(cuModuleLoadData(&r->mod, cumc_allreduce_ptx), "cuModuleLoadData");
	cu(cuModuleGetFunction(&r->kernel_f32, r->mod, "allreduce_f32"),
	   "cuModuleGetFunction(allreduce_f32)");
	cu(cuModuleGetFunction(&r->kernel_bf16, r->mod, "allreduce_bf16"),
	   "cuModuleGetFunction(allreduce_bf16)");
}

static void setup_team(struct rank *r, size_t bytes, struct binding *all)
{
	CUcontext ctx;

	cu(cuInit(0), "cuInit");
	/* A node's ranks are consecutive; each takes one of its own GPUs. */
	cu(cuDeviceGet(&r->dev, r->id - r->node * (r->n / opt.nodes)), "cuDeviceGet");
	cu(cuDevicePrimaryCtxRetain(&ctx, r->dev), "cuDevicePrimaryCtxRetain");
	cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	/* The signal pad follows the message; fresh memory is zero. */
	r->pad_offset = bytes;
	share_object(r, opt.kernel ? bytes + PAD_BYTES : bytes);
	cu(cuMulticastAddDevice(r->mc, r->dev), "cuMulticastAddDevice");
	barrier(r);
	alloc_buffer(r);
	/* Waits until every rank has added its device. */
	cu(cuMulticastBindMem(r->mc, 0, r->mem, 0, r->size, 0), "cuMulticastBindMem");
	r->mc_va = map(r->mc, r->size, r->dev);
	describe_binding(r, all);
	barrier(r);
}

/*
 * The ring pulls from the left neighbour only, so each rank maps that one
 * buffer: rank 0 gathers every rank's exported buffer and hands each rank
 * its left neighbour's.
 */
static CUmemGenericAllocationHandle left_buffer(struct rank *r)
{
	static struct handle_msg all[MAX_RANKS];
	struct handle_msg mine = { 0 };
	int fds[MAX_RANKS], fd, k;

	fd = export_handle(r->mem, &mine);
	if (r->id) {
		send_msg(r->socks[0], &mine, sizeof(mine), fd);
		if (fd >= 0)
			close(fd);
		fd = recv_msg(r->socks[0], &mine, sizeof(mine));
		return import_handle(&mine, fd, "left neighbour's buffer");
	}
	all[0] = mine;
	fds[0] = fd;
	for (k = 1; k < r->n; k++)
		fds[k] = recv_msg(r->socks[k], &all[k], sizeof(all[k]));
	/* Sent fds are closed here, rank 0's own export included. */
	for (k = 1; k < r->n; k++) {
		send_msg(r->socks[k], &all[k - 1], sizeof(all[k - 1]), fds[k - 1]);
		if (fds[k - 1] >= 0)
			close(fds[k - 1]);
	}
	return import_handle(&all[r->n - 1], fds[r->n - 1],
			     "left neighbour's buffer");
}

static void setup_ring(struct rank *r)
{
	r->left = left_buffer(r);
	r->left_va = map(r->left, r->size, r->dev);
	barrier(r);
}

static void teardown(struct rank *r)
{
	barrier(r);
	if (r->mod)
		cu(cuModuleUnload(r->mod), "cuModuleUnload");
	if (r->left_va) {
		unmap(r->left_va, r->size);
		cu(cuMemRelease(r->left), "cuMemRelease");
	}
	unmap(r->mc_va, r->size);
	cu(cuMulticastUnbind(r->mc, r->dev, 0, r->size), "cuMulticastUnbind");
	unmap(r->buf_va, r->size);
	cu(cuMemRelease(r->mem), "cuMemRelease");
	cu(cuMemRelease(r->mc), "cuMemRelease");
	cu(cuDevicePrimaryCtxRelease(r->dev), "cuDevicePrimaryCtxRelease");
}

static uint32_t f32_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

static float bits_f32(uint32_t b)
{
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

/* Round to nearest even, as the hardware narrows its f32 accumulator. */
static uint16_t f32_to_bf16(float f)
{
	uint32_t b = f32_bits(f);

	return (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}

static float elem(const struct run *run, uint32_t bits)
{
	return run->es == 4 ? bits_f32(bits) : bits_f32(bits << 16);
}

static uint32_t narrow(const struct run *run, float f)
{
	return run->es == 4 ? f32_bits(f) : f32_to_bf16(f);
}

/*
 * Rank @rank's element whose pattern index is @k: a small integer, so that
 * any sum of n of them is exact in bf16 as in f32 and the result does not
 * depend on the order a ring or the fabric adds them in. Element i of rank
 * r has index (5i + 11r) mod period; a period prime to the slice sizes
 * makes a misplaced slice show.
 */
static int value(const struct run *run, int rank, int k)
{
	return (k + 11 * rank) % run->period - run->period / 2;
}

static void fill(struct rank *r, const struct run *run)
{
	uint32_t tbl[256];
	size_t i;
	int k;

	for (k = 0; k < run->period; k++)
		tbl[k] = narrow(run, (float)value(run, r->id, k));
	for (i = 0, k = 0; i < run->count; i++) {
		if (run->es == 4)
			((uint32_t *)(uintptr_t)r->buf_va)[i] = tbl[k];
		else
			((uint16_t *)(uintptr_t)r->buf_va)[i] = (uint16_t)tbl[k];
		k += 5;
		if (k >= run->period)
			k -= run->period;
	}
}

/* The reference: accumulate in f32 in rank order, round once. */
static void reference(const struct run *run, int n, uint32_t *ref)
{
	int k, rank;

	for (k = 0; k < run->period; k++) {
		float acc = 0;

		for (rank = 0; rank < n; rank++)
			acc += (float)value(run, rank, k);
		ref[k] = narrow(run, acc);
	}
}

static uint32_t load(const struct rank *r, const struct run *run, size_t i)
{
	if (run->es == 4)
		return ((const uint32_t *)(uintptr_t)r->buf_va)[i];
	return ((const uint16_t *)(uintptr_t)r->buf_va)[i];
}

static struct verdict verify(struct rank *r, const struct run *run)
{
	struct verdict v = { .checked = run->count, .rank = r->id };
	uint32_t ref[256], got;
	size_t i;
	int k;

	reference(run, r->n, ref);
	for (i = 0, k = 0; i < run->count; i++) {
		got = load(r, run, i);
		if (got != ref[k] && !v.mismatches++) {
			v.first = i;
			v.got = got;
			v.want = ref[k];
		}
		k += 5;
		if (k >= run->period)
			k -= run->period;
	}
	return v;
}

/* The test hook of --corrupt: one wrong element must fail the run. */
static void corrupt(struct rank *r, const struct run *run)
{
	size_t i = run->count / 2;

	if (run->es == 4)
		((uint32_t *)(uintptr_t)r->buf_va)[i] ^= 0x40000000;
	else
		((uint16_t *)(uintptr_t)r->buf_va)[i] ^= 0x4000;
}

static size_t slice_start(const struct run *run, int n, int s)
{
	return run->count * s / n;
}

/* This rank's slice: reduce it over every member, then store it to all. */
static void mc_allreduce(struct rank *r, const struct run *run)
{
	static char tmp[CHUNK_BYTES];
	size_t per = CHUNK_BYTES / run->es, i, len;
	size_t lo = slice_start(run, r->n, r->id);
	size_t hi = slice_start(run, r->n, r->id + 1);
	CUdeviceptr at;

	for (i = lo; i < hi; i += len) {
		len = hi - i < per ? hi - i : per;
		at = r->mc_va + i * run->es;
		cu(cumcMultimemLdReduce(tmp, at, len, run->type, CUMC_OP_ADD),
		   "cumcMultimemLdReduce");
		cu(cumcMultimemSt(at, tmp, len * run->es), "cumcMultimemSt");
	}
}

/*
 * The same as device code: one launch on this rank's GPU, whose barriers
 * wait for the other ranks' launches.
 */
static void kernel_allreduce(struct rank *r, const struct run *run)
{
	CUdeviceptr mc = r->mc_va, mc_pad = r->mc_va + r->pad_offset;
	CUdeviceptr pad = r->buf_va + r->pad_offset;
	unsigned long long words = run->bytes / 4;
	void *params[] = { &mc, &mc_pad, &pad, &words, &r->id, &r->n, &r->signals };

	cu(cuLaunchKernel(run->es == 4 ? r->kernel_f32 : r->kernel_bf16,
			  KERNEL_BLOCKS, 1, 1, KERNEL_THREADS, 1, 1, 0, NULL,
			  params, NULL), "cuLaunchKernel");
	cu(cuCtxSynchronize(), "cuCtxSynchronize (the all-reduce kernel)");
	r->signals += 2 * r->n;
}

/* Chunk @c of the ring, which wraps around the rank numbers. */
static void chunk(const struct rank *r, const struct run *run, int c,
		  size_t *off, size_t *len)
{
	c = ((c % r->n) + r->n) % r->n;
	*off = slice_start(run, r->n, c);
	*len = slice_start(run, r->n, c + 1) - *off;
}

static void add_f32(float *d, const float *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		d[i] += s[i];
}

/* As the fabric does: add in f32, round to bf16. */
static void add_bf16(uint16_t *d, const uint16_t *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = f32_to_bf16(bits_f32((uint32_t)d[i] << 16) +
				   bits_f32((uint32_t)s[i] << 16));
}

static void add_from_left(struct rank *r, const struct run *run, int c)
{
	size_t off, len;

	chunk(r, run, c, &off, &len);
	if (run->es == 4)
		add_f32((float *)(uintptr_t)r->buf_va + off,
			(const float *)(uintptr_t)r->left_va + off, len);
	else
		add_bf16((uint16_t *)(uintptr_t)r->buf_va + off,
			 (const uint16_t *)(uintptr_t)r->left_va + off, len);
}

static void copy_from_left(struct rank *r, const struct run *run, int c)
{
	size_t off, len;

	chunk(r, run, c, &off, &len);
	memcpy((char *)(uintptr_t)r->buf_va + off * run->es,
	       (const char *)(uintptr_t)r->left_va + off * run->es, len * run->es);
}

/*
 * Reduce-scatter, then all-gather, pulling from the left neighbour: in
 * step s rank r adds (then copies) chunk r-s-1 (then r-s), which its
 * neighbour finished in the step before; the chunk the neighbour writes in
 * the same step is another one, so one barrier per step is enough.
 */
static void ring_allreduce(struct rank *r, const struct run *run)
{
	int s;

	for (s = 0; s < r->n - 1; s++) {
		add_from_left(r, run, r->id - s - 1);
		barrier(r);
	}
	for (s = 0; s < r->n - 1; s++) {
		copy_from_left(r, run, r->id - s);
		barrier(r);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Median time of one all-reduce, on rank 0's clock, between barriers. The
 * median, not the mean: the VM's vCPUs share the host with other work, and
 * one descheduled rank stalls a whole iteration.
 */
static double timed(struct rank *r, const struct run *run,
		    void (*algo)(struct rank *, const struct run *))
{
	double *t = calloc(opt.iters, sizeof(*t)), t0, median;
	int it;

	if (!t)
		die("out of memory");
	for (it = 0; it < opt.warmup + opt.iters; it++) {
		fill(r, run);
		barrier(r);
		t0 = now();
		algo(r, run);
		barrier(r);
		if (it >= opt.warmup)
			t[it - opt.warmup] = now() - t0;
	}
	qsort(t, opt.iters, sizeof(*t), cmp_double);
	median = opt.iters % 2 ? t[opt.iters / 2] :
		 (t[opt.iters / 2 - 1] + t[opt.iters / 2]) / 2;
	free(t);
	return median;
}

struct result {
	const char *algo;
	size_t bytes;
	cumcDataType type;
	double secs, algbw, busbw;
	uint64_t checked, mismatches;
};

static const char *type_name(cumcDataType t)
{
	return t == CUMC_F32 ? "f32" : "bf16";
}

static FILE *json_out, *data_out;
static struct json_object *json_rows;	/* the --json array, through json-c */
static int failed;

/* A figure as printf's @fmt writes it, a JSON number through json-c. */
static struct json_object *json_num(const char *fmt, double v)
{
	char text[64];

	snprintf(text, sizeof(text), fmt, v);
	return json_object_new_double_s(v, text);
}

static void json_row(const struct result *res, int n)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "algorithm", json_object_new_string(res->algo));
	json_object_object_add(o, "devices", json_object_new_int(n));
	json_object_object_add(o, "nodes", json_object_new_int(opt.nodes));
	json_object_object_add(o, "bytes", json_object_new_uint64(res->bytes));
	json_object_object_add(o, "type",
			       json_object_new_string(type_name(res->type)));
	json_object_object_add(o, "time_us", json_num("%.3f", res->secs * 1e6));
	json_object_object_add(o, "algbw_GBps", json_num("%.6f", res->algbw));
	json_object_object_add(o, "busbw_GBps", json_num("%.6f", res->busbw));
	json_object_object_add(o, "elements_checked",
			       json_object_new_uint64(res->checked));
	json_object_object_add(o, "mismatches",
			       json_object_new_uint64(res->mismatches));
	json_object_array_add(json_rows, o);
}

/*
 * The array, a row a line (bench/allreduce-nodes.sh reads it with awk):
 * each row serialized by json-c, only the brackets and commas between
 * them written here.
 */
static void json_write(FILE *f, struct json_object *array)
{
	size_t i, n = json_object_array_length(array);

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n  %s", i ? "," : "",
			json_object_to_json_string_ext(json_object_array_get_idx(array, i),
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	fputs("\n]\n", f);
}

/* Rank 0: fold every rank's verdict into @res and print the line. */
static void report(struct rank *r, const struct run *run, struct result *res,
		   const struct verdict *all)
{
	const struct verdict *bad = NULL;
	int k;

	res->checked = res->mismatches = 0;
	for (k = 0; k < r->n; k++) {
		res->checked += all[k].checked;
		res->mismatches += all[k].mismatches;
		if (all[k].mismatches && !bad)
			bad = &all[k];
	}
	res->algbw = run->bytes / res->secs / 1e9;
	res->busbw = res->algbw * 2 * (r->n - 1) / r->n;
	printf("%10zu  %-4s  %-9s  %10.1f us  %8.2f MB/s  %8.2f MB/s  "
	       "%llu elements checked, %llu mismatches\n", run->bytes,
	       type_name(run->type), res->algo, res->secs * 1e6, res->algbw * 1e3,
	       res->busbw * 1e3, (unsigned long long)res->checked,
	       (unsigned long long)res->mismatches);
	if (bad)
		printf("%*sfirst mismatch: rank %d element %llu: got %g, want %g\n",
		       18, "", bad->rank, (unsigned long long)bad->first,
		       elem(run, bad->got), elem(run, bad->want));
	if (json_out)
		json_row(res, r->n);
}

/* One algorithm on one run: time it, check it, gather the verdicts. */
static int measure(struct rank *r, const struct run *run, struct result *res,
		   void (*algo)(struct rank *, const struct run *))
{
	struct verdict mine, all[MAX_RANKS];

	res->secs = timed(r, run, algo);
	if (r->id == opt.corrupt)
		corrupt(r, run);
	mine = verify(r, run);
	gather(r, &mine, all, sizeof(mine));
	if (r->id == 0)
		report(r, run, res, all);
	return mine.mismatches != 0;
}

static int run_size(struct rank *r, size_t bytes, cumcDataType type)
{
	struct result mc = { .algo = "multicast", .bytes = bytes, .type = type };
	struct result ring = { .algo = "ring", .bytes = bytes, .type = type };
	struct result kern = { .algo = "kernel", .bytes = bytes, .type = type };
	struct run run = { .bytes = bytes, .type = type };
	int kernel = opt.kernel && (!opt.kernel_max || bytes <= opt.kernel_max);
	int bad;

	run.es = type == CUMC_F32 ? 4 : 2;
	run.count = bytes / run.es;
	/* Odd, so that it is prime to the power-of-two slice sizes. */
	run.period = (256 / r->n - 1) | 1;
	bad = measure(r, &run, &mc, mc_allreduce);
	if (opt.ring)
		bad |= measure(r, &run, &ring, ring_allreduce);
	if (kernel)
		bad |= measure(r, &run, &kern, kernel_allreduce);
	if (r->id)
		return bad;
	if (opt.ring)
		printf("%18smulticast is %.2fx the ring's bus bandwidth\n", "",
		       mc.busbw / ring.busbw);
	if (kernel)
		printf("%18sthe kernel is %.2fx the CPU multicast path's bus bandwidth\n",
		       "", kern.busbw / mc.busbw);
	if (data_out) {
		fprintf(data_out, "%zu %.3f %.3f %.3f %.3f", bytes, mc.algbw * 1e3,
			mc.busbw * 1e3, ring.algbw * 1e3, ring.busbw * 1e3);
		/* gnuplot leaves out a NaN's point: a size the kernel skipped. */
		if (kernel)
			fprintf(data_out, " %.3f %.3f", kern.algbw * 1e3,
				kern.busbw * 1e3);
		else if (opt.kernel)
			fputs(" NaN NaN", data_out);
		fputc('\n', data_out);
	}
	failed |= mc.mismatches || ring.mismatches || kern.mismatches;
	return bad;
}

static void size_str(char *buf, size_t len, size_t bytes)
{
	if (bytes >= (1 << 30) && !(bytes % (1 << 30)))
		snprintf(buf, len, "%zu GiB", bytes >> 30);
	else if (bytes >= (1 << 20) && !(bytes % (1 << 20)))
		snprintf(buf, len, "%zu MiB", bytes >> 20);
	else
		snprintf(buf, len, "%zu KiB", bytes >> 10);
}

static void print_topology(struct rank *r, const struct binding *b)
{
	char sz[32];
	int k;

	size_str(sz, sizeof(sz), r->size);
	if (opt.nodes > 1)
		printf("topology: %d devices on %d nodes (%d each), one process each\n\n",
		       r->n, opt.nodes, r->n / opt.nodes);
	else
		printf("topology: %d devices, one process each\n\n", r->n);
	printf("  multicast object: team of %d, %s per member, shared as %s\n",
	       r->n, sz, opt.nodes > 1 ? "a fabric handle" : "a POSIX fd");
	printf("  created by rank 0, imported by ranks 1-%d, mapped by all %d\n",
	       r->n - 1, r->n);
	for (k = 0; k < r->n; k++) {
		if (opt.nodes > 1 && (k == 0 || b[k].node != b[k - 1].node))
			printf("   node %d:\n", b[k].node);
		printf("   |-- member %d: dev %d (%s, pid %d)  buffer bound @0x%zx..0x%zx\n",
		       k, b[k].dev, b[k].name, b[k].pid, b[k].mc_offset,
		       b[k].mc_offset + b[k].size);
	}
	printf("\n  rank r reduces and broadcasts slice r of the message "
	       "(1/%d of it)%s\n\n", r->n,
	       opt.ring ? "; the ring maps each rank's buffer in its right neighbour" : "");
	if (opt.kernel)
		printf("  the kernel: the same on each rank's GPU, %d blocks of %d threads,\n"
		       "  a block's part of the slice between barriers on a signal pad "
		       "(multimem.red, ld.acquire)\n\n", KERNEL_BLOCKS, KERNEL_THREADS);
}

static void print_header(struct rank *r)
{
	printf("all-reduce (sum), %d devices on %d node%s; time: median of %d "
	       "iterations after %d warmup;\nalgbw = bytes / time, "
	       "busbw = algbw * 2(n-1)/n\n\n", r->n, opt.nodes,
	       opt.nodes > 1 ? "s" : "", opt.iters, opt.warmup);
	printf("%10s  %-4s  %-9s  %13s  %13s  %13s  %s\n", "bytes", "type",
	       "algorithm", "time/iter", "algbw", "busbw", "verification");
}

static int rank_main(struct rank *r)
{
	struct binding all[MAX_RANKS];
	size_t bytes;
	int bad = 0;

	setup_team(r, opt.max_bytes, all);
	if (opt.kernel)
		setup_kernel(r);
	if (opt.ring)
		setup_ring(r);
	if (r->id == 0) {
		print_topology(r, all);
		print_header(r);
	}
	for (bytes = opt.min_bytes; bytes <= opt.max_bytes; bytes *= 2) {
		if (opt.types & TYPE_F32)
			bad |= run_size(r, bytes, CUMC_F32);
		if (opt.types & TYPE_BF16)
			bad |= run_size(r, bytes, CUMC_BF16);
	}
	teardown(r);
	return bad || failed;
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	}
	if (*end || !v || v % 4) {
		fprintf(stderr, "cumc-allreduce: bad size '%s' (a multiple of 4 bytes)\n", s);
		exit(2);
	}
	return v;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cumc-allreduce [-n devices] [-b bytes] [-i iters] [-w warmup]\n"
		"         [--version]\n"
		"         [-t f32|bf16|both] [--ring] [--kernel [--kernel-max BYTES]]\n"
		"         [--sweep MIN:MAX] [--json FILE]\n"
		"         [--data FILE] [--corrupt RANK]\n"
		"         [--nodes N --root HOST[:PORT] [--node K]]\n"
		"sizes take k, M, G suffixes; --sweep doubles from MIN to MAX;\n"
		"--data writes 'bytes algbw busbw ring_algbw ring_busbw' rows (MB/s),\n"
		"with 'kernel_algbw kernel_busbw' after them under --kernel;\n"
		"--kernel: the multicast all-reduce as device code too (PTX kernels),\n"
		"on messages up to --kernel-max BYTES (all unless given);\n"
		"--nodes: the n devices are spread over N nodes, n/N each, and this\n"
		"runs node K's (K: $CUMC_NODE unless given); ranks meet at rank 0's\n"
		"node, HOST (port %d unless given)\n", DEFAULT_PORT);
	exit(status);
}

static void parse_sweep(const char *s)
{
	char *colon = strchr(s, ':');

	if (!colon)
		usage(2);
	*colon = 0;
	opt.min_bytes = parse_size(s);
	opt.max_bytes = parse_size(colon + 1);
	if (opt.min_bytes > opt.max_bytes)
		usage(2);
}

static void parse_type(const char *s)
{
	if (!strcmp(s, "f32"))
		opt.types = TYPE_F32;
	else if (!strcmp(s, "bf16"))
		opt.types = TYPE_BF16;
	else if (!strcmp(s, "both"))
		opt.types = TYPE_F32 | TYPE_BF16;
	else
		usage(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "ring", no_argument, NULL, 'r' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "kernel-max", required_argument, NULL, 'M' },
		{ "sweep", required_argument, NULL, 's' },
		{ "json", required_argument, NULL, 'j' },
		{ "data", required_argument, NULL, 'd' },
		{ "corrupt", required_argument, NULL, 'c' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "node", required_argument, NULL, 'K' },
		{ "root", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env_node = getenv("CUMC_NODE");
	int c, node_given = 0;

	while ((c = getopt_long(argc, argv, "n:b:i:w:t:hV", longs, NULL)) != -1) {
		switch (c) {
		case 'n': opt.n = atoi(optarg); break;
		case 'b': opt.min_bytes = opt.max_bytes = parse_size(optarg); break;
		case 'i': opt.iters = atoi(optarg); break;
		case 'w': opt.warmup = atoi(optarg); break;
		case 't': parse_type(optarg); break;
		case 'r': opt.ring = 1; break;
		case 'k': opt.kernel = 1; break;
		case 'M': opt.kernel_max = parse_size(optarg); break;
		case 's': parse_sweep(optarg); break;
		case 'j': opt.json = optarg; break;
		case 'd': opt.data = optarg; break;
		case 'c': opt.corrupt = atoi(optarg); break;
		case 'N': opt.nodes = atoi(optarg); break;
		case 'K': opt.node = atoi(optarg); node_given = 1; break;
		case 'R': opt.root = optarg; break;
		case 'h': usage(0); break;
		case 'V':
			printf("cumc-allreduce %s\n", CUMC_VERSION);
			exit(0);
		default: usage(2);
		}
	}
	if (!node_given && env_node)
		opt.node = atoi(env_node);
	/* The data pattern keeps sums of n elements exact in bf16: n <= 127. */
	if (optind != argc || opt.n < 2 || opt.n > 127 || opt.iters < 1 ||
	    opt.warmup < 0 || opt.corrupt >= opt.n)
		usage(2);
	if (opt.kernel_max && !opt.kernel) {
		fprintf(stderr, "cumc-allreduce: --kernel-max is for --kernel\n");
		usage(2);
	}
	if (opt.nodes < 1 || opt.n % opt.nodes || opt.node < 0 ||
	    opt.node >= opt.nodes || (opt.nodes > 1 && !opt.root)) {
		fprintf(stderr, "cumc-allreduce: --nodes N needs --root, n a multiple "
			"of N and a node K below N\n");
		usage(2);
	}
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "cumc-allreduce: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

/* Start rank @id with the sockets it keeps; the child never returns. */
static pid_t spawn(int id, int (*pairs)[2], struct rank *r)
{
	pid_t pid = fork();
	int k;

	if (pid)
		return pid;
	my_rank = r->id = id;
	r->n = opt.n;
	r->node = opt.node;
	if (opt.nodes > 1)
		meet(r);
	else
		keep_pairs(r, pairs);
	if (id == 0 && opt.json)
		json_out = open_out(opt.json);
	if (id == 0 && opt.data) {
		data_out = open_out(opt.data);
		fprintf(data_out, "# bytes algbw busbw ring_algbw ring_busbw%s (MB/s)\n",
			opt.kernel ? " kernel_algbw kernel_busbw" : "");
	}
	if (json_out)
		json_rows = json_object_new_array();
	k = rank_main(r);
	if (json_out) {
		json_write(json_out, json_rows);
		json_object_put(json_rows);
	}
	if ((json_out && fclose(json_out)) || (data_out && fclose(data_out)))
		die("writing the output files: %s", strerror(errno));
	if (id == 0)
		printf("\nverification: %s\n", k ? "FAILED" :
		       "passed (every rank checked every element of every run)");
	exit(k);
}

/*
 * Wait for every rank. A rank that failed its verification (status 1)
 * finishes the run with the others; one that crashed or hit an error takes
 * the others down, since they may be waiting for it in a bind.
 */
static int reap(pid_t *pids, int n)
{
	int left = n, status, k, ret = 0;
	pid_t pid;

	while (left > 0) {
		pid = wait(&status);
		if (pid < 0)
			break;
		left--;
		for (k = 0; k < n; k++)
			if (pids[k] == pid)
				pids[k] = 0;
		if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
			ret = ret ? ret : WEXITSTATUS(status);
			continue;
		}
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
		for (k = 0; k < n; k++)
			if (pids[k])
				kill(pids[k], SIGKILL);
	}
	return ret;
}

int main(int argc, char **argv)
{
	static int pairs[MAX_RANKS][2];
	static pid_t pids[MAX_RANKS];
	static struct rank r;
	int k, local, first;

	parse_args(argc, argv);
	/*
	 * Line by line: when a rank fails, reap() kills the others, and a
	 * report rank 0 had only buffered would be lost with it.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* This node's ranks: all of them, or its share across nodes. */
	local = opt.n / opt.nodes;
	first = opt.node * local;
	for (k = 1; opt.nodes == 1 && k < opt.n; k++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pairs[k]))
			die("socketpair: %s", strerror(errno));
	fflush(stdout);
	for (k = 0; k < local; k++) {
		pids[k] = spawn(first + k, pairs, &r);
		if (pids[k] < 0)
			die("fork: %s", strerror(errno));
	}
	for (k = 1; opt.nodes == 1 && k < opt.n; k++) {
		close(pairs[k][0]);
		close(pairs[k][1]);
	}
	return reap(pids, local);
}
