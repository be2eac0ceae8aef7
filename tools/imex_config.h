/* SPDX-License-Identifier: MIT */
/*
 * cumc-imex's configuration: the config file (key=value lines, as
 * nvidia-imex's config.cfg), the node list it names (an IPv4 address and
 * the node index it belongs to, a line) and the domain's secret, in a key
 * file only root reads. See man/cumc-imex.8.
 */
#ifndef IMEX_CONFIG_H
#define IMEX_CONFIG_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "imex_auth.h"

#define IMEX_DEFAULT_PORT 50000
#define IMEX_DEFAULT_HEARTBEAT_MS 500
#define IMEX_DEFAULT_PEER_TIMEOUT_MS 10000
#define IMEX_HEARTBEAT_MS_MIN 10
#define IMEX_HEARTBEAT_MS_MAX 60000
#define IMEX_PEER_TIMEOUT_MS_MAX 3600000
/* The most addresses a node list may hold. */
#define IMEX_MAX_NODES 1024
/* The highest node index a node list may give. */
#define IMEX_NODE_INDEX_MAX 65535
/* The most bytes a key file may hold (the secret in hex, and blanks). */
#define IMEX_SECRET_FILE_MAX 4096
/* Room for one error message: "FILE:LINE: what". */
#define IMEX_CONFIG_ERR_MAX 512

struct imex_config {
	char *node_file;	/* as resolved: relative to the config's dir */
	unsigned long node_file_line;	/* where the config file names it */
	char *secret_file;	/* likewise */
	unsigned long secret_file_line;
	uint16_t port;
	uint32_t heartbeat_ms;
	uint32_t peer_timeout_ms;
	struct in_addr *nodes;	/* the domain's addresses, in file order */
	uint32_t *node_ids;	/* nodes[i] is node node_ids[i]'s */
	size_t n_nodes;
	struct imex_secret secret;	/* imex_config_load()'s, from the key file */
};

/*
 * Parse the key=value lines of @f, named @name in messages, into @cfg
 * (defaults first), without reading the node list or the key file: 0, or
 * -1 with a message in @err. IMEX_NODE_CONFIG_FILE and
 * IMEX_AUTH_SECRET_FILE are kept as written.
 */
int imex_config_parse(struct imex_config *cfg, FILE *f, const char *name,
		      char *err, size_t errlen);

/*
 * Parse the node list of @f, named @name, into @cfg->nodes and
 * @cfg->node_ids: 0, or -1 with a message in @err.
 */
int imex_nodes_parse(struct imex_config *cfg, FILE *f, const char *name,
		     char *err, size_t errlen);

/*
 * Read the domain's secret from the key file @path into @secret: hex
 * digits, IMEX_AUTH_SECRET_MIN to IMEX_AUTH_SECRET_MAX bytes of them,
 * blanks and newlines ignored. The file must be a regular file (not a
 * symbolic link), owned by root or by @owner (the daemon's own user), and
 * neither readable nor writable by anyone else: 0, or -1 with a message in
 * @err saying what is wrong and how to mend it.
 */
int imex_secret_load(struct imex_secret *secret, const char *path,
		     uid_t owner, char *err, size_t errlen);

/*
 * Read the config file @path, the node list and the key file it names (a
 * relative path is taken from the config file's directory; the key file
 * must be the daemon's effective user's or root's): 0, or -1 with a
 * message in @err naming the file and, where there is one, the line.
 */
int imex_config_load(struct imex_config *cfg, const char *path,
		     char *err, size_t errlen);

void imex_config_free(struct imex_config *cfg);

/* The index in @cfg->nodes of @addr, or -1. */
long imex_config_find(const struct imex_config *cfg, struct in_addr addr);

/* The index in @cfg->nodes of node @node's address, or -1. */
long imex_config_find_node(const struct imex_config *cfg, uint32_t node);

#endif /* IMEX_CONFIG_H */
