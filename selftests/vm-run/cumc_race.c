// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose load races two threads on one plain variable, so that
 * test-vm-run.sh can show scripts/vm-run failing a run on the report KCSAN
 * makes of it on the data-race detector's kernel (scripts/debug-kernel
 * --kcsan), as it does on cumc's own races.
 */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>

/* Long enough for KCSAN's sampled watchpoints to catch it under TCG. */
#define CUMC_RACE_TIME (2 * HZ)

static unsigned long cumc_race_counter;
static DECLARE_COMPLETION(cumc_race_done);

static int cumc_race_writer(void *unused)
{
	unsigned long end = jiffies + CUMC_RACE_TIME;

	/* The barriers keep each access in the loop, where KCSAN sees it. */
	while (time_before(jiffies, end)) {
		cumc_race_counter++;	/* unmarked on purpose: the race */
		barrier();
	}
	complete(&cumc_race_done);
	return 0;
}

static int __init cumc_race_init(void)
{
	unsigned long end = jiffies + CUMC_RACE_TIME;
	struct task_struct *writer;
	unsigned long seen = 0;

	writer = kthread_run(cumc_race_writer, NULL, "cumc_race");
	if (IS_ERR(writer))
		return PTR_ERR(writer);
	while (time_before(jiffies, end)) {
		seen += cumc_race_counter;	/* unmarked on purpose */
		barrier();
	}
	wait_for_completion(&cumc_race_done);
	pr_info("cumc_race: raced on purpose (%lu)\n", seen);
	return 0;
}

static void __exit cumc_race_exit(void)
{
}

module_init(cumc_race_init);
module_exit(cumc_race_exit);

MODULE_DESCRIPTION("cumc test: a data race for the VM runner's own test");
MODULE_LICENSE("GPL");
