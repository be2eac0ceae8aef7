// SPDX-License-Identifier: MIT
/*
 * The seven tables the CUDA 13 runtime asks cuGetExportTable for, with
 * the sizes driver 580.159.04 gives them (conformance/export_tables/),
 * their slots doing what the runtime needs to start, register its fat
 * binaries and launch. Documentation/runtime.md says, table by table and
 * slot by slot, what each does, what libcumc answers and how that was
 * established. A slot whose purpose nobody has established answers
 * CUDA_ERROR_NOT_SUPPORTED with a CUMC_LOG line naming table and slot.
 *
 * Slots are called by the runtime directly, not through an entry point:
 * each makes its own CUMC_LOG line, named "<table> slot <n>".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "integrity.h"
#include "internal.h"
#include "kernel.h"
#include "log.h"
#include "runtime_cls.h"
#include "runtime_tables.h"

/*
 * A table is an array of words: most start with a word of the table's
 * size in bytes, the others are functions of the ABI each slot documents.
 */
union libcumc_rt_word {
	uintptr_t size;
	void (*fn)(void);
};

#define RT_SIZE(words)	{ .size = (words) * sizeof(union libcumc_rt_word) }
#define RT_SLOT(f)	{ .fn = (void (*)(void))(f) }

/*
 * A slot libcumc does not honour: the runtime's caller gets
 * CUDA_ERROR_NOT_SUPPORTED. It reads no argument, so whatever the slot's
 * real parameters are, the call is harmless.
 */
static CUresult libcumc_rt_refuse(const char *slot)
{
	libcumc_log_slot_enter();
	libcumc_log_note("no such function in libcumc's table");
	return libcumc_log_slot_exit(slot, CUDA_ERROR_NOT_SUPPORTED);
}

#define RT_REFUSED(table, n)						\
	static CUresult libcumc_rt_##table##_##n(void)			\
	{								\
		return libcumc_rt_refuse(#table " slot " #n);		\
	}

/* Table f8cff951: two slots, never called by the runtime's start. */
RT_REFUSED(f8cff951, 1)
RT_REFUSED(f8cff951, 2)

static const union libcumc_rt_word libcumc_rt_f8cff951[] = {
	RT_SIZE(3),
	RT_SLOT(libcumc_rt_f8cff951_1),
	RT_SLOT(libcumc_rt_f8cff951_2),
};

/*
 * Table 6bd5fb6c: the runtime's services. Slots 1, 6 and 8 load a fat
 * binary the program registers (__cudaRegisterFatBinary), given as its
 * wrapper or as the fat binary itself, into a module of the current
 * context; 6 and 8 take three more arguments that libcumc has no use for
 * and refuses unless they are empty.
 */
static CUresult libcumc_rt_load(const char *slot, CUmodule *module,
				const void *image, const void *more,
				const void *more2, unsigned int count)
{
	CUresult res;

	libcumc_log_slot_enter();
	if (more || more2 || count) {
		libcumc_log_note("options to a fat binary's load");
		res = CUDA_ERROR_NOT_SUPPORTED;
	} else {
		res = libcumc_module_load_data(module, image);
	}
	return libcumc_log_slot_exit(slot, res);
}

static CUresult libcumc_rt_module_from_wrapper(CUmodule *module,
					       const void *wrapper)
{
	return libcumc_rt_load("6bd5fb6c slot 1", module, wrapper, NULL, NULL,
			       0);
}

static CUresult libcumc_rt_module_from_wrapper_more(CUmodule *module,
						    const void *wrapper,
						    const void *more,
						    const void *more2,
						    unsigned int count)
{
	return libcumc_rt_load("6bd5fb6c slot 6", module, wrapper, more, more2,
			       count);
}

static CUresult libcumc_rt_module_from_fatbin(const void *fatbin,
					      CUmodule *module,
					      const void *more,
					      const void *more2,
					      unsigned int count)
{
	return libcumc_rt_load("6bd5fb6c slot 8", module, fatbin, more, more2,
			       count);
}

/*
 * Slot 2: the device's primary context, which on NVIDIA's driver exists
 * whether retained or not. libcumc's exists only while retained, so the
 * first ask retains it on the runtime's behalf, once for the process:
 * the handle stays the one the runtime keeps.
 */
static pthread_mutex_t libcumc_rt_primary_lock = PTHREAD_MUTEX_INITIALIZER;
static bool libcumc_rt_primary_held[CUMC_MAX_DEVICES];

static CUresult libcumc_rt_primary(CUcontext *pctx, CUdevice dev)
{
	const struct libcumc_driver *drv;
	CUresult res;

	libcumc_log_slot_enter();
	res = libcumc_driver(&drv);
	if (res == CUDA_SUCCESS && !pctx)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return libcumc_log_slot_exit("6bd5fb6c slot 2", res);
	pthread_mutex_lock(&libcumc_rt_primary_lock);
	*pctx = libcumc_primary_handle(dev);
	if (!*pctx || !libcumc_rt_primary_held[dev]) {
		res = libcumc_primary_retain(dev, pctx);
		libcumc_rt_primary_held[dev] = res == CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_rt_primary_lock);
	return libcumc_log_slot_exit("6bd5fb6c slot 2", res);
}

/* Slot 7 returns nothing; ZLUDA found nothing it must do. */
static void libcumc_rt_6bd5fb6c_7(void)
{
}

/* Slot 12 loads NVIDIA's compilers, which libcumc's PTX needs none of. */
static CUresult libcumc_rt_load_compilers(void)
{
	return CUDA_SUCCESS;
}

RT_REFUSED(6bd5fb6c, 3)
RT_REFUSED(6bd5fb6c, 4)
RT_REFUSED(6bd5fb6c, 5)
RT_REFUSED(6bd5fb6c, 9)
RT_REFUSED(6bd5fb6c, 11)

static const union libcumc_rt_word libcumc_rt_6bd5fb6c[] = {
	RT_SIZE(13),
	RT_SLOT(libcumc_rt_module_from_wrapper),
	RT_SLOT(libcumc_rt_primary),
	RT_SLOT(libcumc_rt_6bd5fb6c_3),
	RT_SLOT(libcumc_rt_6bd5fb6c_4),
	RT_SLOT(libcumc_rt_6bd5fb6c_5),
	RT_SLOT(libcumc_rt_module_from_wrapper_more),
	RT_SLOT(libcumc_rt_6bd5fb6c_7),
	RT_SLOT(libcumc_rt_module_from_fatbin),
	RT_SLOT(libcumc_rt_6bd5fb6c_9),
	{ .fn = NULL },		/* NULL in driver 580's table too */
	RT_SLOT(libcumc_rt_6bd5fb6c_11),
	RT_SLOT(libcumc_rt_load_compilers),
};

/*
 * Table a094798c: the tools' callback hooks. Slots 2 and 6 hand the
 * runtime a buffer and its size, which the runtime fills for tools
 * (CUPTI) to read; no tool reads libcumc's, so zeroed memory of the
 * sizes ZLUDA answers serves. Their words are 8 bytes: more than any
 * reading of the size needs.
 */
static uint64_t libcumc_rt_hooks_buffer[1024];
static uint64_t libcumc_rt_hooks_small[14];

static void libcumc_rt_hooks(void **buffer, size_t *size)
{
	*buffer = libcumc_rt_hooks_buffer;
	*size = sizeof(libcumc_rt_hooks_buffer) /
		sizeof(libcumc_rt_hooks_buffer[0]);
}

static void libcumc_rt_hooks_more(void **buffer, size_t *size)
{
	*buffer = libcumc_rt_hooks_small;
	*size = sizeof(libcumc_rt_hooks_small) /
		sizeof(libcumc_rt_hooks_small[0]);
}

RT_REFUSED(a094798c, 1)
RT_REFUSED(a094798c, 3)
RT_REFUSED(a094798c, 4)
RT_REFUSED(a094798c, 5)

static const union libcumc_rt_word libcumc_rt_a094798c[] = {
	RT_SIZE(7),
	RT_SLOT(libcumc_rt_a094798c_1),
	RT_SLOT(libcumc_rt_hooks),
	RT_SLOT(libcumc_rt_a094798c_3),
	RT_SLOT(libcumc_rt_a094798c_4),
	RT_SLOT(libcumc_rt_a094798c_5),
	RT_SLOT(libcumc_rt_hooks_more),
};

/* Table 42d85a81: the tools' thread-local storage, never called. */
RT_REFUSED(42d85a81, 1)
RT_REFUSED(42d85a81, 2)

static const union libcumc_rt_word libcumc_rt_42d85a81[] = {
	RT_SIZE(3),
	RT_SLOT(libcumc_rt_42d85a81_1),
	RT_SLOT(libcumc_rt_42d85a81_2),
};

/*
 * Table c693336e: context-local storage, values the runtime keeps under
 * a key of its own in each context (runtime_cls.c). No size word.
 */
static const union libcumc_rt_word libcumc_rt_c693336e[] = {
	RT_SLOT(libcumc_cls_put),
	RT_SLOT(libcumc_cls_delete),
	RT_SLOT(libcumc_cls_get),
};

/*
 * Table 263e8860: checks of a context. Slot 2 says whether a context
 * wraps another (none of libcumc's does); slot 3, called at start,
 * answers 0, as ZLUDA found the driver does.
 */
static CUresult libcumc_rt_context_wraps(CUcontext ctx, unsigned int *wraps,
					 CUcontext *inner)
{
	(void)ctx;
	(void)inner;
	if (!wraps)
		return CUDA_ERROR_INVALID_VALUE;
	*wraps = 0;
	return CUDA_SUCCESS;
}

static unsigned int libcumc_rt_263e8860_3(void)
{
	return 0;
}

RT_REFUSED(263e8860, 1)
RT_REFUSED(263e8860, 4)
RT_REFUSED(263e8860, 5)
RT_REFUSED(263e8860, 6)
RT_REFUSED(263e8860, 7)
RT_REFUSED(263e8860, 8)
RT_REFUSED(263e8860, 9)
RT_REFUSED(263e8860, 10)
RT_REFUSED(263e8860, 11)
RT_REFUSED(263e8860, 12)
RT_REFUSED(263e8860, 13)
RT_REFUSED(263e8860, 14)

static const union libcumc_rt_word libcumc_rt_263e8860[] = {
	RT_SIZE(15),
	RT_SLOT(libcumc_rt_263e8860_1),
	RT_SLOT(libcumc_rt_context_wraps),
	RT_SLOT(libcumc_rt_263e8860_3),
	RT_SLOT(libcumc_rt_263e8860_4),
	RT_SLOT(libcumc_rt_263e8860_5),
	RT_SLOT(libcumc_rt_263e8860_6),
	RT_SLOT(libcumc_rt_263e8860_7),
	RT_SLOT(libcumc_rt_263e8860_8),
	RT_SLOT(libcumc_rt_263e8860_9),
	RT_SLOT(libcumc_rt_263e8860_10),
	RT_SLOT(libcumc_rt_263e8860_11),
	RT_SLOT(libcumc_rt_263e8860_12),
	RT_SLOT(libcumc_rt_263e8860_13),
	RT_SLOT(libcumc_rt_263e8860_14),
};

/*
 * Table d4082055: the integrity check. Slot 1 answers what the runtime
 * computes itself from the same inputs (integrity.c): among them this
 * table, the table 6bd5fb6c and this very function, so a table copied
 * or wrapped fails it.
 */
static CUresult libcumc_rt_integrity(unsigned int version,
				     uint64_t unix_seconds,
				     uint64_t answer[2]);

RT_REFUSED(d4082055, 2)

static const union libcumc_rt_word libcumc_rt_d4082055[] = {
	RT_SIZE(3),
	RT_SLOT(libcumc_rt_integrity),
	RT_SLOT(libcumc_rt_d4082055_2),
};

static CUresult libcumc_rt_integrity(unsigned int version,
				     uint64_t unix_seconds,
				     uint64_t answer[2])
{
	struct libcumc_integrity_device devices[CUMC_MAX_DEVICES];
	struct libcumc_integrity_input in = {
		.driver_version = CUMC_DRIVER_VERSION,
		.version = version,
		.process = (uint32_t)getpid(),
		.thread = (uint32_t)pthread_self(),
		.runtime_table = libcumc_rt_6bd5fb6c,
		.check_table = libcumc_rt_d4082055,
		.check = (const void *)(uintptr_t)libcumc_rt_d4082055[1].fn,
		.unix_seconds = unix_seconds,
	};
	const struct libcumc_driver *drv;
	struct cumc_device_info info;
	unsigned int dev;
	CUresult res;

	libcumc_log_slot_enter();
	res = libcumc_driver(&drv);
	if (res == CUDA_SUCCESS && !answer)
		res = CUDA_ERROR_INVALID_VALUE;
	for (dev = 0; res == CUDA_SUCCESS && dev < drv->num_devices; dev++) {
		res = libcumc_device_info(drv, (CUdevice)dev, &info);
		if (res != CUDA_SUCCESS)
			break;
		memcpy(devices[dev].uuid, info.uuid, sizeof(devices[dev].uuid));
		devices[dev].pci_domain = (int32_t)info.pci_domain;
		devices[dev].pci_bus = (int32_t)info.pci_bus;
		devices[dev].pci_device = (int32_t)info.pci_device;
	}
	if (res == CUDA_SUCCESS)
		libcumc_integrity_answer(&in, devices, drv->num_devices,
					 answer);
	return libcumc_log_slot_exit("d4082055 slot 1", res);
}

/* Each table under its UUID, the bytes in the order CUMC_LOG prints them. */
static const struct {
	unsigned char id[16];
	const union libcumc_rt_word *table;
} libcumc_rt_tables[] = {
	{ { 0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
	    0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9 },
	  libcumc_rt_f8cff951 },
	{ { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
	    0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 },
	  libcumc_rt_6bd5fb6c },
	{ { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
	    0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 },
	  libcumc_rt_a094798c },
	{ { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
	    0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc },
	  libcumc_rt_42d85a81 },
	{ { 0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
	    0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93 },
	  libcumc_rt_c693336e },
	{ { 0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
	    0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e },
	  libcumc_rt_263e8860 },
	{ { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
	    0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 },
	  libcumc_rt_d4082055 },
};

const void *libcumc_runtime_table(const CUuuid *id)
{
	unsigned int i;

	for (i = 0; i < sizeof(libcumc_rt_tables) /
			sizeof(libcumc_rt_tables[0]); i++)
		if (!memcmp(id->bytes, libcumc_rt_tables[i].id,
			    sizeof(id->bytes)))
			return libcumc_rt_tables[i].table;
	return NULL;
}
