/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cumc's tracepoints, in tracefs as events/cumc/ (Documentation/
 * tracing.md): each ioctl's outcome, team state changes, binds and
 * unbinds, injected faults. cumc_trace.c creates them.
 *
 * Every field is a number: no pointer or string is stored, so what a
 * reader sees never depends on an object that may be gone.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cumc

#if !defined(_CUMC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CUMC_TRACE_H

#include <linux/tracepoint.h>

#include <linux/cumc.h>
#include <linux/cumc_netlink.h>

#define cumk_trace_ioctl_name(nr)					\
	__print_symbolic(nr,						\
		{ _IOC_NR(CUMC_QUERY), "QUERY" },			\
		{ _IOC_NR(CUMC_DEVICE_INFO), "DEVICE_INFO" },		\
		{ _IOC_NR(CUMC_MEM_CREATE), "MEM_CREATE" },		\
		{ _IOC_NR(CUMC_MEM_INFO), "MEM_INFO" },			\
		{ _IOC_NR(CUMC_RELEASE), "RELEASE" },			\
		{ _IOC_NR(CUMC_VA_RESERVE), "VA_RESERVE" },		\
		{ _IOC_NR(CUMC_VA_FREE), "VA_FREE" },			\
		{ _IOC_NR(CUMC_MAP), "MAP" },				\
		{ _IOC_NR(CUMC_UNMAP), "UNMAP" },			\
		{ _IOC_NR(CUMC_SET_ACCESS), "SET_ACCESS" },		\
		{ _IOC_NR(CUMC_VA_QUERY), "VA_QUERY" },			\
		{ _IOC_NR(CUMC_EXPORT_FD), "EXPORT_FD" },		\
		{ _IOC_NR(CUMC_IMPORT_FD), "IMPORT_FD" },		\
		{ _IOC_NR(CUMC_ATTACH_CHANNEL), "ATTACH_CHANNEL" },	\
		{ _IOC_NR(CUMC_EXPORT_FABRIC), "EXPORT_FABRIC" },	\
		{ _IOC_NR(CUMC_IMPORT_FABRIC), "IMPORT_FABRIC" },	\
		{ _IOC_NR(CUMC_MC_CREATE), "MC_CREATE" },		\
		{ _IOC_NR(CUMC_MC_ADD_DEVICE), "MC_ADD_DEVICE" },	\
		{ _IOC_NR(CUMC_MC_BIND_MEM), "MC_BIND_MEM" },		\
		{ _IOC_NR(CUMC_MC_BIND_ADDR), "MC_BIND_ADDR" },		\
		{ _IOC_NR(CUMC_MC_UNBIND), "MC_UNBIND" },		\
		{ _IOC_NR(CUMC_MC_INFO), "MC_INFO" },			\
		{ _IOC_NR(CUMC_MC_VIEW), "MC_VIEW" })

#define cumk_trace_team_state(state)					\
	__print_symbolic(state,						\
		{ CUMC_TEAM_STATE_FORMING, "forming" },			\
		{ CUMC_TEAM_STATE_READY, "ready" },			\
		{ CUMC_TEAM_STATE_FAILED, "failed" })

/* An ioctl's outcome: its number, 0 or a negative errno, the new handle. */
TRACE_EVENT(cumc_ioctl,
	TP_PROTO(unsigned int nr, int ret, u32 handle),
	TP_ARGS(nr, ret, handle),
	TP_STRUCT__entry(
		__field(unsigned int, nr)
		__field(int, ret)
		__field(u32, handle)
	),
	TP_fast_assign(
		__entry->nr = nr;
		__entry->ret = ret;
		__entry->handle = handle;
	),
	TP_printk("cmd=%s ret=%d handle=%u",
		  cumk_trace_ioctl_name(__entry->nr), __entry->ret,
		  __entry->handle)
);

/* A team left FORMING, or failed after READY (uapi team states). */
TRACE_EVENT(cumc_team_state,
	TP_PROTO(u32 mc_id, u32 old_state, u32 new_state),
	TP_ARGS(mc_id, old_state, new_state),
	TP_STRUCT__entry(
		__field(u32, mc_id)
		__field(u32, old_state)
		__field(u32, new_state)
	),
	TP_fast_assign(
		__entry->mc_id = mc_id;
		__entry->old_state = old_state;
		__entry->new_state = new_state;
	),
	TP_printk("mc=%u %s -> %s", __entry->mc_id,
		  cumk_trace_team_state(__entry->old_state),
		  cumk_trace_team_state(__entry->new_state))
);

DECLARE_EVENT_CLASS(cumc_bind_class,
	TP_PROTO(u32 mc_id, u32 device, u64 mc_offset, u64 length),
	TP_ARGS(mc_id, device, mc_offset, length),
	TP_STRUCT__entry(
		__field(u32, mc_id)
		__field(u32, device)
		__field(u64, mc_offset)
		__field(u64, length)
	),
	TP_fast_assign(
		__entry->mc_id = mc_id;
		__entry->device = device;
		__entry->mc_offset = mc_offset;
		__entry->length = length;
	),
	TP_printk("mc=%u device=%u mc_offset=0x%llx length=0x%llx",
		  __entry->mc_id, __entry->device, __entry->mc_offset,
		  __entry->length)
);

/* Memory of @device bound into, or unbound from, a multicast object. */
DEFINE_EVENT(cumc_bind_class, cumc_bind,
	TP_PROTO(u32 mc_id, u32 device, u64 mc_offset, u64 length),
	TP_ARGS(mc_id, device, mc_offset, length)
);

DEFINE_EVENT(cumc_bind_class, cumc_unbind,
	TP_PROTO(u32 mc_id, u32 device, u64 mc_offset, u64 length),
	TP_ARGS(mc_id, device, mc_offset, length)
);

/* An injected fault struck: its type, device (-1: fabric-wide), hits. */
TRACE_EVENT(cumc_fault,
	TP_PROTO(u32 type, s32 device, u64 hits),
	TP_ARGS(type, device, hits),
	TP_STRUCT__entry(
		__field(u32, type)
		__field(s32, device)
		__field(u64, hits)
	),
	TP_fast_assign(
		__entry->type = type;
		__entry->device = device;
		__entry->hits = hits;
	),
	TP_printk("type=%s device=%d hits=%llu",
		  __print_symbolic(__entry->type,
			{ CUMC_FAULT_FABRIC_NOT_READY, "fabric-not-ready" },
			{ CUMC_FAULT_FABRIC_ILLEGAL_STATE, "fabric-illegal-state" },
			{ CUMC_FAULT_BIND_NO_RESOURCES, "bind-no-resources" },
			{ CUMC_FAULT_MEM_EXHAUSTED, "mem-exhausted" },
			{ CUMC_FAULT_IMPORT_NOT_PERMITTED, "import-not-permitted" }),
		  __entry->device, __entry->hits)
);

#endif /* _CUMC_TRACE_H */

/* Out of tree: define_trace.h must find this file beside the module's. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cumc_trace
#include <trace/define_trace.h>
