// SPDX-License-Identifier: GPL-2.0
/*
 * Grants: what the CPU may do through the member views made from one
 * multicast mapping. The mapping (cumc_va.c) and every view made from it
 * (cumc_view.c) hold the grant; CUMC_SET_ACCESS on the mapping changes it,
 * and taking access away zaps the object's views, so that their next
 * access faults and is checked against the grant again.
 */
#include <linux/slab.h>

#include "cumc_internal.h"

struct cumk_grant *cumk_grant_create(int access)
{
	struct cumk_grant *grant;

	grant = kzalloc(sizeof(*grant), CUMK_GFP);
	if (!grant)
		return NULL;
	kref_init(&grant->ref);
	grant->access = access;
	return grant;
}

static void cumk_grant_release(struct kref *ref)
{
	kfree(container_of(ref, struct cumk_grant, ref));
}

void cumk_grant_put(struct cumk_grant *grant)
{
	kref_put(&grant->ref, cumk_grant_release);
}

/*
 * The mapping @grant was made from now allows @access. Under @mc's lock, so
 * that a fault inserting a page with the old access is done before the
 * zap, which then takes that page away; the views refault, and are
 * checked against the new access.
 */
void cumk_grant_set(struct cumk_grant *grant, struct cumk_mc *mc, int access)
{
	int before;

	down_write(&mc->lock);
	before = grant->access;
	WRITE_ONCE(grant->access, access);
	up_write(&mc->lock);
	if (access < before)
		cumk_vm_zap(mc->pgoff, (u64)mc->num_devices * mc->length);
}
