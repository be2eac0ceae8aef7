// SPDX-License-Identifier: GPL-2.0
/*
 * System-memory GPUs added and lost through cumc's own bus
 * (/sys/bus/cumc/new_device and del_device, Documentation/devices.md):
 * the checks of cumc_unplug.c (cumc_lost.h) without QEMU's monitor, and
 * what only the bus can do: add a GPU, add one again under an index
 * deleted before, refuse bad requests, take requests from many threads at
 * once, run out of ordinals. Every test adds the devices it loses, at
 * indexes nobody else uses, so it runs in any VM; lost devices keep their
 * ordinals until the module goes, so the program runs last in its VM,
 * with the unplug tests.
 */
#include <pthread.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_nl.h"
#include "cumc_selftest.h"
#include "nl_monitor.h"
#include "cumc_lost.h"

#define SZ_2M (2UL << 20)
#define BUS "/sys/bus/cumc/"
/* Indexes new_device takes: 0 to CUMC_MAX_DEVICES - 1. */
#define BUS_IDS CUMC_MAX_DEVICES

static int bus_write(const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), BUS "%s", file);
	return st_write_file(path, text);
}

static int bus_new(unsigned int id)
{
	char text[16];

	snprintf(text, sizeof(text), "%u\n", id);
	return bus_write("new_device", text);
}

static int bus_del(unsigned int id)
{
	char text[16];

	snprintf(text, sizeof(text), "%u\n", id);
	return bus_write("del_device", text);
}

static bool bus_has(unsigned int id)
{
	char path[64];

	snprintf(path, sizeof(path), BUS "devices/cumc%u", id);
	return access(path, F_OK) == 0;
}

/* The ordinal of the GPU of bus device @id, or -errno of the read. */
static long bus_ordinal(unsigned int id)
{
	char path[80], buf[16] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), BUS "devices/cumc%u/ordinal", id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n < 0 ? -errno : strtol(buf, NULL, 10);
}

/* The highest index from @below down that has no device, or -1. */
static int bus_free_id(int below)
{
	for (int id = below - 1; id >= 0; id--)
		if (!bus_has(id))
			return id;
	return -1;
}

/* The bus's devices, one bit per index. */
static void bus_list(bool *present)
{
	for (int id = 0; id < BUS_IDS; id++)
		present[id] = bus_has(id);
}

/* Add bus device @id: the ordinal its GPU got, or -errno. */
static long bus_add(unsigned int id)
{
	int ret = bus_new(id);

	return ret ? ret : bus_ordinal(id);
}

struct dev_row {
	bool listed, lost;
	char backend[16];
};

static int dev_row_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct dev_row *rows = arg;
	struct dev_row *r;
	__u32 ordinal;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL) ||
	    !tb[CUMC_A_DEV_ORDINAL])
		return NL_OK;
	ordinal = nla_get_u32(tb[CUMC_A_DEV_ORDINAL]);
	if (ordinal >= CUMC_MAX_DEVICES)
		return NL_OK;
	r = &rows[ordinal];
	r->listed = true;
	r->lost = tb[CUMC_A_DEV_LOST] != NULL;
	if (tb[CUMC_A_DEV_BACKEND])
		nla_strlcpy(r->backend, tb[CUMC_A_DEV_BACKEND],
			    sizeof(r->backend));
	return NL_OK;
}

/* The control plane's DEV_GET dump, by ordinal: 0 or -errno. */
static int dev_dump(struct dev_row *rows)
{
	struct cumc_nl nl;
	int ret;

	memset(rows, 0, sizeof(*rows) * CUMC_MAX_DEVICES);
	ret = cumc_nl_open(&nl);
	if (ret)
		return ret;
	ret = cumc_nl_transact(&nl, cumc_nl_msg(&nl, CUMC_CMD_DEV_GET,
						NLM_F_DUMP),
			       dev_row_cb, rows);
	cumc_nl_close(&nl);
	return ret;
}

/* Delete bus device *@id. */
static int bus_lose(void *id, char *why, size_t len)
{
	int ret = bus_del(*(int *)id);

	snprintf(why, len, "del_device: %s", strerror(-ret));
	return ret;
}

/*
 * Two GPUs added for the test: @lost_id's, which it loses, and
 * @other_id's, which stays; the teardown deletes what is left of them.
 */
FIXTURE(bus) {
	int fd;
	struct st_objects base;
	int lost_id, other_id;
	long lost, other;
	struct monitor mon;
};

FIXTURE_SETUP(bus)
{
	self->fd = -1;
	self->lost_id = -1;
	self->other_id = -1;
	ASSERT_EQ(0, access(BUS "new_device", W_OK));
	ASSERT_EQ(0, st_objects_read(&self->base));
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	self->lost_id = bus_free_id(BUS_IDS);
	ASSERT_LE(0, self->lost_id);
	self->lost = bus_add(self->lost_id);
	ASSERT_LE(0, self->lost) TH_LOG("new_device %d: %s", self->lost_id,
					 strerror(-self->lost));
	self->other_id = bus_free_id(self->lost_id);
	ASSERT_LE(0, self->other_id);
	self->other = bus_add(self->other_id);
	ASSERT_LE(0, self->other);
	ASSERT_EQ(0, monitor_open(&self->mon));
}

FIXTURE_TEARDOWN(bus)
{
	if (self->mon.sk)
		nl_socket_free(self->mon.sk);
	if (self->fd >= 0)
		close(self->fd);
	if (self->lost_id >= 0 && bus_has(self->lost_id))
		bus_del(self->lost_id);
	if (self->other_id >= 0 && bus_has(self->other_id))
		bus_del(self->other_id);
}

/*
 * The GPU added last got the next ordinal; the driver API, the control
 * plane and sysfs all see it, as a system-memory device of its index;
 * its memory works, alone and in a team with another GPU.
 */
TEST_F(bus, hot_added)
{
	struct dev_row rows[CUMC_MAX_DEVICES];
	struct cumc_device_info info;
	__u64 mem, mem_second, mc, addr;

	EXPECT_EQ(self->lost + 1, self->other);
	EXPECT_EQ(self->other + 1, st_num_devices(self->fd));
	ASSERT_EQ(0, st_device_info(self->fd, self->other, &info));
	EXPECT_EQ(0x10 + self->other_id, info.pci_bus);
	EXPECT_LT(0, info.mem_total);
	EXPECT_EQ(info.mem_total, info.mem_free);
	ASSERT_EQ(0, dev_dump(rows));
	EXPECT_TRUE(rows[self->other].listed);
	EXPECT_FALSE(rows[self->other].lost);
	EXPECT_STREQ("system", rows[self->other].backend);

	ASSERT_EQ(0, st_mem_create(self->fd, self->other, 0, SZ_2M, &mem));
	ASSERT_EQ(0, st_map_new(self->fd, mem, SZ_2M, self->other,
				CUMC_ACCESS_READWRITE, &addr));
	((volatile unsigned char *)addr)[SZ_2M - 1] = 0x77;
	EXPECT_EQ(0x77, st_touch((unsigned char *)addr + SZ_2M - 1));
	ASSERT_EQ(0, st_mem_create(self->fd, self->lost, 0, SZ_2M,
				   &mem_second));
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, SZ_2M, &mc));
	EXPECT_EQ(0, st_mc_add(self->fd, mc, self->other));
	EXPECT_EQ(0, st_mc_add(self->fd, mc, self->lost));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, mc, self->other, 0, mem, 0,
				    SZ_2M));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, mc, self->lost, 0, mem_second,
				    0, SZ_2M));
	EXPECT_EQ(0, st_mc_unbind(self->fd, mc, self->other, 0, SZ_2M));
	EXPECT_EQ(0, st_mc_unbind(self->fd, mc, self->lost, 0, SZ_2M));
	EXPECT_EQ(0, st_release(self->fd, mc));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, SZ_2M));
	EXPECT_EQ(0, st_release(self->fd, mem_second));
	EXPECT_EQ(0, st_release(self->fd, mem));
	close(self->fd);
	self->fd = -1;
	ST_EXPECT_OBJECTS(self->base, views);
}

/*
 * A GPU deleted from the bus under its users answers as one unplugged
 * from PCI does (cumc_lost.h's checks); its bus device is gone, its
 * ordinal stays, and the control plane lists it lost.
 */
TEST_F(bus, lost_gpu)
{
	struct dev_row rows[CUMC_MAX_DEVICES];
	long n = st_num_devices(self->fd);
	int fd;

	st_lost_gpu(_metadata, &self->fd, self->lost, self->other, &self->mon,
		    &self->base, bus_lose, &self->lost_id);
	EXPECT_FALSE(bus_has(self->lost_id));
	fd = st_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(n, st_num_devices(fd));
	close(fd);
	ASSERT_EQ(0, dev_dump(rows));
	EXPECT_TRUE(rows[self->lost].listed);
	EXPECT_TRUE(rows[self->lost].lost);
	EXPECT_FALSE(rows[self->other].lost);
}

/*
 * An index deleted can be added again: a GPU with the same UUID at the
 * next ordinal, working, while the old ordinal stays lost. Unbinding the
 * driver loses a GPU too, and binding it again adds one.
 */
TEST_F(bus, added_again)
{
	struct cumc_device_info before, info;
	char name[16];
	long n, again;

	ASSERT_EQ(0, st_device_info(self->fd, self->lost, &before));
	ASSERT_EQ(0, bus_del(self->lost_id));
	n = st_num_devices(self->fd);
	again = bus_add(self->lost_id);
	ASSERT_EQ(n, again);
	EXPECT_EQ(n + 1, st_num_devices(self->fd));
	EXPECT_EQ(-ENOLINK, st_device_info(self->fd, self->lost, &info));
	ASSERT_EQ(0, st_device_info(self->fd, again, &info));
	EXPECT_EQ(0, memcmp(before.uuid, info.uuid, sizeof(info.uuid)));

	snprintf(name, sizeof(name), "cumc%d", self->other_id);
	ASSERT_EQ(0, bus_write("drivers/cumc/unbind", name));
	EXPECT_TRUE(bus_has(self->other_id));
	EXPECT_EQ(-ENODEV, bus_ordinal(self->other_id));
	EXPECT_EQ(-ENOLINK, st_device_info(self->fd, self->other, &info));
	ASSERT_EQ(0, bus_write("drivers/cumc/bind", name));
	EXPECT_EQ(n + 1, bus_ordinal(self->other_id));
	EXPECT_EQ(0, st_device_info(self->fd, n + 1, &info));
}

/*
 * Bad requests are refused with EINVAL, an index in use with EEXIST, an
 * unknown one with ENODEV; none adds, removes or loses anything.
 */
TEST_F(bus, bad_requests)
{
	static const char *const bad[] = {
		"\n", "x", "-1", "+1", " 1", "1 ", "1\n\n", "0x1", "1 2",
		"128", "4294967296", "99999999999999999999",
	};
	bool present[BUS_IDS], after[BUS_IDS];
	struct dev_row rows[CUMC_MAX_DEVICES];
	long n = st_num_devices(self->fd);
	int free_id = bus_free_id(self->other_id);
	char id[16];

	ASSERT_LE(0, free_id);
	bus_list(present);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, bus_write("new_device", bad[i]))
			TH_LOG("new_device \"%s\"", bad[i]);
		EXPECT_EQ(-EINVAL, bus_write("del_device", bad[i]))
			TH_LOG("del_device \"%s\"", bad[i]);
	}
	EXPECT_EQ(-EEXIST, bus_new(self->lost_id));
	EXPECT_EQ(-ENODEV, bus_del(free_id));
	/* Its number without a newline is the same request. */
	snprintf(id, sizeof(id), "%d", free_id);
	EXPECT_EQ(-ENODEV, bus_write("del_device", id));

	bus_list(after);
	EXPECT_EQ(0, memcmp(present, after, sizeof(after)));
	EXPECT_EQ(n, st_num_devices(self->fd));
	ASSERT_EQ(0, dev_dump(rows));
	for (long d = 0; d < n; d++)
		EXPECT_TRUE(rows[d].listed);
	EXPECT_FALSE(rows[self->lost].lost);
	EXPECT_FALSE(rows[self->other].lost);
	EXPECT_EQ(self->lost, bus_ordinal(self->lost_id));
}

#define RACERS 4
#define ROUNDS 3

struct racer {
	int ids[2];	/* its own index, and one every racer shares */
	int added, deleted, refused;
};

/* Add and delete its own index and the shared one, in turns. */
static void *race(void *arg)
{
	struct racer *r = arg;

	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < 2; i++) {
			int ret = bus_new(r->ids[i]);

			r->added += !ret;
			r->refused += ret == -EEXIST;
		}
		for (int i = 0; i < 2; i++) {
			int ret = bus_del(r->ids[i]);

			r->deleted += !ret;
			r->refused += ret == -ENODEV;
		}
	}
	return NULL;
}

/*
 * new_device and del_device from several threads at once: each request
 * either works or is refused for the state it found; every GPU added got
 * an ordinal of its own; none is left behind.
 */
TEST_F(bus, concurrent)
{
	struct racer racers[RACERS] = { 0 };
	pthread_t threads[RACERS];
	struct dev_row rows[CUMC_MAX_DEVICES];
	long n = st_num_devices(self->fd);
	int shared = bus_free_id(self->other_id), below = shared;
	int added = 0, deleted = 0, requests = 0;

	ASSERT_LE(0, shared);
	for (int t = 0; t < RACERS; t++) {
		racers[t].ids[0] = bus_free_id(below);
		ASSERT_LE(0, racers[t].ids[0]);
		below = racers[t].ids[0];
		racers[t].ids[1] = shared;
	}
	for (int t = 0; t < RACERS; t++)
		ASSERT_EQ(0, pthread_create(&threads[t], NULL, race,
					    &racers[t]));
	for (int t = 0; t < RACERS; t++) {
		ASSERT_EQ(0, pthread_join(threads[t], NULL));
		added += racers[t].added;
		deleted += racers[t].deleted;
		requests += racers[t].added + racers[t].deleted +
			    racers[t].refused;
	}
	EXPECT_EQ(RACERS * ROUNDS * 4, requests);
	EXPECT_EQ(added, deleted);
	/* At least each racer's own index, every round. */
	EXPECT_LE(RACERS * ROUNDS, added);
	EXPECT_FALSE(bus_has(shared));
	for (int t = 0; t < RACERS; t++)
		EXPECT_FALSE(bus_has(racers[t].ids[0]));
	EXPECT_EQ(n + added, st_num_devices(self->fd));
	ASSERT_EQ(0, dev_dump(rows));
	for (long d = n; d < n + added; d++) {
		EXPECT_TRUE(rows[d].listed && rows[d].lost)
			TH_LOG("device %ld", d);
	}
}

/*
 * A load gives out CUMC_MAX_DEVICES ordinals and lost devices keep
 * theirs: adding and deleting runs out of them with ENOSPC, the device
 * refused left off the bus. It uses up the ordinals: the last test.
 */
TEST_F(bus, ordinals_run_out)
{
	long n = st_num_devices(self->fd);
	int id = bus_free_id(self->other_id);
	struct cumc_device_info info;

	ASSERT_LE(0, id);
	for (; n < CUMC_MAX_DEVICES; n++) {
		ASSERT_EQ(n, bus_add(id));
		ASSERT_EQ(0, bus_del(id));
	}
	EXPECT_EQ(-ENOSPC, bus_new(id));
	EXPECT_FALSE(bus_has(id));
	EXPECT_EQ(CUMC_MAX_DEVICES, st_num_devices(self->fd));
	/* What is on the bus still works, and still goes. */
	EXPECT_EQ(0, st_device_info(self->fd, self->other, &info));
	EXPECT_EQ(0, bus_del(self->other_id));
}

TEST_HARNESS_MAIN
