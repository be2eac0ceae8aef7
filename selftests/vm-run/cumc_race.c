// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose load races two threads on one plain variable, so that
 * test-vm-run.sh can show scripts/vm-run failing a run on the report KCSAN
 * makes of it on the data-race detector's kernel (scripts/debug-kernel
 * --kcsan), as it does on cumc's own races.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>

/* Long enough for KCSAN's sampled watchpoints to catch it under TCG. */
#define CUMC_RACE_TIME (3 * HZ)

static unsigned long cumc_race_counter;
static unsigned long cumc_race_seen;
static DECLARE_COMPLETION(cumc_race_written);
static DECLARE_COMPLETION(cumc_race_read);

/* The barriers keep each access in its loop, where KCSAN sees it. */
static int cumc_race_writer(void *unused)
{
	unsigned long end = jiffies + CUMC_RACE_TIME;

	while (time_before(jiffies, end)) {
		cumc_race_counter++;	/* unmarked on purpose: the race */
		barrier();
	}
	complete(&cumc_race_written);
	return 0;
}

static int cumc_race_reader(void *unused)
{
	unsigned long end = jiffies + CUMC_RACE_TIME;

	while (time_before(jiffies, end)) {
		cumc_race_seen += cumc_race_counter;	/* unmarked on purpose */
		barrier();
	}
	complete(&cumc_race_read);
	return 0;
}

/* Each thread on a CPU of its own, so that they truly run at once. */
static int cumc_race_start(int (*fn)(void *), unsigned int cpu)
{
	struct task_struct *t;

	t = kthread_create(fn, NULL, "cumc_race/%u", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	wake_up_process(t);
	return 0;
}

static int __init cumc_race_init(void)
{
	int ret;

	if (num_online_cpus() < 2)
		return -ENODEV;
	ret = cumc_race_start(cumc_race_writer, 0);
	if (ret)
		return ret;
	ret = cumc_race_start(cumc_race_reader, 1);
	if (ret) {
		wait_for_completion(&cumc_race_written);
		return ret;
	}
	wait_for_completion(&cumc_race_written);
	wait_for_completion(&cumc_race_read);
	pr_info("cumc_race: raced on purpose (%lu)\n", cumc_race_seen);
	return 0;
}

static void __exit cumc_race_exit(void)
{
}

module_init(cumc_race_init);
module_exit(cumc_race_exit);

MODULE_DESCRIPTION("cumc test: a data race for the VM runner's own test");
MODULE_LICENSE("GPL");
