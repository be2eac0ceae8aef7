// SPDX-License-Identifier: MIT
/*
 * cumc-imex's config file and node list (imex_config.h).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	KEY_AUTH_SECRET_FILE,
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
	[KEY_AUTH_SECRET_FILE] = { "IMEX_AUTH_SECRET_FILE", 0, 0 },
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
	if (k == KEY_NODE_CONFIG_FILE || k == KEY_AUTH_SECRET_FILE) {
		char *path = strdup(value);

		if (!path)
			return fail(err, errlen, name, lineno, "out of memory");
		if (k == KEY_NODE_CONFIG_FILE) {
			cfg->node_file = path;
			cfg->node_file_line = lineno;
		} else {
			cfg->secret_file = path;
			cfg->secret_file_line = lineno;
		}
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
	/* No daemon runs without its domain's secret. */
	if (!ret && !cfg->secret_file)
		ret = fail(err, errlen, name, 0,
			   "IMEX_AUTH_SECRET_FILE is not set: every daemon of a domain needs the domain's secret");
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

/*
 * "ADDRESS NODE": the two words of a node list's line, in place; false,
 * the line untouched, when it has more.
 */
static bool split_words(char *line, char **first, char **second)
{
	char *end = line, *p;

	while (*end && !isspace((unsigned char)*end))
		end++;
	*first = line;
	*second = NULL;
	if (!*end)
		return true;
	for (p = end; isspace((unsigned char)*p); p++)
		;
	*second = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		return false;
	*end = '\0';
	return true;
}

int imex_nodes_parse(struct imex_config *cfg, FILE *f, const char *name,
		     char *err, size_t errlen)
{
	unsigned long lineno = 0, *lines = NULL;
	struct in_addr *nodes = NULL, a;
	uint32_t *ids = NULL, id;
	char *buf = NULL, *line, *word, *index;
	size_t n = 0, cap = 0, i;
	int ret = 0;

	errno = 0;
	while (!ret && getline(&buf, &cap, f) >= 0) {
		lineno++;
		line = clean_line(buf);
		if (!*line)
			continue;
		if (!split_words(line, &word, &index)) {
			ret = fail(err, errlen, name, lineno,
				   "expected ADDRESS NODE, not '%s'", line);
			break;
		}
		if (inet_pton(AF_INET, word, &a) != 1) {
			ret = fail(err, errlen, name, lineno,
				   "'%s' is not an IPv4 address", word);
			break;
		}
		if (!node_address_ok(a)) {
			ret = fail(err, errlen, name, lineno,
				   "%s cannot be a node's address", word);
			break;
		}
		if (!index) {
			ret = fail(err, errlen, name, lineno,
				   "%s has no node index (a line is ADDRESS NODE)",
				   word);
			break;
		}
		if (!parse_u32(index, 0, IMEX_NODE_INDEX_MAX, &id)) {
			ret = fail(err, errlen, name, lineno,
				   "'%s' is not a node index from 0 to %d",
				   index, IMEX_NODE_INDEX_MAX);
			break;
		}
		for (i = 0; i < n && nodes[i].s_addr != a.s_addr; i++)
			;
		if (i < n) {
			ret = fail(err, errlen, name, lineno,
				   "%s listed again (first on line %lu)", word,
				   lines[i]);
			break;
		}
		for (i = 0; i < n && ids[i] != id; i++)
			;
		if (i < n) {
			ret = fail(err, errlen, name, lineno,
				   "node %u listed again (first on line %lu)",
				   id, lines[i]);
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
			uint32_t *ni = nl ? realloc(ids, want * sizeof(*ni)) :
					    NULL;

			if (nn)
				nodes = nn;
			if (nl)
				lines = nl;
			if (ni)
				ids = ni;
			if (!nn || !nl || !ni) {
				ret = fail(err, errlen, name, lineno,
					   "out of memory");
				break;
			}
		}
		lines[n] = lineno;
		ids[n] = id;
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
		free(ids);
		return ret;
	}
	free(cfg->nodes);
	free(cfg->node_ids);
	cfg->nodes = nodes;
	cfg->node_ids = ids;
	cfg->n_nodes = n;
	return 0;
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The secret in @text, hex digits and blanks: 0, or -1 with a message. */
static int parse_secret(struct imex_secret *secret, const char *text,
			size_t len, const char *path, char *err, size_t errlen)
{
	size_t i, digits = 0;
	int d;

	memset(secret, 0, sizeof(*secret));
	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)text[i]))
			continue;
		d = hex_digit((unsigned char)text[i]);
		if (d < 0)
			return fail(err, errlen, path, 0,
				    "not a secret in hex digits (make one with: openssl rand -hex 32)");
		if (digits / 2 == IMEX_AUTH_SECRET_MAX)
			return fail(err, errlen, path, 0,
				    "a secret of more than %d bytes",
				    IMEX_AUTH_SECRET_MAX);
		secret->bytes[digits / 2] |= digits % 2 ? d : d << 4;
		digits++;
	}
	if (digits % 2)
		return fail(err, errlen, path, 0,
			    "an odd number of hex digits");
	if (digits / 2 < IMEX_AUTH_SECRET_MIN)
		return fail(err, errlen, path, 0,
			    "a secret of %zu bytes, fewer than %d (make one with: openssl rand -hex 32)",
			    digits / 2, IMEX_AUTH_SECRET_MIN);
	secret->len = digits / 2;
	return 0;
}

int imex_secret_load(struct imex_secret *secret, const char *path,
		     uid_t owner, char *err, size_t errlen)
{
	char text[IMEX_SECRET_FILE_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd, ret;

	memset(secret, 0, sizeof(*secret));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, path, 0, "%s",
			    errno == ELOOP ? "a symbolic link: the key file must be the file itself" :
			    strerror(errno));
	if (fstat(fd, &st)) {
		ret = fail(err, errlen, path, 0, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = fail(err, errlen, path, 0, "not a regular file");
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != owner) {
		ret = owner ?
		      fail(err, errlen, path, 0,
			   "owned by uid %u, neither root nor this daemon's user (uid %u): refused",
			   (unsigned int)st.st_uid, (unsigned int)owner) :
		      fail(err, errlen, path, 0,
			   "owned by uid %u, not by root: refused (chown root '%s')",
			   (unsigned int)st.st_uid, path);
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		ret = fail(err, errlen, path, 0,
			   "mode %04o: group or others may read or write the domain's secret: refused (chmod 600 '%s')",
			   (unsigned int)(st.st_mode & 07777), path);
		goto out;
	}
	while (len < sizeof(text) &&
	       (n = read(fd, text + len, sizeof(text) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = fail(err, errlen, path, 0, "read error: %s",
				   strerror(errno));
			goto out;
		}
		len += n;
	}
	if (len > IMEX_SECRET_FILE_MAX)
		ret = fail(err, errlen, path, 0, "more than %d bytes",
			   IMEX_SECRET_FILE_MAX);
	else
		ret = parse_secret(secret, text, len, path, err, errlen);
out:
	explicit_bzero(text, sizeof(text));
	if (ret)
		explicit_bzero(secret, sizeof(*secret));
	close(fd);
	return ret;
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
	char *node_file, *secret_file;
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
	secret_file = resolve(path, cfg->secret_file);
	if (!node_file || !secret_file) {
		free(node_file);
		free(secret_file);
		imex_config_free(cfg);
		return fail(err, errlen, path, 0, "out of memory");
	}
	free(cfg->node_file);
	cfg->node_file = node_file;
	free(cfg->secret_file);
	cfg->secret_file = secret_file;
	f = fopen(node_file, "r");
	if (!f) {
		ret = fail(err, errlen, path, cfg->node_file_line,
			   "IMEX_NODE_CONFIG_FILE: %s: %s", node_file,
			   strerror(errno));
	} else {
		ret = imex_nodes_parse(cfg, f, node_file, err, errlen);
		fclose(f);
	}
	if (!ret)
		ret = imex_secret_load(&cfg->secret, secret_file, geteuid(),
				       err, errlen);
	if (ret)
		imex_config_free(cfg);
	return ret;
}

void imex_config_free(struct imex_config *cfg)
{
	free(cfg->node_file);
	free(cfg->secret_file);
	free(cfg->nodes);
	free(cfg->node_ids);
	cfg->node_file = NULL;
	cfg->secret_file = NULL;
	cfg->nodes = NULL;
	cfg->node_ids = NULL;
	cfg->n_nodes = 0;
	explicit_bzero(&cfg->secret, sizeof(cfg->secret));
}

long imex_config_find(const struct imex_config *cfg, struct in_addr addr)
{
	size_t i;

	for (i = 0; i < cfg->n_nodes; i++)
		if (cfg->nodes[i].s_addr == addr.s_addr)
			return i;
	return -1;
}

long imex_config_find_node(const struct imex_config *cfg, uint32_t node)
{
	size_t i;

	for (i = 0; i < cfg->n_nodes; i++)
		if (cfg->node_ids[i] == node)
			return i;
	return -1;
}
