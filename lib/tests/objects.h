/* SPDX-License-Identifier: MIT */
/*
 * Test helper: the one parser of the module's live-object counts,
 * /sys/kernel/debug/cumc/objects, by name, for tests that prove nothing
 * leaks. Shared by the library's tests (lib/tests/vmm.h) and the module's
 * selftests (selftests/cumc_selftest.h, which builds with -Ilib/tests).
 */
#ifndef CUMC_TESTS_OBJECTS_H
#define CUMC_TESTS_OBJECTS_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ST_OBJECTS_PATH "/sys/kernel/debug/cumc/objects"

/*
 * The live-object counts of debugfs, read by name, for tests that prove
 * nothing leaks. st_object_kinds lists them in the file's order.
 */
struct st_objects {
	long clients;
	long mems;
	long pages;
	long vas;
	long mappings;
	long mcs;
	long binds;
	long views;
	long usages;
};

#define ST_NUM_OBJECT_KINDS 9

#define ST_OBJECT_KIND(member) { #member, offsetof(struct st_objects, member) }
static const struct {
	const char *name;
	size_t offset;
} st_object_kinds[ST_NUM_OBJECT_KINDS] = {
	ST_OBJECT_KIND(clients), ST_OBJECT_KIND(mems), ST_OBJECT_KIND(pages),
	ST_OBJECT_KIND(vas), ST_OBJECT_KIND(mappings), ST_OBJECT_KIND(mcs),
	ST_OBJECT_KIND(binds), ST_OBJECT_KIND(views), ST_OBJECT_KIND(usages),
};
#undef ST_OBJECT_KIND

/* The count of kind @i of @o. */
static inline long *st_object(struct st_objects *o, int i)
{
	return (long *)((char *)o + st_object_kinds[i].offset);
}

/* 0, or -1 when the file cannot be read or has not every count. */
static inline int st_objects_read(struct st_objects *o)
{
	char name[32];
	int found = 0, i;
	long value;
	FILE *f;

	f = fopen(ST_OBJECTS_PATH, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", name, &value) == 2) {
		for (i = 0; i < ST_NUM_OBJECT_KINDS; i++) {
			if (!strcmp(name, st_object_kinds[i].name)) {
				*st_object(o, i) = value;
				found |= 1 << i;
			}
		}
	}
	fclose(f);
	return found == (1 << ST_NUM_OBJECT_KINDS) - 1 ? 0 : -1;
}

/* The counts now; all -1 when they cannot be read. */
static inline struct st_objects st_objects_now(void)
{
	struct st_objects o;

	if (st_objects_read(&o))
		memset(&o, 0xff, sizeof(o));
	return o;
}

/*
 * Wait up to @ms for the counts to equal @want: the last close of a file
 * (a dead process's, an exported descriptor in flight) may run a moment
 * after waitpid() returns. 0 when equal; otherwise -1, @now the last seen.
 */
static inline int st_objects_settle(const struct st_objects *want,
				    struct st_objects *now, int ms)
{
	for (;;) {
		if (!st_objects_read(now) && !memcmp(now, want, sizeof(*now)))
			return 0;
		if (ms <= 0)
			return -1;
		usleep(10000);
		ms -= 10;
	}
}

/* Print the counts that differ from @want; the number of them. */
static inline int st_objects_diff(const struct st_objects *want,
				  const struct st_objects *now)
{
	int i, bad = 0;

	for (i = 0; i < ST_NUM_OBJECT_KINDS; i++) {
		long w = *st_object((struct st_objects *)want, i);
		long n = *st_object((struct st_objects *)now, i);

		if (w == n)
			continue;
		fprintf(stderr, "# %s: %ld, expected %ld\n",
			st_object_kinds[i].name, n, w);
		bad++;
	}
	return bad;
}

#endif /* CUMC_TESTS_OBJECTS_H */
