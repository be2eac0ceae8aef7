/* SPDX-License-Identifier: MIT */
/*
 * cumc-imex's configuration: the config file (key=value lines, as
 * nvidia-imex's config.cfg) and the node list it names (one IPv4 address
 * a line). See man/cumc-imex.8.
 */
#ifndef IMEX_CONFIG_H
#define IMEX_CONFIG_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IMEX_DEFAULT_PORT 50000
#define IMEX_DEFAULT_HEARTBEAT_MS 500
#define IMEX_DEFAULT_PEER_TIMEOUT_MS 10000
#define IMEX_HEARTBEAT_MS_MIN 10
#define IMEX_HEARTBEAT_MS_MAX 60000
#define IMEX_PEER_TIMEOUT_MS_MAX 3600000
/* The most addresses a node list may hold. */
#define IMEX_MAX_NODES 1024
/* Room for one error message: "FILE:LINE: what". */
#define IMEX_CONFIG_ERR_MAX 512

struct imex_config {
	char *node_file;	/* as resolved: relative to the config's dir */
	unsigned long node_file_line;	/* where the config file names it */
	uint16_t port;
	uint32_t heartbeat_ms;
	uint32_t peer_timeout_ms;
	struct in_addr *nodes;	/* the domain's addresses, in file order */
	size_t n_nodes;
};

/*
 * Parse the key=value lines of @f, named @name in messages, into @cfg
 * (defaults first), without reading the node list: 0, or -1 with a
 * message in @err. IMEX_NODE_CONFIG_FILE is kept as written.
 */
int imex_config_parse(struct imex_config *cfg, FILE *f, const char *name,
		      char *err, size_t errlen);

/*
 * Parse the node list of @f, named @name, into @cfg->nodes: 0, or -1 with
 * a message in @err.
 */
int imex_nodes_parse(struct imex_config *cfg, FILE *f, const char *name,
		     char *err, size_t errlen);

/*
 * Read the config file @path and the node list it names (a relative path
 * is taken from the config file's directory): 0, or -1 with a message in
 * @err naming the file and, where there is one, the line.
 */
int imex_config_load(struct imex_config *cfg, const char *path,
		     char *err, size_t errlen);

void imex_config_free(struct imex_config *cfg);

/* The index in @cfg->nodes of @addr, or -1. */
long imex_config_find(const struct imex_config *cfg, struct in_addr addr);

#endif /* IMEX_CONFIG_H */
