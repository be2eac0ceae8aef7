// SPDX-License-Identifier: GPL-2.0
/*
 * A module that does nothing but trigger a kernel warning when loaded, so
 * that test-vm-run.sh can show scripts/vm-run failing a run on one.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init cumc_warn_init(void)
{
	WARN(1, "cumc_warn: warning on purpose\n");
	return 0;
}

static void __exit cumc_warn_exit(void)
{
}

module_init(cumc_warn_init);
module_exit(cumc_warn_exit);

MODULE_DESCRIPTION("cumc test: a kernel warning for the VM runner's own test");
MODULE_LICENSE("GPL");
