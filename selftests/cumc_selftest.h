/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the cumc selftests.
 */
#ifndef _CUMC_SELFTEST_H
#define _CUMC_SELFTEST_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

static inline int cumc_open(void)
{
	return open("/dev/cumc", O_RDWR | O_CLOEXEC);
}

/* The value of a module parameter, -1 when it cannot be read. */
static inline long cumc_param_uint(const char *name)
{
	char path[128];
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/cumc/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

#endif /* _CUMC_SELFTEST_H */
