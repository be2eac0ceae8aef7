// SPDX-License-Identifier: GPL-2.0
/*
 * cumc_team: one multicast team's life for the shell tests, which have no
 * ioctls of their own: a team of devices 0 and 1, memory of device 0 bound
 * and unbound, both freed. Exit status 0, or the errno of the failing step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/cumc.h>

static int step(int fd, unsigned long cmd, void *arg, const char *what)
{
	if (!ioctl(fd, cmd, arg))
		return 0;
	fprintf(stderr, "cumc_team: %s: %s\n", what, strerror(errno));
	return errno;
}

int main(void)
{
	struct cumc_query q = { .size = sizeof(q) };
	struct cumc_mc_create c = { .size = sizeof(c), .num_devices = 2 };
	struct cumc_mc_add_device a = { .size = sizeof(a) };
	struct cumc_mem_create m = { .size = sizeof(m) };
	struct cumc_mc_bind b = { .size = sizeof(b) };
	struct cumc_mc_unbind u = { .size = sizeof(u) };
	struct cumc_release r = { .size = sizeof(r) };
	int fd = open("/dev/cumc", O_RDWR), ret;

	if (fd < 0 || step(fd, CUMC_QUERY, &q, "query"))
		return 1;
	c.length = m.length = b.length = u.length = q.mc_granularity;
	if ((ret = step(fd, CUMC_MC_CREATE, &c, "mc create")))
		return ret;
	a.handle = b.handle = u.handle = c.out_handle;
	if ((ret = step(fd, CUMC_MC_ADD_DEVICE, &a, "add device 0")))
		return ret;
	a.device = 1;
	if ((ret = step(fd, CUMC_MC_ADD_DEVICE, &a, "add device 1")) ||
	    (ret = step(fd, CUMC_MEM_CREATE, &m, "mem create")))
		return ret;
	b.mem = m.out_handle;
	if ((ret = step(fd, CUMC_MC_BIND_MEM, &b, "bind")) ||
	    (ret = step(fd, CUMC_MC_UNBIND, &u, "unbind")))
		return ret;
	r.handle = c.out_handle;
	if ((ret = step(fd, CUMC_RELEASE, &r, "release mc")))
		return ret;
	r.handle = m.out_handle;
	return step(fd, CUMC_RELEASE, &r, "release mem");
}
