// SPDX-License-Identifier: MIT
/*
 * bench_backend: the two backends of device memory side by side, in one
 * run: a PCI device, whose memory is its BAR, against a device backed by
 * system memory (Documentation/devices.md). make bench boots the VM with
 * both kinds. For each:
 *
 *  control  cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap and
 *           cuMemRelease of 2 MiB and 512 MiB, as multiples of a null
 *           system call;
 *  touch    the first touch of each page of a fresh mapping (a fault that
 *           backs and zeroes the page), per page;
 *  data     copies into and out of touched device memory, and a read-sum
 *           over it, in GB/s.
 *
 * Each row ends with the PCI figure over the system-memory one. The
 * devices are the first of each kind. Figures, never a verdict.
 *
 * bench_backend [--json FILE]
 */
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"
#include "tests/unplug.h"

#define REPS 200
#define TOUCH_BYTES (32ULL << 20)
#define DATA_BYTES (32ULL << 20)
#define DATA_REPS 7
#define PAGE 4096

enum backend { PCI, SYSTEM, NUM_BACKENDS };

static const char *const backend_names[NUM_BACKENDS] = { "pci", "system" };

enum op { OP_CREATE, OP_MAP, OP_SET_ACCESS, OP_UNMAP, OP_RELEASE, NUM_OPS };

static const char *const op_names[NUM_OPS] = {
	"cuMemCreate", "cuMemMap", "cuMemSetAccess", "cuMemUnmap",
	"cuMemRelease",
};

static const struct { const char *name; size_t bytes; } sizes[] = {
	{ "2MiB", 2ULL << 20 },
	{ "512MiB", 512ULL << 20 },
};
#define NUM_SIZES (sizeof(sizes) / sizeof(sizes[0]))

static struct stats null;

/* Whether @dev is a PCI device the cumc driver bound. */
static bool is_pci(CUdevice dev)
{
	int domain, bus, slot;
	char pci[32];

	return !cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
				     dev) &&
	       !cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) &&
	       !cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
				     dev) &&
	       unplug_pci_bound(domain, bus, slot, pci, sizeof(pci));
}

static CUmemAllocationProp prop_of(CUdevice dev)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
	};

	return prop;
}

static void set_access(CUdeviceptr va, size_t bytes, CUdevice dev)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};

	CHECK(cuMemSetAccess(va, bytes, &desc, 1));
}

/* One round of the control calls on @dev; the time of each in @t. */
static void control_round(CUdevice dev, size_t bytes, CUdeviceptr va,
			  double t[NUM_OPS])
{
	CUmemAllocationProp prop = prop_of(dev);
	CUmemGenericAllocationHandle h;
	double s;

	s = now_ns();
	CHECK(cuMemCreate(&h, bytes, &prop, 0));
	t[OP_CREATE] = now_ns() - s;
	s = now_ns();
	CHECK(cuMemMap(va, bytes, 0, h, 0));
	t[OP_MAP] = now_ns() - s;
	s = now_ns();
	set_access(va, bytes, dev);
	t[OP_SET_ACCESS] = now_ns() - s;
	s = now_ns();
	CHECK(cuMemUnmap(va, bytes));
	t[OP_UNMAP] = now_ns() - s;
	s = now_ns();
	CHECK(cuMemRelease(h));
	t[OP_RELEASE] = now_ns() - s;
}

static void part_control(const CUdevice devs[NUM_BACKENDS])
{
	static double samples[NUM_BACKENDS][NUM_OPS][REPS];
	struct stats st[NUM_BACKENDS];
	double t[NUM_OPS];
	CUdeviceptr va;
	unsigned int s, b, op, r;

	printf("control: median us (x null) per backend, pci/system\n");
	printf("%-16s %-7s | %-18s | %-18s | pci/system\n", "call", "size",
	       "pci", "system");
	for (s = 0; s < NUM_SIZES; s++) {
		CHECK(cuMemAddressReserve(&va, sizes[s].bytes, 0, 0, 0));
		/* Interleaved: a noisy moment costs both backends alike. */
		for (r = 0; r < REPS; r++)
			for (b = 0; b < NUM_BACKENDS; b++) {
				control_round(devs[b], sizes[s].bytes, va, t);
				for (op = 0; op < NUM_OPS; op++)
					samples[b][op][r] = t[op];
			}
		CHECK(cuMemAddressFree(va, sizes[s].bytes));
		for (op = 0; op < NUM_OPS; op++) {
			for (b = 0; b < NUM_BACKENDS; b++)
				st[b] = stats_of(samples[b][op], REPS);
			printf("%-16s %-7s | %8.2f (%6.1f) | %8.2f (%6.1f) | %5.2f\n",
			       op_names[op], sizes[s].name,
			       st[PCI].median_ns / 1e3,
			       st[PCI].median_ns / null.median_ns,
			       st[SYSTEM].median_ns / 1e3,
			       st[SYSTEM].median_ns / null.median_ns,
			       st[PCI].median_ns / st[SYSTEM].median_ns);
			JSON("\"part\": \"control\", \"op\": \"%s\", \"bytes\": %zu, "
			     "\"pci_ns\": %.0f, \"system_ns\": %.0f, "
			     "\"pci_x_null\": %.2f, \"system_x_null\": %.2f, "
			     "\"ratio\": %.3f", op_names[op], sizes[s].bytes,
			     st[PCI].median_ns, st[SYSTEM].median_ns,
			     st[PCI].median_ns / null.median_ns,
			     st[SYSTEM].median_ns / null.median_ns,
			     st[PCI].median_ns / st[SYSTEM].median_ns);
		}
	}
}

/* A fresh allocation of @bytes on @dev, mapped read-write. */
static CUdeviceptr map_new(CUdevice dev, size_t bytes,
			   CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp prop = prop_of(dev);
	CUdeviceptr va;

	CHECK(cuMemCreate(h, bytes, &prop, 0));
	CHECK(cuMemAddressReserve(&va, bytes, 0, 0, 0));
	CHECK(cuMemMap(va, bytes, 0, *h, 0));
	set_access(va, bytes, dev);
	return va;
}

static void unmap_free(CUdeviceptr va, size_t bytes,
		       CUmemGenericAllocationHandle h)
{
	CHECK(cuMemUnmap(va, bytes));
	CHECK(cuMemAddressFree(va, bytes));
	CHECK(cuMemRelease(h));
}

/* Nanoseconds per page to touch every page of a fresh mapping on @dev. */
static double touch_once(CUdevice dev)
{
	CUmemGenericAllocationHandle h;
	CUdeviceptr va = map_new(dev, TOUCH_BYTES, &h);
	volatile unsigned char *p = (volatile unsigned char *)(uintptr_t)va;
	double s, t;
	size_t i;

	s = now_ns();
	for (i = 0; i < TOUCH_BYTES; i += PAGE)
		p[i] = 1;
	t = now_ns() - s;
	unmap_free(va, TOUCH_BYTES, h);
	return t / (TOUCH_BYTES / PAGE);
}

static void part_touch(const CUdevice devs[NUM_BACKENDS])
{
	double samples[NUM_BACKENDS][DATA_REPS];
	struct stats st[NUM_BACKENDS];
	unsigned int b, r;

	for (r = 0; r < DATA_REPS; r++)
		for (b = 0; b < NUM_BACKENDS; b++)
			samples[b][r] = touch_once(devs[b]);
	for (b = 0; b < NUM_BACKENDS; b++)
		st[b] = stats_of(samples[b], DATA_REPS);
	printf("\ntouch: first touch of a page (fault, back, zero), median us "
	       "(x null)\n");
	printf("%-24s | %8.2f (%6.1f) | %8.2f (%6.1f) | %5.2f\n", "per page",
	       st[PCI].median_ns / 1e3, st[PCI].median_ns / null.median_ns,
	       st[SYSTEM].median_ns / 1e3, st[SYSTEM].median_ns / null.median_ns,
	       st[PCI].median_ns / st[SYSTEM].median_ns);
	JSON("\"part\": \"touch\", \"pci_ns\": %.0f, \"system_ns\": %.0f, "
	     "\"ratio\": %.3f", st[PCI].median_ns, st[SYSTEM].median_ns,
	     st[PCI].median_ns / st[SYSTEM].median_ns);
}

enum data_op { DATA_IN, DATA_OUT, DATA_SUM, NUM_DATA_OPS };

static const char *const data_names[NUM_DATA_OPS] = {
	"copy in (memcpy to)", "copy out (memcpy from)", "read-sum",
};

static uint64_t sink;

/* Seconds of one @op over @dev_mem, with @host as the other side. */
static double data_once(enum data_op op, uint64_t *dev_mem, uint64_t *host)
{
	uint64_t sum = 0;
	double s = now_ns();
	size_t i;

	switch (op) {
	case DATA_IN:
		memcpy(dev_mem, host, DATA_BYTES);
		break;
	case DATA_OUT:
		memcpy(host, dev_mem, DATA_BYTES);
		break;
	default:
		for (i = 0; i < DATA_BYTES / sizeof(*dev_mem); i++)
			sum += dev_mem[i];
		sink += sum;
	}
	return (now_ns() - s) / 1e9;
}

static void part_data(const CUdevice devs[NUM_BACKENDS])
{
	double samples[NUM_BACKENDS][NUM_DATA_OPS][DATA_REPS], gbs[NUM_BACKENDS];
	CUmemGenericAllocationHandle h[NUM_BACKENDS];
	CUdeviceptr va[NUM_BACKENDS];
	uint64_t *host = malloc(DATA_BYTES);
	unsigned int b, op, r;

	if (!host) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(host, 0x5a, DATA_BYTES);
	for (b = 0; b < NUM_BACKENDS; b++) {
		va[b] = map_new(devs[b], DATA_BYTES, &h[b]);
		/* Touched first: this part is about the data, not the faults. */
		memset((void *)(uintptr_t)va[b], 0, DATA_BYTES);
	}
	for (r = 0; r < DATA_REPS; r++)
		for (op = 0; op < NUM_DATA_OPS; op++)
			for (b = 0; b < NUM_BACKENDS; b++)
				samples[b][op][r] = data_once(op,
						(uint64_t *)(uintptr_t)va[b], host);
	printf("\ndata: %llu MiB of touched device memory, median GB/s\n",
	       DATA_BYTES >> 20);
	for (op = 0; op < NUM_DATA_OPS; op++) {
		for (b = 0; b < NUM_BACKENDS; b++)
			gbs[b] = DATA_BYTES / 1e9 /
				 stats_of(samples[b][op], DATA_REPS).median_ns;
		printf("%-24s | %8.2f          | %8.2f          | %5.2f\n",
		       data_names[op], gbs[PCI], gbs[SYSTEM], gbs[PCI] / gbs[SYSTEM]);
		JSON("\"part\": \"data\", \"op\": \"%s\", \"pci_gbs\": %.3f, "
		     "\"system_gbs\": %.3f, \"ratio\": %.3f", data_names[op],
		     gbs[PCI], gbs[SYSTEM], gbs[PCI] / gbs[SYSTEM]);
	}
	for (b = 0; b < NUM_BACKENDS; b++)
		unmap_free(va[b], DATA_BYTES, h[b]);
	free(host);
}

int main(int argc, char **argv)
{
	const char *json_path = "build/bench/bench_backend.json";
	CUdevice devs[NUM_BACKENDS] = { -1, -1 };
	struct json_object *doc;
	int count, d;

	if (argc == 3 && !strcmp(argv[1], "--json")) {
		json_path = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: bench_backend [--json FILE]\n");
		return 2;
	}
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&count));
	for (d = count - 1; d >= 0; d--)
		devs[is_pci(d) ? PCI : SYSTEM] = d;
	if (devs[PCI] < 0 || devs[SYSTEM] < 0) {
		fprintf(stderr, "bench_backend: needs a PCI device and a system-memory one (scripts/vm-run --gpus N num_devices=M)\n");
		return 2;
	}
	doc = bench_doc_begin(NULL);
	null = null_syscall();
	printf("bench_backend: device %d (%s) against device %d (%s); null "
	       "call %.0f ns\n\n", devs[PCI], backend_names[PCI], devs[SYSTEM],
	       backend_names[SYSTEM], null.median_ns);
	json_object_object_add(doc, "null_ns", bench_num("%.0f", null.median_ns));
	json_object_object_add(doc, "pci_device", json_object_new_int(devs[PCI]));
	json_object_object_add(doc, "system_device",
			       json_object_new_int(devs[SYSTEM]));
	json_object_object_add(doc, "results", bench_rows);
	part_control(devs);
	part_touch(devs);
	part_data(devs);
	if (bench_json_write(json_path, doc)) {
		perror(json_path);
		return 1;
	}
	json_object_put(doc);
	return 0;
}
