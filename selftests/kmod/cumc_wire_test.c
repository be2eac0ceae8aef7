// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the multi-node wire format (kmod/cumc_wire.c): what its
 * writers put on the wire, byte for byte, and that its readers refuse
 * every call that does not hold what it says. The Debian kernel has no
 * KUnit, so this is a module of its own, built with its own copy of
 * cumc_wire.c, that runs its cases when loaded: it prints TAP to the
 * kernel log and refuses to load (-EINVAL) when a case fails.
 * selftests/cumc_wire.sh loads it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>

#include "cumc_wire.c"

static const u8 cumk_test_uuid[16] = {
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};

static unsigned int cumk_test_failed;

/* A failed check names its line and the case goes on to its end. */
#define CUMK_EXPECT(cond)						\
	do {								\
		if (!(cond)) {						\
			pr_err("%s:%d: %s\n", __func__, __LINE__, #cond); \
			ok = false;					\
		}							\
	} while (0)

static u32 cumk_test_le32_at(const void *buf, size_t at)
{
	__le32 v;

	memcpy(&v, buf + at, sizeof(v));
	return le32_to_cpu(v);
}

/* Each record the writers make reads back as written, in order. */
static bool cumk_test_round_trip(void)
{
	const struct cumk_mc_record *r;
	struct cumk_remote_extent *room;
	struct cumk_wire_reader rd;
	struct cumk_wire_writer w;
	unsigned int max;
	bool ok = true;

	if (cumk_wire_init(&w, CUMC_IMEX_PAYLOAD_MAX))
		return false;
	cumk_wire_member(&w, 3, cumk_test_uuid, 7);
	room = cumk_wire_bind_room(&w, &max);
	CUMK_EXPECT(room && max >= 2);
	if (room) {
		room[0].mem_offset = cpu_to_le64(0);
		room[0].dev_offset = cpu_to_le64(0x200000);
		room[0].length = cpu_to_le64(0x1000);
		room[1].mem_offset = cpu_to_le64(0x1000);
		room[1].dev_offset = cpu_to_le64(0x800000);
		room[1].length = cpu_to_le64(0x3000);
	}
	cumk_wire_bind(&w, 3, cumk_test_uuid, 7, 0x400000, 0x4000, 2);
	cumk_wire_unbind(&w, 1, cumk_test_uuid, 7, 0x10000, 0x2000, 42);
	cumk_wire_state(&w, true);
	CUMK_EXPECT(!w.error);
	CUMK_EXPECT(le32_to_cpu(w.call->nr_records) == 4);
	CUMK_EXPECT(w.len == sizeof(*w.call) + 4 * sizeof(*r) +
			     2 * sizeof(r->extents[0]));

	CUMK_EXPECT(!cumk_wire_read_init(&rd, w.call, w.len));
	r = cumk_wire_read(&rd);
	CUMK_EXPECT(!IS_ERR_OR_NULL(r));
	if (!IS_ERR_OR_NULL(r)) {
		CUMK_EXPECT(le32_to_cpu(r->type) == CUMK_MC_RECORD_MEMBER);
		CUMK_EXPECT(le32_to_cpu(r->slot) == 3);
		CUMK_EXPECT(le32_to_cpu(r->node) == 7);
		CUMK_EXPECT(!memcmp(r->uuid, cumk_test_uuid, 16));
		CUMK_EXPECT(!r->nr_extents);
	}
	r = cumk_wire_read(&rd);
	CUMK_EXPECT(!IS_ERR_OR_NULL(r));
	if (!IS_ERR_OR_NULL(r)) {
		CUMK_EXPECT(le32_to_cpu(r->type) == CUMK_MC_RECORD_BIND);
		CUMK_EXPECT(le64_to_cpu(r->mc_offset) == 0x400000);
		CUMK_EXPECT(le64_to_cpu(r->length) == 0x4000);
		CUMK_EXPECT(le32_to_cpu(r->nr_extents) == 2);
		CUMK_EXPECT(le64_to_cpu(r->extents[1].dev_offset) ==
			    0x800000);
		CUMK_EXPECT(le64_to_cpu(r->extents[1].length) == 0x3000);
	}
	r = cumk_wire_read(&rd);
	CUMK_EXPECT(!IS_ERR_OR_NULL(r));
	if (!IS_ERR_OR_NULL(r)) {
		CUMK_EXPECT(le32_to_cpu(r->type) == CUMK_MC_RECORD_UNBIND);
		CUMK_EXPECT(le32_to_cpu(r->slot) == 1);
		CUMK_EXPECT(le64_to_cpu(r->mc_offset) == 0x10000);
		CUMK_EXPECT(le64_to_cpu(r->length) == 0x2000);
		CUMK_EXPECT(le32_to_cpu(r->cookie) == 42);
	}
	r = cumk_wire_read(&rd);
	CUMK_EXPECT(!IS_ERR_OR_NULL(r));
	if (!IS_ERR_OR_NULL(r)) {
		CUMK_EXPECT(le32_to_cpu(r->type) == CUMK_MC_RECORD_STATE);
		CUMK_EXPECT(le32_to_cpu(r->ready) == 1);
		CUMK_EXPECT(!memchr_inv(r->uuid, 0, sizeof(r->uuid)));
	}
	CUMK_EXPECT(!cumk_wire_read(&rd));
	CUMK_EXPECT(rd.at == w.len);
	cumk_wire_free(&w);
	return ok;
}

/*
 * The layout every node must agree on: a call's hold, then its count,
 * then records of 56 bytes and runs of 24, little-endian.
 */
static bool cumk_test_layout(void)
{
	struct cumk_wire_writer w;
	bool ok = true;
	const u8 *b;

	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	w.call->hold.hold = cpu_to_le32(0x01020304);
	cumk_wire_unbind(&w, 5, cumk_test_uuid, 9, 0x1122334455667788ULL,
			 0x2000, 0xabcd);
	b = (const u8 *)w.call;
	CUMK_EXPECT(sizeof(struct cumk_mc_call) == 8);
	CUMK_EXPECT(sizeof(struct cumk_mc_record) == 56);
	CUMK_EXPECT(sizeof(struct cumk_remote_extent) == 24);
	CUMK_EXPECT(b[0] == 0x04 && b[3] == 0x01);
	CUMK_EXPECT(cumk_test_le32_at(b, 4) == 1);
	CUMK_EXPECT(cumk_test_le32_at(b, 8) == CUMK_MC_RECORD_UNBIND);
	CUMK_EXPECT(cumk_test_le32_at(b, 12) == 5);
	CUMK_EXPECT(b[16] == 0x88 && b[23] == 0x11);
	CUMK_EXPECT(!memcmp(b + 32, cumk_test_uuid, 16));
	CUMK_EXPECT(cumk_test_le32_at(b, 48) == 9);
	CUMK_EXPECT(cumk_test_le32_at(b, 60) == 0xabcd);
	cumk_wire_free(&w);
	return ok;
}

/* A writer out of room takes no record after the one that did not fit. */
static bool cumk_test_full(void)
{
	size_t two = sizeof(struct cumk_mc_call) +
		     2 * sizeof(struct cumk_mc_record);
	struct cumk_remote_extent *room;
	struct cumk_wire_writer w;
	unsigned int max = 0;
	bool ok = true;

	cumk_wire_init(&w, two);
	cumk_wire_member(&w, 0, cumk_test_uuid, 0);
	cumk_wire_state(&w, false);
	CUMK_EXPECT(!w.error && w.len == two);
	room = cumk_wire_bind_room(&w, &max);
	CUMK_EXPECT(!room && w.error == -E2BIG);
	w.error = 0;
	cumk_wire_member(&w, 1, cumk_test_uuid, 0);
	CUMK_EXPECT(w.error == -E2BIG);
	cumk_wire_state(&w, true);
	CUMK_EXPECT(le32_to_cpu(w.call->nr_records) == 2 && w.len == two);
	cumk_wire_clear(&w);
	CUMK_EXPECT(!w.error && !w.call->nr_records &&
		    w.len == sizeof(*w.call));
	cumk_wire_free(&w);

	/* The room for runs is all there is, and a run more does not fit. */
	cumk_wire_init(&w, sizeof(struct cumk_mc_call) +
			   sizeof(struct cumk_mc_record) +
			   3 * sizeof(struct cumk_remote_extent) + 5);
	room = cumk_wire_bind_room(&w, &max);
	CUMK_EXPECT(room && max == 3);
	cumk_wire_bind(&w, 0, cumk_test_uuid, 0, 0, 0x3000, 3);
	CUMK_EXPECT(!w.error && le32_to_cpu(w.call->nr_records) == 1);
	CUMK_EXPECT(!cumk_wire_bind_room(&w, &max) && w.error == -E2BIG);
	cumk_wire_free(&w);
	return ok;
}

/* A reader refuses whatever does not hold what the call says. */
static bool cumk_test_refused(void)
{
	const struct cumk_mc_record *r;
	struct cumk_remote_extent *room;
	struct cumk_wire_reader rd;
	struct cumk_wire_writer w;
	unsigned int max;
	size_t whole;
	bool ok = true;

	if (cumk_wire_init(&w, CUMC_IMEX_PAYLOAD_MAX))
		return false;
	room = cumk_wire_bind_room(&w, &max);
	if (room)
		memset(room, 0, 2 * sizeof(*room));
	cumk_wire_bind(&w, 0, cumk_test_uuid, 0, 0, 0x2000, 2);
	whole = w.len;

	/* Shorter than a call's header; longer than any call. */
	CUMK_EXPECT(cumk_wire_read_init(&rd, w.call, sizeof(*w.call) - 1) ==
		    -EPROTO);
	CUMK_EXPECT(cumk_wire_read_init(&rd, w.call,
					CUMC_IMEX_PAYLOAD_MAX + 1) == -EPROTO);
	/* A run cut off by the end of the call. */
	CUMK_EXPECT(!cumk_wire_read_init(&rd, w.call, whole - 1));
	CUMK_EXPECT(PTR_ERR(cumk_wire_read(&rd)) == -EPROTO);
	CUMK_EXPECT(!cumk_wire_read(&rd));
	/* A record cut off before its runs. */
	CUMK_EXPECT(!cumk_wire_read_init(&rd, w.call, sizeof(*w.call) + 8));
	CUMK_EXPECT(PTR_ERR(cumk_wire_read(&rd)) == -EPROTO);
	/* More records said than there are. */
	w.call->nr_records = cpu_to_le32(2);
	CUMK_EXPECT(!cumk_wire_read_init(&rd, w.call, whole));
	r = cumk_wire_read(&rd);
	CUMK_EXPECT(!IS_ERR_OR_NULL(r));
	CUMK_EXPECT(PTR_ERR(cumk_wire_read(&rd)) == -EPROTO);
	CUMK_EXPECT(IS_ERR(cumk_wire_only(w.call, whole)));
	w.call->nr_records = cpu_to_le32(1);
	/* More runs said than any call carries. */
	r = (const void *)w.call->records;
	((struct cumk_mc_record *)r)->nr_extents = cpu_to_le32(U32_MAX);
	CUMK_EXPECT(!cumk_wire_read_init(&rd, w.call, whole));
	CUMK_EXPECT(PTR_ERR(cumk_wire_read(&rd)) == -EPROTO);
	((struct cumk_mc_record *)r)->nr_extents = cpu_to_le32(2);

	/* One record and nothing after it, as MC_BIND's arguments are. */
	r = cumk_wire_only(w.call, whole);
	CUMK_EXPECT(!IS_ERR(r) && le32_to_cpu(r->nr_extents) == 2);
	CUMK_EXPECT(PTR_ERR(cumk_wire_only(w.call, whole + 8)) == -EPROTO);
	cumk_wire_state(&w, true);
	CUMK_EXPECT(PTR_ERR(cumk_wire_only(w.call, w.len)) == -EPROTO);
	cumk_wire_free(&w);
	return ok;
}

/* A record passed on is the record read, byte for byte. */
static bool cumk_test_copy(void)
{
	struct cumk_wire_writer from, to;
	const struct cumk_mc_record *r;
	struct cumk_remote_extent *room;
	unsigned int max;
	bool ok = true;

	if (cumk_wire_init(&from, CUMC_IMEX_PAYLOAD_MAX))
		return false;
	room = cumk_wire_bind_room(&from, &max);
	if (room)
		room[0].length = cpu_to_le64(0x1000);
	cumk_wire_bind(&from, 2, cumk_test_uuid, 4, 0x8000, 0x1000, 1);
	r = cumk_wire_only(from.call, from.len);
	CUMK_EXPECT(!IS_ERR(r));
	if (!IS_ERR(r)) {
		cumk_wire_init(&to, sizeof(*to.call) + sizeof(*r) +
				    sizeof(r->extents[0]));
		CUMK_EXPECT(!cumk_wire_copy(&to, r));
		CUMK_EXPECT(to.len == from.len);
		CUMK_EXPECT(!memcmp(to.call, from.call, from.len));
		CUMK_EXPECT(cumk_wire_copy(&to, r) == -E2BIG);
		cumk_wire_free(&to);
	}
	cumk_wire_free(&from);
	return ok;
}

static const struct {
	const char *name;
	bool (*run)(void);
} cumk_test_cases[] = {
	{ "records read back as written", cumk_test_round_trip },
	{ "the layout on the wire", cumk_test_layout },
	{ "a full writer takes nothing more", cumk_test_full },
	{ "malformed calls refused", cumk_test_refused },
	{ "a record passed on unchanged", cumk_test_copy },
};

static int __init cumk_wire_test_init(void)
{
	unsigned int i;

	pr_info("TAP version 13\n");
	pr_info("1..%zu\n", ARRAY_SIZE(cumk_test_cases));
	for (i = 0; i < ARRAY_SIZE(cumk_test_cases); i++) {
		bool ok = cumk_test_cases[i].run();

		if (!ok)
			cumk_test_failed++;
		pr_info("%sok %u %s\n", ok ? "" : "not ", i + 1,
			cumk_test_cases[i].name);
	}
	return cumk_test_failed ? -EINVAL : 0;
}

static void __exit cumk_wire_test_exit(void)
{
}

module_init(cumk_wire_test_init);
module_exit(cumk_wire_test_exit);

MODULE_DESCRIPTION("cumc test: the multi-node wire format's writers and readers");
MODULE_LICENSE("GPL");
