// SPDX-License-Identifier: GPL-2.0
/*
 * Isolation between users (Documentation/security.md): what an
 * unprivileged user (nobody, uid 65534) can do to others through
 * /dev/cumc.
 *
 * - Limits hold per user, however many files it opens (max_user_*): one
 *   process of nobody's with several clients stops at its user's limit of
 *   address ranges, mappings and bindings (EDQUOT), while root goes on.
 * - The module's 65535 address ranges: the unprivileged, all users
 *   together, stop short of reserved_address_ranges (ENOSPC); root can
 *   still reserve and create multicast objects.
 * - A member view made from a multicast mapping loses write access when
 *   CUMC_SET_ACCESS takes it from the mapping (SIGSEGV on the next write),
 *   and gets it back with it.
 * - Only the user who bound memory into a multicast object may unbind it
 *   (EPERM for another user, root included; another client of the same
 *   user may).
 *
 * Usage per user comes from /sys/kernel/debug/cumc/users (root only):
 * "shared_ranges N", then "UID handles N objects N ranges N ...".
 */
#include <grp.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define NOBODY 65534
#define NOGROUP 65533	/* another unprivileged user */

static const char *const params[] = {
	"max_address_ranges", "max_user_address_ranges",
	"reserved_address_ranges", "max_mappings", "max_user_mappings",
	"max_bindings", "max_user_bindings",
};

#define NR_PARAMS (sizeof(params) / sizeof(params[0]))

/*
 * Count @name of user @uid (or, @uid -1, shared_ranges): 0 when the user
 * has no record (nothing charged), -1 when the file cannot be read.
 */
static long long user_usage(long uid, const char *name)
{
	char line[512], *tok, *save;
	long long ret = 0;
	FILE *f;

	f = fopen("/sys/kernel/debug/cumc/users", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \n", &save);
		if (!tok)
			continue;
		if (uid < 0 ? strcmp(tok, "shared_ranges") :
			      strtol(tok, NULL, 10) != uid ||
			      !strcmp(tok, "shared_ranges"))
			continue;
		if (uid < 0) {
			tok = strtok_r(NULL, " \n", &save);
			ret = tok ? strtoll(tok, NULL, 10) : -1;
			break;
		}
		while ((tok = strtok_r(NULL, " \n", &save))) {
			char *val = strtok_r(NULL, " \n", &save);

			if (val && !strcmp(tok, name))
				ret = strtoll(val, NULL, 10);
		}
		break;
	}
	fclose(f);
	return ret;
}

/* Become @uid for good: no groups, no capabilities. */
static int become(uid_t uid)
{
	return setgroups(0, NULL) || setgid(uid) || setuid(uid) ? -1 : 0;
}

/*
 * A child that runs @fn as @uid and, once @fn has returned 0, tells the
 * parent (hold_wait()) and keeps what it made until hold_release().
 */
struct hold {
	pid_t pid;
	int ready[2], go[2];
};

static int hold_start(struct hold *h, uid_t uid,
		      int (*fn)(void *arg), void *arg)
{
	char c = 0;
	int ret;

	if (pipe(h->ready) || pipe(h->go))
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		close(h->ready[0]);
		close(h->go[1]);
		if (become(uid))
			_exit(100);
		ret = fn(arg);
		if (ret)
			_exit(ret);
		if (write(h->ready[1], &c, 1) != 1)
			_exit(101);
		/* Until the parent closes its end. */
		if (read(h->go[0], &c, 1) < 0)
			_exit(102);
		_exit(0);
	}
	close(h->ready[1]);
	close(h->go[0]);
	return 0;
}

/* 0 when the child got there, else its exit status. */
static int hold_wait(struct hold *h)
{
	char c;

	if (read(h->ready[0], &c, 1) == 1)
		return 0;
	return st_wait_exit(h->pid);
}

/* Let the child go; its exit status. */
static int hold_release(struct hold *h)
{
	int ret;

	close(h->go[1]);
	ret = st_wait_exit(h->pid);
	close(h->ready[0]);
	return ret;
}

FIXTURE(iso) {
	int fd;
	__u64 g;
	long long saved[NR_PARAMS];
	struct st_objects base;
};

FIXTURE_SETUP(iso)
{
	struct cumc_query q;
	size_t i;

	ASSERT_EQ(0, st_objects_read(&self->base));
	for (i = 0; i < NR_PARAMS; i++) {
		self->saved[i] = st_param_uint(params[i]);
		ASSERT_LE(0, self->saved[i]) TH_LOG("no parameter %s", params[i]);
	}
	ASSERT_LE(0, user_usage(-1, NULL)) TH_LOG("no debugfs users file");
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, st_query(self->fd, &q));
	self->g = q.mc_granularity;
}

FIXTURE_TEARDOWN(iso)
{
	struct st_objects now;
	size_t i;

	close(self->fd);
	for (i = 0; i < NR_PARAMS; i++)
		EXPECT_EQ(0, st_param_set(params[i], self->saved[i]));
	EXPECT_EQ(0, st_objects_settle(&self->base, &now, 2000));
	st_objects_diff(&self->base, &now);
	EXPECT_EQ(0, user_usage(NOBODY, "ranges"));
	EXPECT_EQ(0, user_usage(NOBODY, "mappings"));
	EXPECT_EQ(0, user_usage(-1, NULL));
}

struct args {
	__u64 g;
	int n;		/* how many the child expects to get */
	int err;	/* and the errno of the next */
};

/* Reservations: 4 in each of 4 clients, stopping at the user's 10. */
static int ranges_child(void *p)
{
	struct args *a = p;
	int fd[4], i, k, got = 0, ret;
	__u64 addr, mc;

	for (k = 0; k < 4; k++) {
		fd[k] = st_open();
		if (fd[k] < 0)
			return 10;
	}
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 5; i++) {
			ret = st_va_reserve(fd[k], a->g, 0, 0, &addr);
			if (ret)
				break;
			got++;
		}
		/* 4 per client, then the client's quota or the user's. */
		if (ret != -EDQUOT)
			return 11;
	}
	if (got != a->n)
		return 12;
	/* A multicast object takes an address range too. */
	if (st_mc_create(fd[3], 1, 0, a->g, &mc) != -EDQUOT)
		return 13;
	return 0;
}

TEST_F(iso, user_limit_holds_across_clients)
{
	struct args a = { .g = self->g, .n = 10 };
	struct hold h;
	__u64 addr[8], mc;
	int i;

	ASSERT_EQ(0, st_param_set("max_address_ranges", 4));
	ASSERT_EQ(0, st_param_set("max_user_address_ranges", 10));
	ASSERT_EQ(0, hold_start(&h, NOBODY, ranges_child, &a));
	ASSERT_EQ(0, hold_wait(&h)) TH_LOG("child failed");
	EXPECT_EQ(10, user_usage(NOBODY, "ranges"));
	EXPECT_EQ(10, user_usage(-1, NULL));
	/* Root is not nobody: its own client's quota (4) only. */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, st_va_reserve(self->fd, self->g, 0, 0, &addr[i]));
	EXPECT_EQ(-EDQUOT, st_mc_create(self->fd, 1, 0, self->g, &mc));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, st_va_free(self->fd, addr[i], self->g));
	EXPECT_EQ(0, st_mc_create(self->fd, 1, 0, self->g, &mc));
	EXPECT_EQ(0, st_release(self->fd, mc));
	EXPECT_EQ(0, hold_release(&h));
	EXPECT_EQ(0, user_usage(NOBODY, "ranges"));
}

/* Reserve until refused: a->n reservations, then a->err. */
static int pool_child(void *p)
{
	struct args *a = p;
	int fd[2], i, ret = 0;
	__u64 addr;

	fd[0] = st_open();
	fd[1] = st_open();
	if (fd[0] < 0 || fd[1] < 0)
		return 10;
	for (i = 0; i <= a->n; i++) {
		ret = st_va_reserve(fd[i & 1], a->g, 0, 0, &addr);
		if (ret)
			break;
	}
	if (i != a->n)
		return 11;
	if (ret != a->err)
		return 12;
	return 0;
}

TEST_F(iso, address_ranges_kept_for_root)
{
	struct args a = { .g = self->g, .n = 16, .err = -ENOSPC };
	struct args other = { .g = self->g, .n = 0, .err = -ENOSPC };
	struct hold h, h2;
	__u64 addr[32], mc;
	long long shared;
	int i;

	shared = user_usage(-1, NULL);
	ASSERT_LE(0, shared);
	/* The unprivileged, all together, may hold 16 more than now. */
	ASSERT_EQ(0, st_param_set("reserved_address_ranges",
			       65535 - (shared + 16)));
	ASSERT_EQ(0, hold_start(&h, NOBODY, pool_child, &a));
	ASSERT_EQ(0, hold_wait(&h)) TH_LOG("nobody's child failed");
	EXPECT_EQ(16, user_usage(NOBODY, "ranges"));
	/* Another user finds the pool empty too. */
	ASSERT_EQ(0, hold_start(&h2, NOGROUP, pool_child, &other));
	EXPECT_EQ(0, hold_wait(&h2)) TH_LOG("the other user's child failed");
	EXPECT_EQ(0, hold_release(&h2));
	/* Root is not starved: reservations and a multicast object. */
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, st_va_reserve(self->fd, self->g, 0, 0, &addr[i]));
	EXPECT_EQ(0, st_mc_create(self->fd, 1, 0, self->g, &mc));
	EXPECT_EQ(0, st_release(self->fd, mc));
	for (i = 0; i < 32; i++)
		EXPECT_EQ(0, st_va_free(self->fd, addr[i], self->g));
	EXPECT_EQ(0, hold_release(&h));
	EXPECT_EQ(shared, user_usage(-1, NULL));
}

TEST_F(iso, reserved_address_ranges_validated)
{
	EXPECT_EQ(-EINVAL, st_param_set("reserved_address_ranges", 65535));
	EXPECT_EQ(0, st_param_set("reserved_address_ranges", 0));
	EXPECT_EQ(-EINVAL, st_param_set("max_user_address_ranges", 0));
	EXPECT_EQ(-EINVAL, st_param_set("max_user_address_ranges", 65536));
	EXPECT_EQ(-EINVAL, st_param_set("max_user_mappings", 0));
	EXPECT_EQ(0, st_param_set("max_user_mappings", 7));
	EXPECT_EQ(7, st_param_uint("max_user_mappings"));
}

/*
 * One allocation mapped 4 times by each of two clients: the user's 6
 * stop the second client's third; an unmap makes room.
 */
static int mappings_child(void *p)
{
	struct args *a = p;
	__u64 mem[2], va[2];
	int fd[2], k, i, ret;

	for (k = 0; k < 2; k++) {
		fd[k] = st_open();
		if (fd[k] < 0 || st_mem_create(fd[k], 0, 0, a->g, &mem[k]) ||
		    st_va_reserve(fd[k], 4 * a->g, 0, 0, &va[k]))
			return 10;
	}
	for (i = 0; i < 4; i++)
		if (st_map(fd[0], va[0] + i * a->g, a->g, mem[0]))
			return 11;
	for (i = 0; i < 4; i++) {
		ret = st_map(fd[1], va[1] + i * a->g, a->g, mem[1]);
		if (ret)
			break;
	}
	if (i != 2 || ret != -EDQUOT)
		return 12;
	if (st_unmap(fd[0], va[0], a->g))
		return 13;
	if (st_map(fd[1], va[1] + 2 * a->g, a->g, mem[1]))
		return 14;
	return 0;
}

TEST_F(iso, mappings_per_user)
{
	struct args a = { .g = self->g };
	__u64 mem, va;
	struct hold h;
	int i;

	ASSERT_EQ(0, st_param_set("max_user_mappings", 6));
	ASSERT_EQ(0, hold_start(&h, NOBODY, mappings_child, &a));
	ASSERT_EQ(0, hold_wait(&h)) TH_LOG("child failed");
	EXPECT_EQ(6, user_usage(NOBODY, "mappings"));
	/* Root's mappings are its own. */
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	ASSERT_EQ(0, st_va_reserve(self->fd, 8 * self->g, 0, 0, &va));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, st_map(self->fd, va + i * self->g, self->g, mem));
	EXPECT_EQ(0, st_unmap(self->fd, va, 8 * self->g));
	EXPECT_EQ(0, st_va_free(self->fd, va, 8 * self->g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, hold_release(&h));
}

/* Two clients each bind into a team of their own: the user's 1 stops. */
static int bindings_child(void *p)
{
	struct args *a = p;
	__u64 mem[2], mc[2];
	int fd[2], k;

	for (k = 0; k < 2; k++) {
		fd[k] = st_open();
		if (fd[k] < 0 || st_mem_create(fd[k], 0, 0, a->g, &mem[k]) ||
		    st_mc_team(fd[k], 1, 0, a->g, &mc[k]))
			return 10;
	}
	if (st_mc_bind_mem(fd[0], mc[0], 0, 0, mem[0], 0, a->g))
		return 11;
	if (st_mc_bind_mem(fd[1], mc[1], 0, 0, mem[1], 0, a->g) != -EDQUOT)
		return 12;
	if (st_mc_unbind(fd[0], mc[0], 0, 0, a->g))
		return 13;
	if (st_mc_bind_mem(fd[1], mc[1], 0, 0, mem[1], 0, a->g))
		return 14;
	return 0;
}

TEST_F(iso, bindings_per_user)
{
	struct args a = { .g = self->g };
	struct hold h;

	ASSERT_EQ(0, st_param_set("max_user_bindings", 1));
	ASSERT_EQ(0, hold_start(&h, NOBODY, bindings_child, &a));
	EXPECT_EQ(0, hold_wait(&h)) TH_LOG("child failed");
	EXPECT_EQ(1, user_usage(NOBODY, "bindings"));
	EXPECT_EQ(0, hold_release(&h));
}

static sigjmp_buf probe_env;

static void probe_handler(int sig)
{
	siglongjmp(probe_env, sig);
}

/* 0 when the access went through, else the signal it raised. */
static int probe(volatile int *p, bool write, int value)
{
	struct sigaction sa = { .sa_handler = probe_handler }, old_segv, old_bus;
	int sig;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(probe_env, 1);
	if (!sig) {
		if (write)
			*p = value;
		else
			(void)*p;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

/* A team of one, bound, mapped and viewed; the view follows the grant. */
static int view_child(void *p)
{
	struct args *a = p;
	__u64 mem, mc, addr, view, len;
	volatile int *v;
	int fd;

	fd = st_open();
	if (fd < 0 || st_mem_create(fd, 0, 0, a->g, &mem) ||
	    st_mc_team(fd, 1, 0, a->g, &mc) ||
	    st_mc_bind_mem(fd, mc, 0, 0, mem, 0, a->g) ||
	    st_map_new(fd, mc, a->g, 0, CUMC_ACCESS_READWRITE, &addr) ||
	    st_mc_view(fd, addr, 0, &view, &len))
		return 10;
	v = (volatile int *)(uintptr_t)view;
	if (probe(v, true, 1))
		return 11;
	if (st_grant(fd, addr, a->g, 0, CUMC_ACCESS_READ))
		return 12;
	/* The page written above was writable: it must be gone. */
	if (probe(v, true, 2) != SIGSEGV)
		return 13;
	if (probe(v, false, 0) || *v != 1)
		return 14;
	if (st_grant(fd, addr, a->g, 0, CUMC_ACCESS_NONE))
		return 15;
	if (probe(v, false, 0) != SIGSEGV)
		return 16;
	/* Given back, the view can write again. */
	if (st_grant(fd, addr, a->g, 0, CUMC_ACCESS_READWRITE))
		return 17;
	if (probe(v, true, 3) || *v != 3)
		return 18;
	/* A view made read-only stays so. */
	if (st_grant(fd, addr, a->g, 0, CUMC_ACCESS_READ) ||
	    st_mc_view(fd, addr, 0, &view, &len))
		return 19;
	v = (volatile int *)(uintptr_t)view;
	if (probe(v, true, 4) != SIGSEGV || *v != 3)
		return 20;
	return 0;
}

TEST_F(iso, view_loses_write_with_its_mapping)
{
	struct args a = { .g = self->g };
	struct hold h;

	ASSERT_EQ(0, hold_start(&h, NOBODY, view_child, &a));
	EXPECT_EQ(0, hold_wait(&h)) TH_LOG("child failed");
	/* Views count as mappings: the mapping and two views. */
	EXPECT_EQ(3, user_usage(NOBODY, "mappings"));
	EXPECT_EQ(0, hold_release(&h));
}

/* A shareable team of one, bound by nobody's client; *@efd exports it. */
static int share_team(__u64 g, int fd, __u64 *mc, int *efd)
{
	__u64 mem;

	if (st_mem_create(fd, 0, CUMC_HANDLE_FD, g, &mem) ||
	    st_mc_team(fd, 1, CUMC_HANDLE_FD, g, mc) ||
	    st_mc_bind_mem(fd, *mc, 0, 0, mem, 0, g) ||
	    st_release(fd, mem))
		return -1;
	return st_export_fd(fd, *mc, efd);
}

/* Another client's unbind of @efd's object's binding. */
static int unbind_via(int efd, __u64 g)
{
	__u64 mc;
	int fd, ret;

	fd = st_open();
	if (fd < 0)
		return -1000;
	ret = st_import_fd(fd, efd, &mc);
	if (!ret)
		ret = st_mc_unbind(fd, mc, 0, 0, g);
	close(fd);
	return ret;
}

/* Where unbind_child() sends its export, for the parent. */
static int share_sock = -1;

static int unbind_child(void *p)
{
	struct args *a = p;
	int fd, efd;
	__u64 mc;

	fd = st_open();
	if (fd < 0 || share_team(a->g, fd, &mc, &efd))
		return 10;
	/* The descriptor, for other users to try, then this one. */
	if (fdpass_send(share_sock, efd))
		return 13;
	/* Wait until root says they tried. */
	if (read(share_sock, &mc, 1) != 1)
		return 14;
	/* Another client of the same user may: a peer of the same job. */
	if (unbind_via(efd, a->g))
		return 15;
	return 0;
}

TEST_F(iso, only_the_binders_user_unbinds)
{
	struct args a = { .g = self->g };
	struct hold h;
	int sv[2], efd;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	share_sock = sv[1];
	ASSERT_EQ(0, hold_start(&h, NOBODY, unbind_child, &a));
	close(sv[1]);
	/* Root, holding the object, may not undo nobody's binding. */
	efd = fdpass_recv(sv[0]);
	if (efd < 0)
		EXPECT_EQ(0, hold_release(&h)) TH_LOG("child failed");
	ASSERT_LE(0, efd);
	EXPECT_EQ(1, user_usage(NOBODY, "bindings"));
	EXPECT_EQ(-EPERM, unbind_via(efd, self->g));
	/* Nor may another user. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(become(NOGROUP) ? 1 :
		      unbind_via(efd, self->g) == -EPERM ? 0 : 2);
	EXPECT_EQ(0, st_wait_exit(pid));
	EXPECT_EQ(1, user_usage(NOBODY, "bindings"));
	close(efd);
	/* Now nobody's other client unbinds it. */
	ASSERT_EQ(1, write(sv[0], "", 1));
	EXPECT_EQ(0, hold_wait(&h)) TH_LOG("child failed");
	close(sv[0]);
	EXPECT_EQ(0, user_usage(NOBODY, "bindings"));
	EXPECT_EQ(0, hold_release(&h));
}

TEST_HARNESS_MAIN
