// SPDX-License-Identifier: MIT
/*
 * The PTX corpus: runs the cases cases.txt names (gen.py writes it) and
 * prints one line per case, its name and the elements of its result in
 * hex; or, with --check, compares those lines with answers recorded on
 * NVIDIA's hardware (answers/, by record.sh), bit for bit, .approx cases
 * within their bound (ulp of the hardware's answer, or the PTX ISA's
 * error bound around the exact value), and prints TAP.  Cases
 * known-differences.txt names may differ: the check says so and passes.
 *
 *   corpus [-C DIR] [CASE...]
 *   corpus --check [-C DIR] [ANSWERS]
 *
 * Built twice: with run_cuda.c to record, with run_cumc.c to check (as
 * make check's test_ptx_corpus, built with CORPUS_CHECK: --check is its
 * default, --print prints cumc's lines instead).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strverscmp, asprintf */
#endif
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

#ifndef CORPUS_DIR
#define CORPUS_DIR "conformance/ptx"
#endif

struct set {
	char name[32];
	unsigned int bytes, n;
	uint64_t *v;
};

struct kase {
	char name[64], file[64], kernel[64], set[32];
	unsigned int grid[3], block[3];
	uint32_t total;
	size_t outn;
	unsigned int bytes, arity, ulp;
	const struct approx *fn;	/* checked to the ISA's bound */
};

/*
 * The .approx instructions the PTX ISA gives an error bound around the
 * exact value, by the name cases.txt gives them in its bound column:
 * ulp (of f32) or relative error everywhere; absolute error on [lo, hi]
 * and relative error elsewhere (lg2); absolute error on [lo, hi] and no
 * bound elsewhere (sin and cos: a result there is checked to the same
 * absolute bound around the sine of the H200's reduced argument).
 */
enum bound_kind { B_ULP, B_REL, B_ABS_REL, B_ABS };

struct approx {
	const char *name;
	double (*fn)(double);
	enum bound_kind kind;
	double e;		/* B_ULP: ulps; else the error is 2^-e */
	double lo, hi;
	double (*far)(double);	/* B_ABS: the value beyond [lo, hi] */
};

static double rsqrt(double x)
{
	return 1.0 / sqrt(x);
}

/*
 * Beyond [-pi, pi], where the ISA bounds sin and cos no more, an H200
 * gives the sine of its reduced argument: x times 1/(2 pi) as an f32,
 * the product rounded toward zero to f32, in turns (so 0 and 1 from
 * 2^23 up).  Its answers on the corpus are within 2^-21.5 of that.
 */
static double h200_turns(double x)
{
	double p = x * (double)(float)(0.5 / M_PI);
	float t = (float)p;

	if (fabs((double)t) > fabs(p))
		t = nextafterf(t, 0.0f);
	return 2 * M_PI * ((double)t - floor(t));
}

static double h200_sin(double x)
{
	return sin(h200_turns(x));
}

static double h200_cos(double x)
{
	return cos(h200_turns(x));
}

static const struct approx approxes[] = {
	{ "ex2", exp2, B_ULP, 2, 0, 0, NULL },
	{ "lg2", log2, B_ABS_REL, 22, 0.5, 2.0, NULL },
	{ "sin", sin, B_ABS, 20.9, -M_PI, M_PI, h200_sin },
	{ "cos", cos, B_ABS, 20.9, -M_PI, M_PI, h200_cos },
	{ "rsqrt", rsqrt, B_REL, 22.9, 0, 0, NULL },
	{ "tanh", tanh, B_REL, 11, 0, 0, NULL },
};

static const char *dir = CORPUS_DIR;
static struct set sets[64];
static unsigned int nsets;
static struct kase *cases;
static unsigned int ncases;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "corpus: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		die("cannot read %s", path);
	fclose(f);
	return buf;
}

static bool dims(const char *s, unsigned int d[3])
{
	return sscanf(s, "%ux%ux%u", &d[0], &d[1], &d[2]) == 3;
}

/* The bound column: ulps of the hardware's answer, or an ISA bound. */
static bool parse_bound(struct kase *k, const char *bound)
{
	size_t i;

	if (bound[0] >= '0' && bound[0] <= '9') {
		k->ulp = strtoul(bound, NULL, 10);
		return k->ulp > 0;
	}
	for (i = 0; i < sizeof(approxes) / sizeof(approxes[0]); i++)
		if (!strcmp(approxes[i].name, bound)) {
			k->fn = &approxes[i];
			return k->bytes == 4 && k->arity == 1;
		}
	return false;
}

static void parse_cases(void)
{
	char *text = slurp("cases.txt"), *save = NULL, *line;

	if (!text)
		die("no %s/cases.txt", dir);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char grid[32], block[32], bound[16] = "", *p, *end;
		struct kase *k;
		struct set *s;
		int used, got;

		if (!strncmp(line, "set ", 4)) {
			if (nsets == sizeof(sets) / sizeof(sets[0]))
				die("too many sets at %s", line);
			s = &sets[nsets++];
			if (sscanf(line, "set %31s %u%n", s->name, &s->bytes,
				   &used) != 2)
				die("bad line: %s", line);
			s->v = calloc(strlen(line), sizeof(uint64_t));
			for (p = line + used;; p = end) {
				uint64_t v = strtoull(p, &end, 16);

				if (end == p)
					break;
				s->v[s->n++] = v;
			}
		} else if (!strncmp(line, "case ", 5)) {
			cases = realloc(cases, (ncases + 1) * sizeof(*cases));
			k = &cases[ncases++];
			memset(k, 0, sizeof(*k));
			got = sscanf(line, "case %63s %63s %63s %31s %31s %31s"
				     " %" SCNu32 " %zu %u %u %15s", k->name,
				     k->file, k->kernel, k->set, grid, block,
				     &k->total, &k->outn, &k->bytes, &k->arity,
				     bound);
			if (got < 10 || !dims(grid, k->grid) ||
			    !dims(block, k->block) ||
			    (got == 11 && !parse_bound(k, bound)))
				die("bad line: %s", line);
		}
	}
	free(text);
}

static const struct set *find_set(const char *name)
{
	unsigned int i;

	for (i = 0; i < nsets; i++)
		if (!strcmp(sets[i].name, name))
			return &sets[i];
	die("no set %s", name);
	return NULL;
}

/* The module texts, read once. */
static const char *ptx_text(const char *file)
{
	static struct { char file[64]; char *text; } texts[32];
	static unsigned int n;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(texts[i].file, file))
			return texts[i].text;
	if (n == sizeof(texts) / sizeof(texts[0]))
		die("too many files at %s", file);
	snprintf(texts[n].file, sizeof(texts[n].file), "%s", file);
	texts[n].text = slurp(file);
	if (!texts[n].text)
		die("no %s", file);
	return texts[n++].text;
}

/* Runs @k: its answer line, malloc'ed, without the newline. */
static char *run_case(const struct kase *k)
{
	const struct set *s = find_set(k->set);
	struct corpus_launch l = {
		.ptx = ptx_text(k->file), .file = k->file, .kernel = k->kernel,
		.n = s->n, .total = k->total, .out_len = k->outn * k->bytes,
	};
	unsigned char *in = calloc(s->n ? s->n : 1, s->bytes);
	unsigned char *out = calloc(1, l.out_len);
	size_t len = strlen(k->name) + 2 * l.out_len + k->outn + 512, i, at;
	char *line = malloc(len), err[400];

	if (!in || !out || !line)
		die("out of memory at %s", k->name);
	for (i = 0; i < s->n; i++)	/* little-endian, as both ends are */
		memcpy(in + i * s->bytes, &s->v[i], s->bytes);
	memcpy(l.grid, k->grid, sizeof(l.grid));
	memcpy(l.block, k->block, sizeof(l.block));
	l.in = in;
	l.in_len = s->n * s->bytes;
	l.out = out;
	at = snprintf(line, len, "%s", k->name);
	if (corpus_run(&l, err, sizeof(err))) {
		snprintf(line + at, len - at, " ERROR %s", err);
		for (i = at; line[i]; i++)
			if (line[i] == '\n')
				line[i] = ' ';
	} else {
		for (i = 0; i < k->outn; i++) {
			uint64_t v = 0;

			memcpy(&v, out + i * k->bytes, k->bytes);
			at += snprintf(line + at, len - at, " %0*" PRIx64,
				       (int)k->bytes * 2, v);
		}
	}
	free(in);
	free(out);
	return line;
}

/* The newest answers file: the last in version order. */
static char *newest_answers(void)
{
	char path[512], *best = NULL;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/answers", dir);
	d = opendir(path);
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".txt"))
			continue;
		if (!best || strverscmp(e->d_name, best) > 0) {
			free(best);
			best = strdup(e->d_name);
		}
	}
	closedir(d);
	if (best) {
		char *full;

		if (asprintf(&full, "answers/%s", best) < 0)
			die("out of memory%s", "");
		free(best);
		best = full;
	}
	return best;
}

/* The line of @text that starts with the word @name, or NULL. */
static const char *find_line(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\n' ||
					     !p[n]))
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Float bits in an order where adjacent floats differ by one. */
static int64_t ordered(uint64_t u, unsigned int bytes)
{
	uint64_t sign = 1ull << (bytes * 8 - 1);

	return u & sign ? -(int64_t)(u & (sign - 1)) : (int64_t)u;
}

static bool is_nan(uint64_t u, unsigned int bytes)
{
	if (bytes == 4)
		return (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu);
	return (u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
	       (u & 0x000fffffffffffffull);
}

static float as_f32(uint64_t u)
{
	uint32_t v = u;
	float f;

	memcpy(&f, &v, 4);
	return f;
}

/*
 * f32 result @r of approximation @a at @x within the ISA's bound: a NaN
 * for a NaN, an infinity exactly for an infinity (.ftz: a subnormal @x
 * is zero, and a zero of either sign stands for a subnormal value), else
 * the error bound around the exact value.
 */
static bool approx_ok(const struct approx *a, bool ftz, float x, float r)
{
	double t, d, ulp, bound = exp2(-a->e);
	int e;

	if (ftz && fpclassify(x) == FP_SUBNORMAL)
		x = copysignf(0.0f, x);
	t = a->fn(x);
	if (isnan(t) || isnan(r))
		return isnan(t) && isnan(r);
	if (isinf(t) || isinf(r))
		return (float)t == r;
	if (ftz && fabs(t) < 0x1p-126 && r == 0.0f)
		return true;
	d = fabs((double)r - t);
	switch (a->kind) {
	case B_ULP:
		frexp(t, &e);
		ulp = fmax(ldexp(1.0, e - 24), 0x1p-149);
		return d <= a->e * ulp;
	case B_REL:
		return d <= bound * fabs(t);
	case B_ABS_REL:
		return x > a->lo && x < a->hi ? d <= bound :
		       d <= bound * fabs(t);
	default:	/* B_ABS */
		return x >= a->lo && x <= a->hi ? d <= bound :
		       fabs((double)r - a->far(x)) <= bound;
	}
}

/*
 * Element @i of @k: @got from cumc, @want from the hardware.  A case with
 * an ISA bound checks both, so that a bound read wrong shows too.
 */
static bool within(const struct kase *k, size_t i, uint64_t got,
		   uint64_t want)
{
	const struct set *s;
	bool ftz;
	float x;
	int64_t d;

	if (k->fn) {
		s = find_set(k->set);
		x = as_f32(s->v[i % s->n]);
		ftz = strstr(k->name, "_ftz_") != NULL;
		return approx_ok(k->fn, ftz, x, as_f32(got)) &&
		       approx_ok(k->fn, ftz, x, as_f32(want));
	}
	if (got == want)
		return true;
	if (!k->ulp)
		return false;
	if (is_nan(got, k->bytes) || is_nan(want, k->bytes))
		return is_nan(got, k->bytes) && is_nan(want, k->bytes);
	d = ordered(got, k->bytes) - ordered(want, k->bytes);
	return (d < 0 ? -d : d) <= (int64_t)k->ulp;
}

/* The operands of element @i of a generated case, for the diagnostics. */
static void operands(const struct kase *k, size_t i, char *buf, size_t len)
{
	const struct set *s = find_set(k->set);
	size_t n = s->n, idx[3], j, at = 0;

	buf[0] = 0;
	if (!k->arity || !n)
		return;
	idx[0] = k->arity == 1 ? i : k->arity == 2 ? i / n : i / (n * n);
	idx[1] = k->arity == 2 ? i % n : i / n % n;
	idx[2] = i % n;
	at += snprintf(buf, len, " of");
	for (j = 0; j < k->arity && at < len; j++)
		at += snprintf(buf + at, len - at, " %" PRIx64,
			       s->v[idx[j] % n]);
}

enum verdict { DIFFERS, MATCHES, KNOWN };

/*
 * One TAP line for @k, from cumc's line @got and the hardware's @want;
 * @known: why cumc differs, when known-differences.txt says it does.
 */
static enum verdict check_case(unsigned int no, const struct kase *k,
			       const char *got, const char *want,
			       const char *known)
{
	char *g = (char *)got + strlen(k->name), *w = (char *)want +
		  strlen(k->name), *ge, *we, ops[200];
	size_t i, bad = 0;
	unsigned int shown = 0;
	char diag[2048] = "";
	size_t at = 0;

	if (strstr(want, " ERROR ") == want + strlen(k->name)) {
		printf("not ok %u - %s: no answer from the hardware:%s\n", no,
		       k->name, w);
		return DIFFERS;
	}
	if (strstr(got, " ERROR ") == got + strlen(k->name)) {
		printf("%s %u - %s: cumc:%s%s%s\n", known ? "ok" : "not ok", no,
		       k->name, g, known ? " # known difference: " : "",
		       known ? known : "");
		return known ? KNOWN : DIFFERS;
	}
	for (i = 0; i < k->outn; i++) {
		uint64_t a = strtoull(g, &ge, 16), b = strtoull(w, &we, 16);

		if (ge == g || we == w) {
			bad = k->outn - i;
			at += snprintf(diag + at, sizeof(diag) - at,
				       "# %s: %zu elements short\n", k->name,
				       bad);
			break;
		}
		g = ge;
		w = we;
		if (within(k, i, a, b))
			continue;
		bad++;
		/* CORPUS_SHOW=1: up to 40 differences a case, not 4. */
		if (shown++ < (getenv("CORPUS_SHOW") ? 40u : 4u) &&
		    at < sizeof(diag) - 200) {
			operands(k, i, ops, sizeof(ops));
			at += snprintf(diag + at, sizeof(diag) - at,
				       "# %s[%zu]%s: cumc %" PRIx64
				       ", hardware %" PRIx64 "\n", k->name, i,
				       ops, a, b);
		}
	}
	if (!bad) {
		printf("ok %u - %s (%zu elements%s)%s\n", no, k->name, k->outn,
		       k->ulp ? ", within the ulp bound" :
		       k->fn ? ", within the ISA's bound" : "",
		       known ? " # matches now: known-differences.txt may "
			       "drop it" : "");
		return MATCHES;
	}
	if (known) {
		printf("ok %u - %s # known difference, %zu of %zu elements: "
		       "%s\n", no, k->name, bad, k->outn, known);
		return KNOWN;
	}
	printf("not ok %u - %s: %zu of %zu elements differ\n%s", no, k->name,
	       bad, k->outn, diag);
	return DIFFERS;
}

static int check(const char *answers)
{
	char *recorded, *differences = slurp("known-differences.txt");
	char *name = answers ? strdup(answers) : newest_answers();
	unsigned int i, failed = 0, known_n = 0;
	enum verdict v;

	if (!name || !(recorded = slurp(name))) {
		printf("1..0 # SKIP no answers recorded in %s/answers\n", dir);
		return 0;
	}
	printf("# cases.txt against %s\n", name);
	printf("1..%u\n", ncases);
	for (i = 0; i < ncases; i++) {
		const struct kase *k = &cases[i];
		const char *want = find_line(recorded, k->name);
		const char *known = differences ? find_line(differences,
							     k->name) : NULL;
		char *got, *wline, *kline = NULL;

		if (!want) {
			printf("not ok %u - %s: no answer recorded\n", i + 1,
			       k->name);
			failed++;
			continue;
		}
		wline = strndup(want, strcspn(want, "\n"));
		if (known) {
			known += strlen(k->name);
			known += strspn(known, " \t");
			kline = strndup(known, strcspn(known, "\n"));
		}
		got = run_case(k);
		v = check_case(i + 1, k, got, wline, kline);
		failed += v == DIFFERS;
		known_n += v == KNOWN;
		free(got);
		free(wline);
		free(kline);
	}
	printf("# %u of %u cases as recorded on the hardware, %u known "
	       "differences, %u differ\n", ncases - failed - known_n, ncases,
	       known_n, failed);
	free(recorded);
	free(differences);
	free(name);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
#ifdef CORPUS_CHECK
	bool do_check = true;
#else
	bool do_check = false;
#endif
	int i = 1, j;
	unsigned int c;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			do_check = true;
		else if (!strcmp(argv[i], "--print"))
			do_check = false;
		else if (!strcmp(argv[i], "-C") && i + 1 < argc)
			dir = argv[++i];
		else
			break;
	}
	parse_cases();
	if (do_check)
		return check(i < argc ? argv[i] : NULL);
	/* the directory is the recording machine's: cases.txt's hash names it */
	printf("# %u cases of cases.txt on %s.\n", ncases, corpus_backend());
	for (c = 0; c < ncases; c++) {
		char *line;

		if (i < argc) {
			for (j = i; j < argc; j++)
				if (!strcmp(argv[j], cases[c].name))
					break;
			if (j == argc)
				continue;
		}
		line = run_case(&cases[c]);
		puts(line);
		fflush(stdout);
		free(line);
	}
	return 0;
}
