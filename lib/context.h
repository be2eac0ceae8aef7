/* SPDX-License-Identifier: MIT */
/*
 * Contexts exist only in libcumc: the module has no such object, and no
 * allocation belongs to one.  A CUcontext is a number the registry issues,
 * never a pointer that is dereferenced, so a garbage or destroyed handle is
 * recognised and refused; numbers are not reused, so a destroyed handle
 * never comes to name a newer context.
 */
#ifndef _CUMC_LIB_CONTEXT_H
#define _CUMC_LIB_CONTEXT_H

#include <stdbool.h>

#include <cuda.h>

/* The registry of live contexts (context_registry.c), thread-safe. */
CUresult libcumc_context_create(CUdevice dev, CUcontext *ctx);
/*
 * CUDA_ERROR_INVALID_CONTEXT for a primary context (only release ends
 * it) and for a green context's (only cuGreenCtxDestroy does).
 */
CUresult libcumc_context_destroy(CUcontext ctx);
/*
 * Green contexts (green.c) are contexts of @sms SMs of their device, a
 * CUgreenCtx the same number as its CUcontext; destroying one answers
 * CUDA_ERROR_INVALID_CONTEXT unless it is a live green context.
 */
CUresult libcumc_green_create(CUdevice dev, unsigned int sms, CUcontext *ctx);
CUresult libcumc_green_destroy(CUcontext ctx);
/* A live green context's SMs; 0 for any other handle. */
unsigned int libcumc_context_green_sms(CUcontext ctx);
/* The device's retained primary context, or NULL (takes no retain). */
CUcontext libcumc_primary_handle(CUdevice dev);
/* Whether @ctx was issued and is no longer live. */
bool libcumc_context_destroyed(CUcontext ctx);
/* CUDA_ERROR_INVALID_CONTEXT unless @ctx is live. */
CUresult libcumc_context_device(CUcontext ctx, CUdevice *dev);
CUresult libcumc_primary_retain(CUdevice dev, CUcontext *ctx);
/* CUDA_ERROR_INVALID_CONTEXT when the primary context is not retained. */
CUresult libcumc_primary_release(CUdevice dev);
void libcumc_registry_forget(void);

/*
 * A context's limits and cache preference (ctx_config.c), kept in its
 * registry entry so that they end with it; @set: they have been given
 * their defaults.
 */
struct libcumc_ctx_settings {
	bool set;
	size_t limits[CU_LIMIT_MAX];
	CUfunc_cache cache;
};

/*
 * Runs @fn on the live context @ctx's settings under the registry's lock;
 * CUDA_ERROR_INVALID_CONTEXT when @ctx is not live.
 */
CUresult libcumc_context_settings_do(CUcontext ctx,
				     CUresult (*fn)(struct libcumc_ctx_settings *s,
						    void *arg),
				     void *arg);

/* Context flags (context_registry.c); @dev checked by the caller. */
CUresult libcumc_context_flags(CUcontext ctx, unsigned int *flags);
CUresult libcumc_context_set_flags(CUcontext ctx, unsigned int flags);
void libcumc_primary_state(CUdevice dev, unsigned int *flags, int *active);
void libcumc_primary_set_flags(CUdevice dev, unsigned int flags);
/* One scheduling policy and only the flags the header defines. */
bool libcumc_ctx_flags_valid(unsigned int flags);

/*
 * A context whose kernel faulted stays failed, as on hardware: its
 * launches and synchronizations answer the fault from then on
 * (ctx_fault.c).
 */
void libcumc_ctx_fault_set(CUcontext ctx, CUresult res);
CUresult libcumc_ctx_fault(CUcontext ctx);

/*
 * What follows the registry's destruction of @ctx: its streams and its
 * memory go, and the calling thread's stack drops it when on top
 * (context.c). libcumc_primary_put: the primary context's release, its
 * last one destroying it likewise.
 */
void libcumc_context_teardown(CUcontext ctx);
CUresult libcumc_primary_put(CUdevice dev);

/*
 * An event of everything submitted to the live context @ctx so far, and
 * a wait of all its streams for an event (ctx_event.c): cuCtxRecordEvent
 * and cuCtxWaitEvent, green contexts' included.
 */
CUresult libcumc_ctx_record_event(CUcontext ctx, CUevent event);
CUresult libcumc_ctx_wait_event(CUcontext ctx, CUevent event);

/* The calling thread's stack of current contexts (context_stack.c). */
CUresult libcumc_stack_push(CUcontext ctx);
CUcontext libcumc_stack_pop(void);
CUcontext libcumc_stack_top(void);
CUresult libcumc_stack_replace_top(CUcontext ctx);
void libcumc_stack_forget(void);

#endif /* _CUMC_LIB_CONTEXT_H */
