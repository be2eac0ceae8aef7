// SPDX-License-Identifier: GPL-2.0
/*
 * cumc_team: one multicast team's life for the shell tests, which have no
 * ioctls of their own: a team of devices 0 and 1, memory of device 0 bound
 * and unbound, both freed. Exit status 0, or the errno of the failing step.
 */
#include "../cumc_selftest.h"

/* @ret of a step: 0, or its errno after saying which step failed. */
static int step(int ret, const char *what)
{
	if (!ret)
		return 0;
	fprintf(stderr, "cumc_team: %s: %s\n", what, strerror(-ret));
	return -ret;
}

int main(void)
{
	struct cumc_query q;
	int fd = st_open(), ret;
	__u64 mc = 0, mem = 0;

	if (fd < 0 || step(st_query(fd, &q), "query"))
		return 1;
	if ((ret = step(st_mc_create(fd, 2, 0, q.mc_granularity, &mc),
			"mc create")) ||
	    (ret = step(st_mc_add(fd, mc, 0), "add device 0")) ||
	    (ret = step(st_mc_add(fd, mc, 1), "add device 1")) ||
	    (ret = step(st_mem_create(fd, 0, 0, q.mc_granularity, &mem),
			"mem create")) ||
	    (ret = step(st_mc_bind_mem(fd, mc, 0, 0, mem, 0, q.mc_granularity),
			"bind")) ||
	    (ret = step(st_mc_unbind(fd, mc, 0, 0, q.mc_granularity),
			"unbind")) ||
	    (ret = step(st_release(fd, mc), "release mc")))
		return ret;
	return step(st_release(fd, mem), "release mem");
}
