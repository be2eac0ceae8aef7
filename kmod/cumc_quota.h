/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is charged to whom: clients' usage, users' limits, and the memory the
 * module allocates for a caller (cumc_quota.c).
 */
#ifndef _CUMK_QUOTA_H
#define _CUMK_QUOTA_H

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct seq_file;

/*
 * What the module allocates on a caller's behalf: charged to the caller's
 * memory cgroup, and failing with ENOMEM at the cgroup's limit rather than
 * calling the cgroup's OOM killer, which would kill the caller for asking.
 * Pages faulted into mappings are the exception: they are the caller's
 * memory like any other it touches (cumk_mem_page()).
 */
#define CUMK_GFP (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* What a client's usage record counts; each has a limit (cumc_quota.c). */
enum cumk_quota_type {
	CUMK_QUOTA_HANDLES,	/* entries of its handle table */
	CUMK_QUOTA_OBJECTS,	/* allocations and multicast objects it made */
	CUMK_QUOTA_RANGES,	/* file offset slots: reservations, mc objects */
	CUMK_QUOTA_MAPPED,	/* bytes mapped in its reservations */
	CUMK_QUOTA_BOUND,	/* bytes it bound into multicast objects */
	CUMK_QUOTA_MAPPINGS,	/* its mappings and member views */
	CUMK_QUOTA_BINDINGS,	/* bindings it made */
	CUMK_QUOTA_NR
};

struct cumk_user;

/**
 * struct cumk_usage - what is charged to one client
 * @ref: one for the client, one for each object and binding charged to it,
 *       which may outlive the client
 * @used: enum cumk_quota_type counts, atomic: no lock
 * @user: the record of the user who opened the client, charged everything
 *        @used is (cumc_quota.c); NULL for the module's own records (what
 *        other nodes bound here); the usage holds a reference
 * @privileged: the opener had CAP_SYS_ADMIN: no per-user limits, and the
 *              address ranges kept back for the privileged
 */
struct cumk_usage {
	struct kref ref;
	atomic64_t used[CUMK_QUOTA_NR];
	struct cumk_user *user;
	bool privileged;
};

/* cumc_quota.c: per-client and per-user quotas */
struct cumk_usage *cumk_usage_create(bool opener);
struct cumk_usage *cumk_usage_get(struct cumk_usage *usage);
void cumk_usage_put(struct cumk_usage *usage);
int cumk_usage_charge(struct cumk_usage *usage, enum cumk_quota_type quota,
		      u64 n);
void cumk_usage_uncharge(struct cumk_usage *usage, enum cumk_quota_type quota,
			 u64 n);
u64 cumk_usage_read(struct cumk_usage *usage, enum cumk_quota_type quota);
int cumk_usage_charge_mapping(struct cumk_usage *usage, u64 length);
void cumk_usage_uncharge_mapping(struct cumk_usage *usage, u64 length);
int cumk_usage_charge_bind(struct cumk_usage *usage, u64 length);
void cumk_usage_uncharge_bind(struct cumk_usage *usage, u64 length);
void cumk_users_show(struct seq_file *m);
bool cumk_usage_owned_by(struct cumk_usage *usage, kuid_t uid);
bool cumk_usage_same_user(struct cumk_usage *a, struct cumk_usage *b);

#endif /* _CUMK_QUOTA_H */
