// SPDX-License-Identifier: GPL-2.0
/*
 * Per-client quotas.
 *
 * Every client has a usage record: handles in its table, objects it
 * created, address ranges it holds (reservations, multicast objects), bytes
 * mapped in its reservations and bytes it bound into multicast objects. A
 * charge that would take a count over its module parameter fails the call
 * with EDQUOT before anything changes.
 *
 * A charge goes with what was charged and is returned to the client that
 * paid for it, whoever lets it go: an allocation imported by another client
 * is uncharged from its creator's record when the last holder releases it,
 * a binding from its binder's when the multicast object drops it. Such
 * things may outlive their client, so they hold a reference on the record,
 * which outlives the client's file as long as anything charged to it does.
 * Limits are checked when charging only: lowering one leaves what is
 * charged in place and refuses new charges until usage is below it.
 */
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cumc_internal.h"

/**
 * struct cumk_quota - one limit, a module parameter
 * @limit: what one client may have charged at a time
 * @max: the largest value the parameter accepts
 */
struct cumk_quota {
	u64 limit;
	u64 max;
};

/*
 * Far above what NCCL or PyTorch reach (thousands of allocations, tens of
 * GiB mapped), low enough that one client cannot take all of the 65535
 * address ranges or an unbounded amount of kernel memory.
 */
static struct cumk_quota cumk_quotas[CUMC_QUOTA_NR] = {
	[CUMC_QUOTA_HANDLES] = { 1U << 18, U32_MAX },
	[CUMC_QUOTA_OBJECTS] = { 1U << 17, U32_MAX },
	[CUMC_QUOTA_RANGES] = { 8192, CUMC_VM_MAX_SLOTS },
	[CUMC_QUOTA_MAPPED] = { 1ULL << 42, 1ULL << 62 },
	[CUMC_QUOTA_BOUND] = { 1ULL << 42, 1ULL << 62 },
};

static int cumk_quota_set(const char *val, const struct kernel_param *kp)
{
	struct cumk_quota *q = kp->arg;
	u64 limit;
	int ret;

	ret = kstrtoull(val, 0, &limit);
	if (ret)
		return ret;
	if (!limit || limit > q->max)
		return -EINVAL;
	WRITE_ONCE(q->limit, limit);
	return 0;
}

static int cumk_quota_get(char *buf, const struct kernel_param *kp)
{
	struct cumk_quota *q = kp->arg;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(q->limit));
}

static const struct kernel_param_ops cumk_quota_ops = {
	.set = cumk_quota_set,
	.get = cumk_quota_get,
};

module_param_cb(max_handles, &cumk_quota_ops,
		&cumk_quotas[CUMC_QUOTA_HANDLES], 0644);
MODULE_PARM_DESC(max_handles,
		 "Handles one client may hold, imports and retains included, 1 to 2^32-1 (default 262144)");
module_param_cb(max_objects, &cumk_quota_ops,
		&cumk_quotas[CUMC_QUOTA_OBJECTS], 0644);
MODULE_PARM_DESC(max_objects,
		 "Allocations and multicast objects one client may have created and not yet freed, 1 to 2^32-1 (default 131072)");
module_param_cb(max_address_ranges, &cumk_quota_ops,
		&cumk_quotas[CUMC_QUOTA_RANGES], 0644);
MODULE_PARM_DESC(max_address_ranges,
		 "Reservations plus multicast objects of one client, of the module's 65535, 1 to 65535 (default 8192)");
module_param_cb(max_mapped_bytes, &cumk_quota_ops,
		&cumk_quotas[CUMC_QUOTA_MAPPED], 0644);
MODULE_PARM_DESC(max_mapped_bytes,
		 "Bytes one client may have mapped in its reservations, 1 to 2^62 (default 4 TiB)");
module_param_cb(max_bound_bytes, &cumk_quota_ops,
		&cumk_quotas[CUMC_QUOTA_BOUND], 0644);
MODULE_PARM_DESC(max_bound_bytes,
		 "Bytes one client may have bound into multicast objects, 1 to 2^62 (default 4 TiB)");

struct cumk_usage *cumk_usage_create(void)
{
	struct cumk_usage *usage;

	usage = kzalloc(sizeof(*usage), CUMC_GFP);
	if (!usage)
		return NULL;
	kref_init(&usage->ref);
	atomic_inc(&cumk_live_usages);
	return usage;
}

struct cumk_usage *cumk_usage_get(struct cumk_usage *usage)
{
	kref_get(&usage->ref);
	return usage;
}

static void cumk_usage_release(struct kref *ref)
{
	struct cumk_usage *usage = container_of(ref, struct cumk_usage, ref);
	int i;

	/* Everything charged holds a reference: nothing may be left. */
	for (i = 0; i < CUMC_QUOTA_NR; i++)
		WARN_ON_ONCE(atomic64_read(&usage->used[i]));
	atomic_dec(&cumk_live_usages);
	kfree(usage);
}

void cumk_usage_put(struct cumk_usage *usage)
{
	kref_put(&usage->ref, cumk_usage_release);
}

/* Charge @n of @quota, or -EDQUOT when that would pass its limit. */
int cumk_usage_charge(struct cumk_usage *usage, enum cumk_quota_type quota,
		      u64 n)
{
	u64 limit = READ_ONCE(cumk_quotas[quota].limit);
	s64 used = atomic64_read(&usage->used[quota]);

	do {
		if (n > limit || used > limit - n)
			return -EDQUOT;
	} while (!atomic64_try_cmpxchg(&usage->used[quota], &used, used + n));
	return 0;
}

void cumk_usage_uncharge(struct cumk_usage *usage, enum cumk_quota_type quota,
			 u64 n)
{
	WARN_ON_ONCE(atomic64_sub_return(n, &usage->used[quota]) < 0);
}

u64 cumk_usage_read(struct cumk_usage *usage, enum cumk_quota_type quota)
{
	return atomic64_read(&usage->used[quota]);
}

