// SPDX-License-Identifier: GPL-2.0
/*
 * A module that reads memory it has just freed when loaded, so that
 * test-vm-run.sh can show scripts/vm-run failing a run on the KASAN report
 * a debug kernel makes of it.
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init cumc_kasan_init(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	/* Hidden from the compiler, which would warn of what KASAN is to see. */
	OPTIMIZER_HIDE_VAR(p);
	pr_info("cumc_kasan: read after free on purpose: %d\n", READ_ONCE(p[0]));
	return 0;
}

static void __exit cumc_kasan_exit(void)
{
}

module_init(cumc_kasan_init);
module_exit(cumc_kasan_exit);

MODULE_DESCRIPTION("cumc test: a use-after-free for the VM runner's own test");
MODULE_LICENSE("GPL");
