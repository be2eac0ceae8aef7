// SPDX-License-Identifier: GPL-2.0
/*
 * A module that allocates memory when loaded and forgets it, so that
 * test-vm-run.sh can show scripts/vm-run failing a run on the report
 * kmemleak makes of it on a debug kernel.
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

/*
 * Several objects: kmemleak reports only those it finds no pointer to, and
 * a pointer to one may outlive the call in a stale stack slot or register
 * copy; it cannot for all of them.
 */
#define CUMC_LEAK_OBJECTS 8

static int __init cumc_leak_init(void)
{
	unsigned int i, leaked = 0;
	void *p;

	for (i = 0; i < CUMC_LEAK_OBJECTS; i++) {
		p = kmalloc(64, GFP_KERNEL);
		/* Kept from the compiler, which would drop an allocation never used. */
		OPTIMIZER_HIDE_VAR(p);
		if (p)
			leaked++;
	}
	pr_info("cumc_leak: leaking %u objects of 64 bytes on purpose\n", leaked);
	return 0;
}

static void __exit cumc_leak_exit(void)
{
}

module_init(cumc_leak_init);
module_exit(cumc_leak_exit);

MODULE_DESCRIPTION("cumc test: a memory leak for the VM runner's own test");
MODULE_LICENSE("GPL");
