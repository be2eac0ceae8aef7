// SPDX-License-Identifier: MIT
/*
 * cumcctl batch: the ioctl UAPI, one operation a line, for tests in shell.
 *
 * Reads lines from standard input; each is an operation on one client of
 * /dev/cumc, optionally assigning its result to a name ("mem = create 0 2M")
 * that later lines use as $mem. A line starting with !ERRNO expects that
 * error ("!EEXIST bind $mc 0 0 $mem 0 2M"). Every line prints one result:
 * "ok LINE: ..." or "error LINE: ERRNO". Exit status: 0 when every line
 * did what it expected, 2 when one did not, 1 for a line that does not
 * parse.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "cumcctl.h"

#define MAX_ARGS 8
#define MAX_VARS 64

struct var {
	char name[32];
	uint64_t value;
};

static struct var vars[MAX_VARS];
static unsigned int num_vars;
static int cumc_fd = -1;

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EINVAL", EINVAL }, { "ENOENT", ENOENT }, { "EEXIST", EEXIST },
	{ "ENXIO", ENXIO }, { "EBUSY", EBUSY }, { "ENOSPC", ENOSPC },
	{ "ENODEV", ENODEV }, { "EPERM", EPERM }, { "EACCES", EACCES },
	{ "EOPNOTSUPP", EOPNOTSUPP }, { "EBADF", EBADF }, { "EBADFD", EBADFD },
	{ "EIO", EIO }, { "ETIMEDOUT", ETIMEDOUT }, { "E2BIG", E2BIG },
	{ "ENOMEM", ENOMEM }, { "EFAULT", EFAULT }, { "EINTR", EINTR },
};

static const char *errno_name(int err)
{
	size_t i;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return "E?";
}

static int errno_value(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].err;
	return 0;
}

static struct var *var_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < num_vars; i++)
		if (!strcmp(vars[i].name, name))
			return &vars[i];
	return NULL;
}

static int var_set(const char *name, uint64_t value)
{
	struct var *v = var_find(name);

	if (!v) {
		if (num_vars == MAX_VARS || strlen(name) >= sizeof(v->name))
			return -1;
		v = &vars[num_vars++];
		strcpy(v->name, name);
	}
	v->value = value;
	return 0;
}

/* A number (K, M, G suffixes), or $name. */
static int parse_u64(const char *s, uint64_t *out)
{
	struct var *v;
	char *end;

	if (s[0] == '$') {
		v = var_find(s + 1);
		if (!v)
			return -1;
		*out = v->value;
		return 0;
	}
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': *out <<= 10; end++; break;
	case 'M': *out <<= 20; end++; break;
	case 'G': *out <<= 30; end++; break;
	}
	return *end ? -1 : 0;
}

static uint32_t parse_types(const char *s)
{
	uint32_t types = 0;

	if (strstr(s, "fd"))
		types |= CUMC_HANDLE_FD;
	if (strstr(s, "fabric"))
		types |= CUMC_HANDLE_FABRIC;
	return types;
}

static int parse_access(const char *s, uint32_t *access)
{
	if (!strcmp(s, "none"))
		*access = CUMC_ACCESS_NONE;
	else if (!strcmp(s, "read"))
		*access = CUMC_ACCESS_READ;
	else if (!strcmp(s, "rw"))
		*access = CUMC_ACCESS_READWRITE;
	else
		return -1;
	return 0;
}

static int do_ioctl(unsigned long request, void *arg)
{
	return ioctl(cumc_fd, request, arg) ? -errno : 0;
}

/*
 * One operation: @a are its arguments as numbers, @s as text. Returns 0 or
 * -errno, with *@result what a name would be assigned.
 */
static int run_op(const char *op, int n, const uint64_t *a, char **s,
		  uint64_t *result)
{
	if (!strcmp(op, "create") && n >= 2) {
		struct cumc_mem_create c = {
			.size = sizeof(c), .device = a[0], .length = a[1],
			.handle_types = n > 2 ? parse_types(s[2]) : 0,
		};
		int ret = do_ioctl(CUMC_MEM_CREATE, &c);

		*result = c.out_handle;
		return ret;
	}
	if (!strcmp(op, "release") && n == 1) {
		struct cumc_release r = { .size = sizeof(r), .handle = a[0] };

		return do_ioctl(CUMC_RELEASE, &r);
	}
	if (!strcmp(op, "reserve") && n >= 1) {
		struct cumc_va_reserve r = {
			.size = sizeof(r), .length = a[0],
			.alignment = n > 1 ? a[1] : 0,
		};
		int ret = do_ioctl(CUMC_VA_RESERVE, &r);

		*result = r.out_addr;
		return ret;
	}
	if (!strcmp(op, "free") && n == 2) {
		struct cumc_va_free f = {
			.size = sizeof(f), .addr = a[0], .length = a[1],
		};

		return do_ioctl(CUMC_VA_FREE, &f);
	}
	if (!strcmp(op, "map") && n == 3) {
		struct cumc_map m = {
			.size = sizeof(m), .addr = a[0], .length = a[1],
			.handle = a[2],
		};

		return do_ioctl(CUMC_MAP, &m);
	}
	if (!strcmp(op, "unmap") && n == 2) {
		struct cumc_unmap u = {
			.size = sizeof(u), .addr = a[0], .length = a[1],
		};

		return do_ioctl(CUMC_UNMAP, &u);
	}
	if (!strcmp(op, "access") && n == 4) {
		struct cumc_access_desc d = { .device = a[2] };
		struct cumc_set_access sa = {
			.size = sizeof(sa), .addr = a[0], .length = a[1],
			.descs = (uintptr_t)&d, .num_descs = 1,
		};

		if (parse_access(s[3], &d.access))
			return -EINVAL;
		return do_ioctl(CUMC_SET_ACCESS, &sa);
	}
	if (!strcmp(op, "export") && n == 1) {
		struct cumc_export_fd e = { .size = sizeof(e), .handle = a[0] };
		int ret = do_ioctl(CUMC_EXPORT_FD, &e);

		*result = e.out_fd;
		return ret;
	}
	if (!strcmp(op, "import") && n == 1) {
		struct cumc_import_fd i = { .size = sizeof(i), .fd = a[0] };
		int ret = do_ioctl(CUMC_IMPORT_FD, &i);

		*result = i.out_handle;
		return ret;
	}
	if (!strcmp(op, "mc-create") && n >= 2) {
		struct cumc_mc_create c = {
			.size = sizeof(c), .num_devices = a[0], .length = a[1],
			.handle_types = n > 2 ? parse_types(s[2]) : 0,
		};
		int ret = do_ioctl(CUMC_MC_CREATE, &c);

		*result = c.out_handle;
		return ret;
	}
	if (!strcmp(op, "mc-add") && n == 2) {
		struct cumc_mc_add_device d = {
			.size = sizeof(d), .handle = a[0], .device = a[1],
		};

		return do_ioctl(CUMC_MC_ADD_DEVICE, &d);
	}
	if (!strcmp(op, "bind") && n == 6) {
		struct cumc_mc_bind b = {
			.size = sizeof(b), .handle = a[0], .device = a[1],
			.mc_offset = a[2], .mem = a[3], .mem_offset = a[4],
			.length = a[5],
		};

		return do_ioctl(CUMC_MC_BIND_MEM, &b);
	}
	if (!strcmp(op, "unbind") && n == 4) {
		struct cumc_mc_unbind u = {
			.size = sizeof(u), .handle = a[0], .device = a[1],
			.mc_offset = a[2], .length = a[3],
		};

		return do_ioctl(CUMC_MC_UNBIND, &u);
	}
	if (!strcmp(op, "state") && n == 1) {
		struct cumc_mc_info i = { .size = sizeof(i), .handle = a[0] };
		int ret = do_ioctl(CUMC_MC_INFO, &i);

		*result = i.out_state;
		return ret;
	}
	if (!strcmp(op, "poke") && n == 2) {
		*(volatile uint32_t *)(uintptr_t)a[0] = (uint32_t)a[1];
		return 0;
	}
	if (!strcmp(op, "peek") && n == 1) {
		*result = *(volatile uint32_t *)(uintptr_t)a[0];
		return 0;
	}
	return -EUCLEAN;
}

static const char batch_usage[] =
	"usage: cumcctl batch < SCRIPT\n"
	"One operation a line on a client of /dev/cumc; [NAME =] OP ARGS; $NAME\n"
	"uses a result; a leading !ERRNO expects that error; # starts a comment.\n"
	"Numbers take K, M, G suffixes. Operations (results in brackets):\n"
	"  create DEV LEN [fd,fabric] [handle]   release H\n"
	"  reserve LEN [ALIGN] [addr]   free ADDR LEN\n"
	"  map ADDR LEN H   unmap ADDR LEN   access ADDR LEN DEV none|read|rw\n"
	"  export H [fd]   import FD [handle]\n"
	"  mc-create NDEV LEN [fd,fabric] [handle]   mc-add MC DEV\n"
	"  bind MC DEV MCOFF MEM MEMOFF LEN   unbind MC DEV MCOFF LEN\n"
	"  state MC [0 forming, 1 ready, 2 failed]\n"
	"  poke ADDR VALUE   peek ADDR [value]: 32-bit CPU access\n"
	"Exit: 0 every line as expected, 1 a line that does not parse, 2 not.\n";

/* Run one line; 0 as expected, 1 unparsable, 2 not as expected. */
static int run_line(unsigned int lineno, char *line)
{
	char *tok[MAX_ARGS + 4], *assign = NULL, *save, *t;
	int n = 0, expect = 0, ret, i, k;
	uint64_t args[MAX_ARGS], result = 0;

	for (t = strtok_r(line, " \t\n", &save); t && n < MAX_ARGS + 4;
	     t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	if (!n || tok[0][0] == '#')
		return 0;
	i = 0;
	if (tok[0][0] == '!') {
		expect = errno_value(tok[0] + 1);
		if (!expect)
			goto bad;
		i++;
	}
	if (n - i >= 3 && !strcmp(tok[i + 1], "=")) {
		assign = tok[i];
		i += 2;
	}
	if (i >= n || n - i - 1 > MAX_ARGS)
		goto bad;
	/* Words that are no number are the operations' keywords (types, access). */
	for (k = i + 1; k < n; k++)
		if (parse_u64(tok[k], &args[k - i - 1])) {
			if (tok[k][0] == '$')
				goto bad;
			args[k - i - 1] = 0;
		}
	ret = run_op(tok[i], n - i - 1, args, tok + i + 1, &result);
	if (ret == -EUCLEAN)
		goto bad;
	if (ret) {
		printf("error %u: %s %s\n", lineno, tok[i], errno_name(-ret));
		return -ret == expect ? 0 : 2;
	}
	if (assign && var_set(assign, result))
		goto bad;
	if (assign)
		printf("ok %u: %s = 0x%" PRIx64 "\n", lineno, assign, result);
	else
		printf("ok %u: %s\n", lineno, tok[i]);
	return expect ? 2 : 0;

bad:
	fprintf(stderr, "cumcctl batch: line %u does not parse\n", lineno);
	return 1;
}

int cumcctl_batch(int argc, char **argv)
{
	char line[512];
	unsigned int lineno = 0;
	int worst = 0, ret;

	if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		fputs(batch_usage, stdout);
		return 0;
	}
	if (argc) {
		fputs(batch_usage, stderr);
		return 1;
	}
	cumc_fd = open("/dev/cumc", O_RDWR | O_CLOEXEC);
	if (cumc_fd < 0) {
		fprintf(stderr, "cumcctl batch: /dev/cumc: %s\n", strerror(errno));
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		ret = run_line(++lineno, line);
		if (ret == 1)
			return 1;
		if (ret > worst)
			worst = ret;
	}
	close(cumc_fd);
	return worst;
}
