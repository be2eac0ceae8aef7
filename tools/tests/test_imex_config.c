// SPDX-License-Identifier: MIT
/*
 * cumc-imex's config file, node list and key file (tools/imex_config.c):
 * what they accept, and that each refusal names the file and the line; a
 * key file anyone but its owner may read, or not root's, is refused.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "imex_config.h"

static char err[IMEX_CONFIG_ERR_MAX];

/* imex_config_parse() of @text, as file "c.cfg". */
static int parse(struct imex_config *cfg, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	err[0] = '\0';
	ret = imex_config_parse(cfg, f, "c.cfg", err, sizeof(err));
	fclose(f);
	return ret;
}

/* imex_nodes_parse() of @text, as file "n.cfg". */
static int parse_nodes(struct imex_config *cfg, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	err[0] = '\0';
	ret = imex_nodes_parse(cfg, f, "n.cfg", err, sizeof(err));
	fclose(f);
	return ret;
}

/* @text is refused with exactly @msg. */
static void refused(const char *text, const char *msg)
{
	struct imex_config cfg;

	ck_assert_msg(parse(&cfg, text) == -1, "accepted: %s", text);
	ck_assert_str_eq(err, msg);
	ck_assert_ptr_null(cfg.node_file);
}

static void nodes_refused(const char *text, const char *msg)
{
	struct imex_config cfg = { 0 };

	ck_assert_msg(parse_nodes(&cfg, text) == -1, "accepted: %s", text);
	ck_assert_str_eq(err, msg);
	ck_assert_ptr_null(cfg.nodes);
	ck_assert_uint_eq(cfg.n_nodes, 0);
}

static const char *addr(const struct imex_config *cfg, size_t i)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &cfg->nodes[i], buf, sizeof(buf));
}

START_TEST(defaults)
{
	struct imex_config cfg;

	ck_assert_int_eq(parse(&cfg, "IMEX_NODE_CONFIG_FILE=/etc/nodes\n"
			       "IMEX_AUTH_SECRET_FILE=/etc/key\n"), 0);
	ck_assert_str_eq(cfg.node_file, "/etc/nodes");
	ck_assert_uint_eq(cfg.node_file_line, 1);
	ck_assert_str_eq(cfg.secret_file, "/etc/key");
	ck_assert_uint_eq(cfg.secret_file_line, 2);
	ck_assert_uint_eq(cfg.port, 50000);
	ck_assert_uint_eq(cfg.heartbeat_ms, 500);
	ck_assert_uint_eq(cfg.peer_timeout_ms, 10000);
	imex_config_free(&cfg);
	ck_assert_ptr_null(cfg.node_file);
}
END_TEST

/* Comments, blank lines, blanks around keys and values, CRLF, no final newline. */
START_TEST(every_key)
{
	struct imex_config cfg;

	ck_assert_int_eq(parse(&cfg,
			       "# cumc-imex\n"
			       "\n"
			       "   \t\n"
			       "SERVER_PORT = 6000   # not the default\r\n"
			       "  HEARTBEAT_INTERVAL_MS=250\n"
			       "PEER_TIMEOUT_MS\t=\t500\n"
			       "IMEX_AUTH_SECRET_FILE=k\n"
			       "IMEX_NODE_CONFIG_FILE= nodes with spaces.cfg "),
			 0);
	ck_assert_str_eq(cfg.node_file, "nodes with spaces.cfg");
	ck_assert_uint_eq(cfg.node_file_line, 8);
	ck_assert_uint_eq(cfg.port, 6000);
	ck_assert_uint_eq(cfg.heartbeat_ms, 250);
	ck_assert_uint_eq(cfg.peer_timeout_ms, 500);
	imex_config_free(&cfg);
}
END_TEST

START_TEST(limits_accepted)
{
	struct imex_config cfg;

	ck_assert_int_eq(parse(&cfg, "IMEX_NODE_CONFIG_FILE=n\nIMEX_AUTH_SECRET_FILE=k\nSERVER_PORT=1\n"
			       "HEARTBEAT_INTERVAL_MS=10\nPEER_TIMEOUT_MS=20\n"), 0);
	ck_assert_uint_eq(cfg.port, 1);
	ck_assert_uint_eq(cfg.heartbeat_ms, 10);
	ck_assert_uint_eq(cfg.peer_timeout_ms, 20);
	imex_config_free(&cfg);
	ck_assert_int_eq(parse(&cfg, "IMEX_NODE_CONFIG_FILE=n\nIMEX_AUTH_SECRET_FILE=k\nSERVER_PORT=65535\n"
			       "HEARTBEAT_INTERVAL_MS=60000\n"
			       "PEER_TIMEOUT_MS=3600000\n"), 0);
	ck_assert_uint_eq(cfg.port, 65535);
	ck_assert_uint_eq(cfg.heartbeat_ms, 60000);
	ck_assert_uint_eq(cfg.peer_timeout_ms, 3600000);
	imex_config_free(&cfg);
	/* Leading zeros are still decimal. */
	ck_assert_int_eq(parse(&cfg, "IMEX_NODE_CONFIG_FILE=n\nIMEX_AUTH_SECRET_FILE=k\nSERVER_PORT=010\n"), 0);
	ck_assert_uint_eq(cfg.port, 10);
	imex_config_free(&cfg);
}
END_TEST

START_TEST(node_file_required)
{
	refused("", "c.cfg: IMEX_NODE_CONFIG_FILE is not set");
	refused("# nothing\nSERVER_PORT=1\n",
		"c.cfg: IMEX_NODE_CONFIG_FILE is not set");
	refused("IMEX_NODE_CONFIG_FILE=\n",
		"c.cfg:1: IMEX_NODE_CONFIG_FILE has no value");
	refused("IMEX_NODE_CONFIG_FILE=  # a comment only\n",
		"c.cfg:1: IMEX_NODE_CONFIG_FILE has no value");
	/* No daemon runs without the domain's secret. */
	refused("IMEX_NODE_CONFIG_FILE=n\n",
		"c.cfg: IMEX_AUTH_SECRET_FILE is not set: every daemon of a domain needs the domain's secret");
	refused("IMEX_NODE_CONFIG_FILE=n\nIMEX_AUTH_SECRET_FILE=\n",
		"c.cfg:2: IMEX_AUTH_SECRET_FILE has no value");
}
END_TEST

START_TEST(bad_lines)
{
	refused("IMEX_NODE_CONFIG_FILE=n\nFOO=1\n", "c.cfg:2: unknown key 'FOO'");
	/* Keys are case-sensitive, as nvidia-imex's. */
	refused("server_port=1\n", "c.cfg:1: unknown key 'server_port'");
	refused("\n\nSERVER_PORT\n", "c.cfg:3: expected KEY=VALUE, not 'SERVER_PORT'");
	refused("=5\n", "c.cfg:1: expected KEY=VALUE, not '=5'");
	refused("  = 5\n", "c.cfg:1: expected KEY=VALUE, not '= 5'");
	refused("SERVER PORT=5\n", "c.cfg:1: expected KEY=VALUE, not 'SERVER PORT'");
	refused("SERVER_PORT=5\nSERVER_PORT=6\n",
		"c.cfg:2: SERVER_PORT set again (first on line 1)");
	refused("IMEX_NODE_CONFIG_FILE=a\n# x\nIMEX_NODE_CONFIG_FILE=b\n",
		"c.cfg:3: IMEX_NODE_CONFIG_FILE set again (first on line 1)");
	/* The first bad line is the one reported. */
	refused("BAR=1\nFOO=1\n", "c.cfg:1: unknown key 'BAR'");
}
END_TEST

START_TEST(bad_numbers)
{
	static const char *const bad[] = {
		"0", "65536", "-1", "+5", "12ab", "1e3", "0x10", "1 2",
		"99999999999999999999999", "5.0",
	};
	char text[128], msg[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "IMEX_NODE_CONFIG_FILE=n\nSERVER_PORT=%s\n", bad[i]);
		snprintf(msg, sizeof(msg),
			 "c.cfg:2: SERVER_PORT: '%s' is not a number from 1 to 65535",
			 bad[i]);
		refused(text, msg);
	}
	refused("HEARTBEAT_INTERVAL_MS=9\n",
		"c.cfg:1: HEARTBEAT_INTERVAL_MS: '9' is not a number from 10 to 60000");
	refused("HEARTBEAT_INTERVAL_MS=60001\n",
		"c.cfg:1: HEARTBEAT_INTERVAL_MS: '60001' is not a number from 10 to 60000");
	refused("PEER_TIMEOUT_MS=0\n",
		"c.cfg:1: PEER_TIMEOUT_MS: '0' is not a number from 1 to 3600000");
	refused("PEER_TIMEOUT_MS=3600001\n",
		"c.cfg:1: PEER_TIMEOUT_MS: '3600001' is not a number from 1 to 3600000");
	refused("SERVER_PORT=\n", "c.cfg:1: SERVER_PORT has no value");
}
END_TEST

/* A peer is lost after missing at least two heartbeats. */
START_TEST(timeout_against_heartbeat)
{
	refused("IMEX_NODE_CONFIG_FILE=n\nHEARTBEAT_INTERVAL_MS=500\nPEER_TIMEOUT_MS=999\n",
		"c.cfg:3: PEER_TIMEOUT_MS (999) must be at least twice HEARTBEAT_INTERVAL_MS (500)");
	/* Without PEER_TIMEOUT_MS, the heartbeat's line is the one at fault. */
	refused("IMEX_NODE_CONFIG_FILE=n\n\nHEARTBEAT_INTERVAL_MS=6000\n",
		"c.cfg:3: PEER_TIMEOUT_MS (10000) must be at least twice HEARTBEAT_INTERVAL_MS (6000)");
	refused("PEER_TIMEOUT_MS=900\nIMEX_NODE_CONFIG_FILE=n\n",
		"c.cfg:1: PEER_TIMEOUT_MS (900) must be at least twice HEARTBEAT_INTERVAL_MS (500)");
}
END_TEST

START_TEST(node_list)
{
	struct imex_config cfg = { 0 };

	ck_assert_int_eq(parse_nodes(&cfg,
				     "# the domain\n"
				     "10.0.0.3 2\n"
				     "\n"
				     "  10.0.0.1\t 0  # the head node\r\n"
				     "192.168.100.2 65535"), 0);
	ck_assert_uint_eq(cfg.n_nodes, 3);
	ck_assert_str_eq(addr(&cfg, 0), "10.0.0.3");
	ck_assert_str_eq(addr(&cfg, 1), "10.0.0.1");
	ck_assert_str_eq(addr(&cfg, 2), "192.168.100.2");
	ck_assert_uint_eq(cfg.node_ids[0], 2);
	ck_assert_uint_eq(cfg.node_ids[1], 0);
	ck_assert_uint_eq(cfg.node_ids[2], 65535);
	ck_assert_int_eq(imex_config_find(&cfg, cfg.nodes[2]), 2);
	ck_assert_int_eq(imex_config_find(&cfg, (struct in_addr){ htonl(0x0a000002) }), -1);
	ck_assert_int_eq(imex_config_find_node(&cfg, 0), 1);
	ck_assert_int_eq(imex_config_find_node(&cfg, 1), -1);
	imex_config_free(&cfg);
}
END_TEST

START_TEST(node_list_refused)
{
	nodes_refused("10.0.0.1 0\n10.0.0.256 1\n",
		      "n.cfg:2: '10.0.0.256' is not an IPv4 address");
	nodes_refused("10.0.0 0\n", "n.cfg:1: '10.0.0' is not an IPv4 address");
	nodes_refused("::1 0\n", "n.cfg:1: '::1' is not an IPv4 address");
	nodes_refused("node1.example 0\n",
		      "n.cfg:1: 'node1.example' is not an IPv4 address");
	nodes_refused("10.0.0.1 10.0.0.2\n",
		      "n.cfg:1: '10.0.0.2' is not a node index from 0 to 65535");
	nodes_refused("10.0.0.1:50000 1\n",
		      "n.cfg:1: '10.0.0.1:50000' is not an IPv4 address");
	nodes_refused("10.0.0.1 0\n# x\n10.0.0.1 1\n",
		      "n.cfg:3: 10.0.0.1 listed again (first on line 1)");
	nodes_refused("0.0.0.0 0\n", "n.cfg:1: 0.0.0.0 cannot be a node's address");
	nodes_refused("255.255.255.255 0\n",
		      "n.cfg:1: 255.255.255.255 cannot be a node's address");
	nodes_refused("224.0.0.1 0\n", "n.cfg:1: 224.0.0.1 cannot be a node's address");
	/* Each address with its node's index, each index once. */
	nodes_refused("10.0.0.1\n",
		      "n.cfg:1: 10.0.0.1 has no node index (a line is ADDRESS NODE)");
	nodes_refused("10.0.0.1 -1\n",
		      "n.cfg:1: '-1' is not a node index from 0 to 65535");
	nodes_refused("10.0.0.1 65536\n",
		      "n.cfg:1: '65536' is not a node index from 0 to 65535");
	nodes_refused("10.0.0.1 1 2\n", "n.cfg:1: expected ADDRESS NODE, not '10.0.0.1 1 2'");
	nodes_refused("10.0.0.1 4\n10.0.0.2 4\n",
		      "n.cfg:2: node 4 listed again (first on line 1)");
	nodes_refused("", "n.cfg: no node address");
	nodes_refused("# nobody\n\n", "n.cfg: no node address");
}
END_TEST

START_TEST(node_list_too_long)
{
	struct imex_config cfg = { 0 };
	size_t i, len = 0, cap = 20 * (IMEX_MAX_NODES + 1);
	char *text = malloc(2 * cap), msg[128];

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < IMEX_MAX_NODES; i++)
		len += snprintf(text + len, cap - len, "10.1.%zu.%zu %zu\n",
				i / 256, i % 256, i);
	ck_assert_int_eq(parse_nodes(&cfg, text), 0);
	ck_assert_uint_eq(cfg.n_nodes, IMEX_MAX_NODES);
	ck_assert_str_eq(addr(&cfg, IMEX_MAX_NODES - 1), "10.1.3.255");
	imex_config_free(&cfg);
	snprintf(text + len, 2 * cap - len, "10.2.0.0 5000\n");
	snprintf(msg, sizeof(msg), "n.cfg:%d: more than %d nodes",
		 IMEX_MAX_NODES + 1, IMEX_MAX_NODES);
	nodes_refused(text, msg);
	free(text);
}
END_TEST

#define DIR_TEMPLATE "/tmp/test_imex_config.XXXXXX"
static char dir[] = DIR_TEMPLATE;

static void make_dir(void)
{
	strcpy(dir, DIR_TEMPLATE);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

#define KEY_HEX "00112233445566778899aabbccddeeff" \
		"0123456789abcdefFEDCBA9876543210"

/* A key file @name of @text, mode @mode. */
static void write_key(const char *name, const char *text, mode_t mode)
{
	char path[256];

	write_file(name, text);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* imex_secret_load() of key file @name, owned by root or by @owner. */
static int load_key(struct imex_secret *secret, const char *name,
		    uid_t owner)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err[0] = '\0';
	return imex_secret_load(secret, path, owner, err, sizeof(err));
}

/* @text in key file @name, mode @mode, is refused with "PATH: @msg". */
static void key_refused(const char *text, mode_t mode, const char *msg)
{
	struct imex_secret secret;
	char want[512];

	write_key("k", text, mode);
	ck_assert_int_eq(load_key(&secret, "k", geteuid()), -1);
	snprintf(want, sizeof(want), "%s/k: %s", dir, msg);
	ck_assert_str_eq(err, want);
	ck_assert_uint_eq(secret.len, 0);
}

static int load(struct imex_config *cfg, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err[0] = '\0';
	return imex_config_load(cfg, path, err, sizeof(err));
}

/* A relative node list is found beside the config file, whatever the cwd. */
START_TEST(load_relative)
{
	struct imex_config cfg;
	char want[256];

	make_dir();
	ck_assert_int_eq(mkdir(strcat(strcpy(want, dir), "/sub"), 0755), 0);
	write_file("imex.cfg", "IMEX_NODE_CONFIG_FILE=sub/nodes.cfg\nSERVER_PORT=7\n"
		   "IMEX_AUTH_SECRET_FILE=sub/key\n");
	write_file("sub/nodes.cfg", "10.9.0.1 0\n10.9.0.2 1\n");
	write_key("sub/key", KEY_HEX "\n", 0600);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_msg(load(&cfg, "imex.cfg") == 0, "%s", err);
	snprintf(want, sizeof(want), "%s/sub/nodes.cfg", dir);
	ck_assert_str_eq(cfg.node_file, want);
	ck_assert_uint_eq(cfg.port, 7);
	ck_assert_uint_eq(cfg.n_nodes, 2);
	ck_assert_str_eq(addr(&cfg, 1), "10.9.0.2");
	snprintf(want, sizeof(want), "%s/sub/key", dir);
	ck_assert_str_eq(cfg.secret_file, want);
	ck_assert_uint_eq(cfg.secret.len, 32);
	ck_assert_uint_eq(cfg.secret.bytes[31], 0x10);
	imex_config_free(&cfg);
	ck_assert_uint_eq(cfg.secret.len, 0);
	remove_dir();
}
END_TEST

START_TEST(load_absolute)
{
	struct imex_config cfg;
	char text[256];

	make_dir();
	snprintf(text, sizeof(text), "IMEX_NODE_CONFIG_FILE=%s/n\n"
		 "IMEX_AUTH_SECRET_FILE=%s/k\n", dir, dir);
	write_file("imex.cfg", text);
	write_file("n", "127.0.0.1 0\n");
	write_key("k", KEY_HEX, 0400);
	ck_assert_msg(load(&cfg, "imex.cfg") == 0, "%s", err);
	ck_assert_uint_eq(cfg.n_nodes, 1);
	imex_config_free(&cfg);
	remove_dir();
}
END_TEST

START_TEST(load_errors)
{
	struct imex_config cfg;
	char want[512];

	make_dir();
	ck_assert_int_eq(load(&cfg, "missing.cfg"), -1);
	snprintf(want, sizeof(want), "%s/missing.cfg: No such file or directory", dir);
	ck_assert_str_eq(err, want);
	ck_assert_ptr_null(cfg.node_file);

	/* The node list's problems name the config line that names it. */
	write_file("imex.cfg", "# x\nIMEX_NODE_CONFIG_FILE=gone.cfg\nIMEX_AUTH_SECRET_FILE=k\n");
	ck_assert_int_eq(load(&cfg, "imex.cfg"), -1);
	snprintf(want, sizeof(want),
		 "%s/imex.cfg:2: IMEX_NODE_CONFIG_FILE: %s/gone.cfg: No such file or directory",
		 dir, dir);
	ck_assert_str_eq(err, want);
	ck_assert_ptr_null(cfg.node_file);

	/* A directory opens, and fails when read. */
	write_file("imex.cfg", "IMEX_NODE_CONFIG_FILE=.\nIMEX_AUTH_SECRET_FILE=k\n");
	ck_assert_int_eq(load(&cfg, "imex.cfg"), -1);
	snprintf(want, sizeof(want), "%s/.: read error: Is a directory", dir);
	ck_assert_str_eq(err, want);

	/* The list's own errors name the list. */
	write_file("imex.cfg", "IMEX_NODE_CONFIG_FILE=n.cfg\nIMEX_AUTH_SECRET_FILE=k\n");
	write_file("n.cfg", "10.0.0.1 0\nbogus 1\n");
	ck_assert_int_eq(load(&cfg, "imex.cfg"), -1);
	snprintf(want, sizeof(want), "%s/n.cfg:2: 'bogus' is not an IPv4 address", dir);
	ck_assert_str_eq(err, want);
	ck_assert_ptr_null(cfg.nodes);

	write_file("imex.cfg", "IMEX_NODE_CONFIG_FILE=n.cfg\nBOGUS=1\n");
	ck_assert_int_eq(load(&cfg, "imex.cfg"), -1);
	snprintf(want, sizeof(want), "%s/imex.cfg:2: unknown key 'BOGUS'", dir);
	ck_assert_str_eq(err, want);

	/* The key file's, the key file. */
	write_file("imex.cfg", "IMEX_NODE_CONFIG_FILE=n.cfg\nIMEX_AUTH_SECRET_FILE=k\n");
	write_file("n.cfg", "10.0.0.1 0\n");
	ck_assert_int_eq(load(&cfg, "imex.cfg"), -1);
	snprintf(want, sizeof(want), "%s/k: No such file or directory", dir);
	ck_assert_str_eq(err, want);
	write_key("k", KEY_HEX, 0644);
	ck_assert_int_eq(load(&cfg, "imex.cfg"), -1);
	ck_assert_ptr_null(cfg.nodes);
	ck_assert_uint_eq(cfg.secret.len, 0);
	remove_dir();
}
END_TEST

START_TEST(key_file)
{
	struct imex_secret secret;

	make_dir();
	/* Hex, either case, in lines and blanks. */
	write_key("k", "  0011 2233445566778899aabbccddeeff\n"
		  "0123456789ABCDEF fedcba9876543210\n\n", 0600);
	ck_assert_msg(load_key(&secret, "k", geteuid()) == 0, "%s", err);
	ck_assert_uint_eq(secret.len, 32);
	ck_assert_uint_eq(secret.bytes[0], 0x00);
	ck_assert_uint_eq(secret.bytes[1], 0x11);
	ck_assert_uint_eq(secret.bytes[23], 0xef);
	ck_assert_uint_eq(secret.bytes[24], 0xfe);
	/* Read-only for its owner is fine too. */
	write_key("k", KEY_HEX KEY_HEX, 0400);
	ck_assert_msg(load_key(&secret, "k", geteuid()) == 0, "%s", err);
	ck_assert_uint_eq(secret.len, 64);
	remove_dir();
}
END_TEST

START_TEST(key_file_refused)
{
	char msg[512], path[64];
	struct imex_secret secret;

	make_dir();
	snprintf(path, sizeof(path), "%s/k", dir);
	/* Anyone but its owner may read or write it. */
	snprintf(msg, sizeof(msg),
		 "mode 0640: group or others may read or write the domain's secret: refused (chmod 600 '%s')",
		 path);
	key_refused(KEY_HEX, 0640, msg);
	snprintf(msg, sizeof(msg),
		 "mode 0604: group or others may read or write the domain's secret: refused (chmod 600 '%s')",
		 path);
	key_refused(KEY_HEX, 0604, msg);
	snprintf(msg, sizeof(msg),
		 "mode 0602: group or others may read or write the domain's secret: refused (chmod 600 '%s')",
		 path);
	key_refused(KEY_HEX, 0602, msg);
	/* What it holds. */
	key_refused("", 0600,
		    "a secret of 0 bytes, fewer than 32 (make one with: openssl rand -hex 32)");
	key_refused("00112233445566778899aabbccddeeff0123456789abcdeffedcba98765432", 0600,
		    "a secret of 31 bytes, fewer than 32 (make one with: openssl rand -hex 32)");
	key_refused(KEY_HEX "0", 0600, "an odd number of hex digits");
	key_refused("password1234567890password1234567890password1234567890abcdefgh", 0600,
		    "not a secret in hex digits (make one with: openssl rand -hex 32)");
	/* Not the file itself. */
	write_key("target", KEY_HEX, 0600);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("target", path), 0);
	ck_assert_int_eq(load_key(&secret, "k", geteuid()), -1);
	snprintf(msg, sizeof(msg), "%s: a symbolic link: the key file must be the file itself",
		 path);
	ck_assert_str_eq(err, msg);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(load_key(&secret, "k", geteuid()), -1);
	snprintf(msg, sizeof(msg), "%s: not a regular file", path);
	ck_assert_str_eq(err, msg);
	remove_dir();
}
END_TEST

/* Root's or the daemon's user's, no one else's. */
START_TEST(key_file_owner)
{
	struct imex_secret secret;
	char msg[512], path[64];
	uid_t me = geteuid();

	make_dir();
	snprintf(path, sizeof(path), "%s/k", dir);
	write_key("k", KEY_HEX, 0600);
	if (me == 0) {
		/* Root runs the daemon: another user's key file is refused. */
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(load_key(&secret, "k", 0), -1);
		snprintf(msg, sizeof(msg),
			 "%s: owned by uid 65534, not by root: refused (chown root '%s')",
			 path, path);
		ck_assert_str_eq(err, msg);
		/* Unless the daemon runs as that user. */
		ck_assert_msg(load_key(&secret, "k", 65534) == 0, "%s", err);
	} else {
		ck_assert_int_eq(load_key(&secret, "k", me + 1), -1);
		snprintf(msg, sizeof(msg),
			 "%s: owned by uid %u, neither root nor this daemon's user (uid %u): refused",
			 path, (unsigned int)me, (unsigned int)me + 1);
		ck_assert_str_eq(err, msg);
		ck_assert_msg(load_key(&secret, "k", me) == 0, "%s", err);
	}
	remove_dir();
}
END_TEST

/* A message longer than the buffer is cut, not overrun. */
START_TEST(error_truncated)
{
	struct imex_config cfg;
	char small[16];
	FILE *f = fmemopen("FOO=1\n", 6, "r");

	ck_assert_int_eq(imex_config_parse(&cfg, f, "a-long-file-name.cfg",
					   small, sizeof(small)), -1);
	ck_assert_str_eq(small, "a-long-file-nam");
	fclose(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cumc-imex config");
	TCase *tc = tcase_create("config file");
	TCase *nodes = tcase_create("node list");
	TCase *files = tcase_create("files");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, every_key);
	tcase_add_test(tc, limits_accepted);
	tcase_add_test(tc, node_file_required);
	tcase_add_test(tc, bad_lines);
	tcase_add_test(tc, bad_numbers);
	tcase_add_test(tc, timeout_against_heartbeat);
	tcase_add_test(tc, error_truncated);
	suite_add_tcase(s, tc);
	tcase_add_test(nodes, node_list);
	tcase_add_test(nodes, node_list_refused);
	tcase_add_test(nodes, node_list_too_long);
	suite_add_tcase(s, nodes);
	tcase_add_test(files, load_relative);
	tcase_add_test(files, load_absolute);
	tcase_add_test(files, load_errors);
	tcase_add_test(files, key_file);
	tcase_add_test(files, key_file_refused);
	tcase_add_test(files, key_file_owner);
	suite_add_tcase(s, files);
	return check_run(s);
}
