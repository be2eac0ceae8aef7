/* SPDX-License-Identifier: MIT */
/*
 * The member views of the multicast mappings of this process, for the
 * multimem data path.
 */
#ifndef _CUMC_LIB_MC_VIEWS_H
#define _CUMC_LIB_MC_VIEWS_H

#include "internal.h"

/**
 * struct libcumc_mc_mapping - a multicast mapping and its member views
 * @addr: start of the mapping
 * @length: its length, and that of each view
 * @num_members: the team size
 * @writable: the views may be written (some device may write the mapping)
 * @views: member i's memory bound at multicast offset o is @views[i][o]
 */
struct libcumc_mc_mapping {
	CUdeviceptr addr;
	size_t length;
	unsigned int num_members;
	int writable;
	char *views[];
};

/* Where an operation works: @map's views from @offset on. */
struct libcumc_mc_span {
	const struct libcumc_mc_mapping *map;
	size_t offset;
};

/*
 * Find the multicast mapping holding [addr, addr + bytes), learning its
 * views on first use, and hold it until libcumc_mc_release().
 * CUDA_ERROR_INVALID_VALUE when the range is not inside one multicast
 * mapping; CUDA_ERROR_ILLEGAL_ADDRESS when no device has access to it.
 */
CUresult libcumc_mc_acquire(CUdeviceptr addr, size_t bytes,
			    struct libcumc_mc_span *span);
void libcumc_mc_release(void);

/*
 * A mapping one thread keeps held across operations (a kernel's worker,
 * between its multimem instructions), so that an operation inside it
 * takes no lock and searches nothing. NULL: none held.
 */
struct libcumc_mc_hold {
	struct libcumc_mc_mapping *map;
};

/*
 * libcumc_mc_acquire() through @hold: a range inside the mapping held
 * needs nothing more; another lets go of it first and holds the new one.
 * The span stays valid until libcumc_mc_unhold(), which the thread must
 * call before it waits for anything, and soon (mc_views.c says why).
 */
CUresult libcumc_mc_acquire_held(struct libcumc_mc_hold *hold,
				 CUdeviceptr addr, size_t bytes,
				 struct libcumc_mc_span *span);
void libcumc_mc_unhold(struct libcumc_mc_hold *hold);

/* Drop what is known of multicast mappings overlapping [addr, addr + bytes). */
void libcumc_mc_forget(CUdeviceptr addr, size_t bytes);

#endif /* _CUMC_LIB_MC_VIEWS_H */
