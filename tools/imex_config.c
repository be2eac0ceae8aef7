// SPDX-License-Identifier: MIT
/*
 * cumc-imex's config file and node list (imex_config.h).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "imex_config.h"

/* "NAME:LINE: what", or "NAME: what" for line 0; answers -1. */
static int __attribute__((format(printf, 5, 6)))
fail(char *err, size_t errlen, const char *name, unsigned long line,
     const char *fmt, ...)
{
	int n = line ? snprintf(err, errlen, "%s:%lu: ", name, line) :
		       snprintf(err, errlen, "%s: ", name);
	va_list ap;

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The line without its comment and surrounding blanks, in place. */
static char *clean_line(char *line)
{
	char *hash = strchr(line, '#');
	char *end;

	if (hash)
		*hash = '\0';
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return line;
}

/* A decimal number, digits only, within [min, max]. */
static bool parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	unsigned long long n = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		n = n * 10 + (*s - '0');
		if (n > max)
			return false;
	}
	if (n < min)
		return false;
	*v = n;
	return true;
}

enum imex_key {
	KEY_NODE_CONFIG_FILE,
	KEY_SERVER_PORT,
	KEY_HEARTBEAT_INTERVAL_MS,
	KEY_PEER_TIMEOUT_MS,
	KEY_NR
};

static const struct {
	const char *name;
	uint32_t min, max;	/* numbers only */
} keys[KEY_NR] = {
	[KEY_NODE_CONFIG_FILE] = { "IMEX_NODE_CONFIG_FILE", 0, 0 },
	[KEY_SERVER_PORT] = { "SERVER_PORT", 1, 65535 },
	[KEY_HEARTBEAT_INTERVAL_MS] = { "HEARTBEAT_INTERVAL_MS",
					IMEX_HEARTBEAT_MS_MIN,
					IMEX_HEARTBEAT_MS_MAX },
	[KEY_PEER_TIMEOUT_MS] = { "PEER_TIMEOUT_MS", 1,
				  IMEX_PEER_TIMEOUT_MS_MAX },
};

/* One KEY=VALUE line, already cleaned and not empty. */
static int parse_pair(struct imex_config *cfg, char *line,
		      unsigned long lineno, unsigned long seen[KEY_NR],
		      const char *name, char *err, size_t errlen)
{
	char *eq = strchr(line, '='), *key, *value, *end;
	uint32_t v;
	int k;

	if (!eq || eq == line)
		return fail(err, errlen, name, lineno,
			    "expected KEY=VALUE, not '%s'", line);
	*eq = '\0';
	key = clean_line(line);
	value = clean_line(eq + 1);
	for (end = key; *end && !isspace((unsigned char)*end); end++)
		;
	if (*end || !*key)
		return fail(err, errlen, name, lineno,
			    "expected KEY=VALUE, not '%s'", key);
	for (k = 0; k < KEY_NR && strcmp(keys[k].name, key); k++)
		;
	if (k == KEY_NR)
		return fail(err, errlen, name, lineno, "unknown key '%s'", key);
	if (seen[k])
		return fail(err, errlen, name, lineno,
			    "%s set again (first on line %lu)", key, seen[k]);
	if (!*value)
		return fail(err, errlen, name, lineno, "%s has no value", key);
	seen[k] = lineno;
	if (k == KEY_NODE_CONFIG_FILE) {
		cfg->node_file = strdup(value);
		cfg->node_file_line = lineno;
		if (!cfg->node_file)
			return fail(err, errlen, name, lineno, "out of memory");
		return 0;
	}
	if (!parse_u32(value, keys[k].min, keys[k].max, &v))
		return fail(err, errlen, name, lineno,
			    "%s: '%s' is not a number from %u to %u", key,
			    value, keys[k].min, keys[k].max);
	if (k == KEY_SERVER_PORT)
		cfg->port = v;
	else if (k == KEY_HEARTBEAT_INTERVAL_MS)
		cfg->heartbeat_ms = v;
	else
		cfg->peer_timeout_ms = v;
	return 0;
}

int imex_config_parse(struct imex_config *cfg, FILE *f, const char *name,
		      char *err, size_t errlen)
{
	unsigned long seen[KEY_NR] = { 0 }, lineno = 0;
	char *buf = NULL, *line;
	size_t cap = 0;
	int ret = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->port = IMEX_DEFAULT_PORT;
	cfg->heartbeat_ms = IMEX_DEFAULT_HEARTBEAT_MS;
	cfg->peer_timeout_ms = IMEX_DEFAULT_PEER_TIMEOUT_MS;
	errno = 0;
	while (!ret && getline(&buf, &cap, f) >= 0) {
		lineno++;
		line = clean_line(buf);
		if (*line)
			ret = parse_pair(cfg, line, lineno, seen, name, err,
					 errlen);
	}
	if (!ret && ferror(f))
		ret = fail(err, errlen, name, 0, "read error: %s",
			   strerror(errno ? errno : EIO));
	free(buf);
	if (!ret && !cfg->node_file)
		ret = fail(err, errlen, name, 0,
			   "IMEX_NODE_CONFIG_FILE is not set");
	/* A peer must have missed more than one heartbeat to be lost. */
	if (!ret && cfg->peer_timeout_ms < 2 * cfg->heartbeat_ms)
		ret = fail(err, errlen, name,
			   seen[KEY_PEER_TIMEOUT_MS] ?
			   seen[KEY_PEER_TIMEOUT_MS] :
			   seen[KEY_HEARTBEAT_INTERVAL_MS],
			   "PEER_TIMEOUT_MS (%u) must be at least twice HEARTBEAT_INTERVAL_MS (%u)",
			   cfg->peer_timeout_ms, cfg->heartbeat_ms);
	if (ret)
		imex_config_free(cfg);
	return ret;
}

/* Addresses no node can have: any, broadcast, multicast. */
static bool node_address_ok(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	return h != INADDR_ANY && h != INADDR_BROADCAST && !IN_MULTICAST(h);
}

int imex_nodes_parse(struct imex_config *cfg, FILE *f, const char *name,
		     char *err, size_t errlen)
{
	unsigned long lineno = 0, *lines = NULL;
	struct in_addr *nodes = NULL, a;
	char *buf = NULL, *line;
	size_t n = 0, cap = 0, i;
	int ret = 0;

	errno = 0;
	while (!ret && getline(&buf, &cap, f) >= 0) {
		lineno++;
		line = clean_line(buf);
		if (!*line)
			continue;
		if (inet_pton(AF_INET, line, &a) != 1) {
			ret = fail(err, errlen, name, lineno,
				   "'%s' is not an IPv4 address", line);
			break;
		}
		if (!node_address_ok(a)) {
			ret = fail(err, errlen, name, lineno,
				   "%s cannot be a node's address", line);
			break;
		}
		for (i = 0; i < n && nodes[i].s_addr != a.s_addr; i++)
			;
		if (i < n) {
			ret = fail(err, errlen, name, lineno,
				   "%s listed again (first on line %lu)", line,
				   lines[i]);
			break;
		}
		if (n == IMEX_MAX_NODES) {
			ret = fail(err, errlen, name, lineno,
				   "more than %d nodes", IMEX_MAX_NODES);
			break;
		}
		if (!(n & (n - 1))) {
			size_t want = n ? 2 * n : 8;
			struct in_addr *nn = realloc(nodes, want * sizeof(*nn));
			unsigned long *nl = nn ? realloc(lines, want * sizeof(*nl)) :
						 NULL;

			if (nn)
				nodes = nn;
			if (nl)
				lines = nl;
			if (!nn || !nl) {
				ret = fail(err, errlen, name, lineno,
					   "out of memory");
				break;
			}
		}
		lines[n] = lineno;
		nodes[n++] = a;
	}
	if (!ret && ferror(f))
		ret = fail(err, errlen, name, 0, "read error: %s",
			   strerror(errno ? errno : EIO));
	if (!ret && !n)
		ret = fail(err, errlen, name, 0, "no node address");
	free(buf);
	free(lines);
	if (ret) {
		free(nodes);
		return ret;
	}
	free(cfg->nodes);
	cfg->nodes = nodes;
	cfg->n_nodes = n;
	return 0;
}

/* @file as seen from the directory of @config. */
static char *resolve(const char *config, const char *file)
{
	const char *slash = strrchr(config, '/');
	char *path;

	if (file[0] == '/' || !slash)
		return strdup(file);
	if (asprintf(&path, "%.*s/%s", (int)(slash - config), config,
		     file) < 0)
		return NULL;
	return path;
}

int imex_config_load(struct imex_config *cfg, const char *path,
		     char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *node_file;
	int ret;

	if (!f) {
		memset(cfg, 0, sizeof(*cfg));
		return fail(err, errlen, path, 0, "%s", strerror(errno));
	}
	ret = imex_config_parse(cfg, f, path, err, errlen);
	fclose(f);
	if (ret)
		return ret;
	node_file = resolve(path, cfg->node_file);
	if (!node_file) {
		imex_config_free(cfg);
		return fail(err, errlen, path, 0, "out of memory");
	}
	free(cfg->node_file);
	cfg->node_file = node_file;
	f = fopen(node_file, "r");
	if (!f) {
		ret = fail(err, errlen, path, cfg->node_file_line,
			   "IMEX_NODE_CONFIG_FILE: %s: %s", node_file,
			   strerror(errno));
	} else {
		ret = imex_nodes_parse(cfg, f, node_file, err, errlen);
		fclose(f);
	}
	if (ret)
		imex_config_free(cfg);
	return ret;
}

void imex_config_free(struct imex_config *cfg)
{
	free(cfg->node_file);
	free(cfg->nodes);
	cfg->node_file = NULL;
	cfg->nodes = NULL;
	cfg->n_nodes = 0;
}

long imex_config_find(const struct imex_config *cfg, struct in_addr addr)
{
	size_t i;

	for (i = 0; i < cfg->n_nodes; i++)
		if (cfg->nodes[i].s_addr == addr.s_addr)
			return i;
	return -1;
}
