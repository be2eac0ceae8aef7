// SPDX-License-Identifier: MIT
/*
 * A GPU falling off the bus, as a driver-API program sees it (runs in the
 * VM, last: the GPU is gone for the rest of the boot). Entry points naming
 * the lost device or its memory answer CUDA_ERROR_UNKNOWN, what NVIDIA's
 * driver answers once a GPU has fallen off the bus; its memory faults with
 * SIGBUS; other devices go on; everything can still be released. Without
 * scripts/vm-run's control channel there is nothing to unplug, and the
 * test says so and passes.
 */
#include <check.h>
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "check_run.h"
#include "unplug.h"
#include "vmm.h"

/* The last device that is a cumc PCI device, and its address; or -1. */
static CUdevice pci_device(char *pci, size_t len)
{
	int count = vmm_device_count(), domain, bus, slot;

	for (CUdevice dev = count - 1; dev >= 0; dev--)
		if (!cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
					  dev) &&
		    !cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) &&
		    !cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
					  dev) &&
		    unplug_pci_bound(domain, bus, slot, pci, len))
			return dev;
	return -1;
}

START_TEST(lost_device_answers_unknown)
{
	CUmemGenericAllocationHandle handle, other_handle;
	CUmemAllocationProp prop;
	struct vmm_buf buf, other;
	char pci[32], why[128], name[64];
	CUdevice lost, healthy = 0;
	size_t g, bytes;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	g = vmm_granularity();
	if (!unplug_channel()) {
		printf("# no control channel to unplug a GPU: nothing to test\n");
		return;
	}
	lost = pci_device(pci, sizeof(pci));
	ck_assert_int_ge(lost, 1);
	buf = vmm_buf_new(lost, g);
	other = vmm_buf_new(healthy, g);
	vmm_assert_store_ok(buf.va);

	ck_assert_msg(!unplug_gpu(pci, why, sizeof(why)), "unplug %s: %s", pci,
		      why);

	/* Its memory is gone: SIGBUS, as on a GPU off the bus. */
	ck_assert_int_eq(vmm_touch_in_child(buf.va, false), SIGBUS);
	/* Entry points naming it or its memory. */
	ck_assert_int_eq(cuDeviceGetName(name, sizeof(name), lost),
			 CUDA_ERROR_UNKNOWN);
	ck_assert_int_eq(cuDeviceTotalMem(&bytes, lost), CUDA_ERROR_UNKNOWN);
	prop = vmm_prop(lost);
	ck_assert_int_eq(cuMemCreate(&handle, g, &prop, 0), CUDA_ERROR_UNKNOWN);
	ck_assert_int_eq(vmm_set_access(buf.va, g, lost,
			CU_MEM_ACCESS_FLAGS_PROT_READ), CUDA_ERROR_UNKNOWN);
	ck_assert_int_eq(cuMemUnmap(buf.va, g), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(buf.va, g, 0, buf.handle, 0),
			 CUDA_ERROR_UNKNOWN);
	/* The other device goes on. */
	vmm_assert_store_ok(other.va);
	other_handle = vmm_create(healthy, g);
	ck_assert_int_eq(cuMemRelease(other_handle), CUDA_SUCCESS);
	/* Everything is released as usual. */
	ck_assert_int_eq(cuMemRelease(buf.handle), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(buf.va, g), CUDA_SUCCESS);
	vmm_buf_free(&other);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unplug");
	TCase *tc = tcase_create("lost device");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, lost_device_answers_unknown);
	suite_add_tcase(s, tc);
	return check_run(s);
}
