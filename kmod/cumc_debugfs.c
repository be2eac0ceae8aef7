// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: counts of live objects, so tests can prove that a client that
 * exits or is killed leaves nothing behind. Not an interface for programs.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cumc_internal.h"

atomic_t cumk_live_clients = ATOMIC_INIT(0);
atomic_t cumk_live_mems = ATOMIC_INIT(0);
atomic_long_t cumk_live_pages = ATOMIC_LONG_INIT(0);
atomic_t cumk_live_vas = ATOMIC_INIT(0);
atomic_t cumk_live_mappings = ATOMIC_INIT(0);
atomic_t cumk_live_mcs = ATOMIC_INIT(0);
atomic_t cumk_live_binds = ATOMIC_INIT(0);
atomic_t cumk_live_views = ATOMIC_INIT(0);
atomic_t cumk_live_usages = ATOMIC_INIT(0);

static struct dentry *cumk_debugfs_dir;

static int cumk_objects_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "clients %d\n", atomic_read(&cumk_live_clients));
	seq_printf(m, "mems %d\n", atomic_read(&cumk_live_mems));
	seq_printf(m, "pages %ld\n", atomic_long_read(&cumk_live_pages));
	seq_printf(m, "vas %d\n", atomic_read(&cumk_live_vas));
	seq_printf(m, "mappings %d\n", atomic_read(&cumk_live_mappings));
	seq_printf(m, "mcs %d\n", atomic_read(&cumk_live_mcs));
	seq_printf(m, "binds %d\n", atomic_read(&cumk_live_binds));
	seq_printf(m, "views %d\n", atomic_read(&cumk_live_views));
	seq_printf(m, "usages %d\n", atomic_read(&cumk_live_usages));
	seq_printf(m, "holds %d\n", atomic_read(&cumk_live_holds));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cumk_objects);

static int cumk_clients_usage_show(struct seq_file *m, void *unused)
{
	cumk_clients_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cumk_clients_usage);

static int cumk_users_usage_show(struct seq_file *m, void *unused)
{
	cumk_users_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cumk_users_usage);

void cumk_debugfs_init(void)
{
	cumk_debugfs_dir = debugfs_create_dir("cumc", NULL);
	debugfs_create_file("objects", 0444, cumk_debugfs_dir, NULL,
			    &cumk_objects_fops);
	debugfs_create_file("clients", 0444, cumk_debugfs_dir, NULL,
			    &cumk_clients_usage_fops);
	debugfs_create_file("users", 0444, cumk_debugfs_dir, NULL,
			    &cumk_users_usage_fops);
}

void cumk_debugfs_exit(void)
{
	debugfs_remove_recursive(cumk_debugfs_dir);
}
