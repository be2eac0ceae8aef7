/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' JSON files, through json-c: what bench.h's JSON() is
 * behind, and what bench_va and bench_multimem, which have their own
 * clocks and statistics, write their documents with.
 */
#ifndef CUMC_BENCH_JSON_H
#define CUMC_BENCH_JSON_H

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * A benchmark's JSON, through json-c. Records, one per line: JSON("\"part\":
 * \"%s\", ...", ...) names the table each record belongs to; json-c parses
 * the record (one that is not JSON ends the run: a figure of NaN, a quote in
 * a name) and adds it to bench_rows, the array of the document that
 * bench_doc_begin() made, or when there is none writes it to bench_json, the
 * FILE its main() opened and framed. bench_json_write() writes a document:
 * a key, or an array's element, a line, so that the line tools of
 * bench/plot.sh read the records.
 */
static FILE *bench_json __attribute__((unused));
static const char *bench_json_sep __attribute__((unused)) = "";
static struct json_object *bench_doc __attribute__((unused));
static struct json_object *bench_rows __attribute__((unused));

#define BENCH_JSON_FLAGS (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static inline void bench_record(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline void bench_record(const char *fmt, ...)
{
	struct json_object *rec;
	char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	rec = json_tokener_parse(text);
	if (!rec || !json_object_is_type(rec, json_type_object)) {
		fprintf(stderr, "bench: a record that is not JSON: %s\n", text);
		exit(1);
	}
	free(text);
	if (bench_rows) {
		json_object_array_add(bench_rows, rec);
		return;
	}
	if (!bench_json) {
		fprintf(stderr, "bench: a record before any JSON document\n");
		exit(1);
	}
	fprintf(bench_json, "%s\n    %s", bench_json_sep,
		json_object_to_json_string_ext(rec, BENCH_JSON_FLAGS));
	bench_json_sep = ",";
	json_object_put(rec);
}

/* The members as printf's format writes them, e.g. "\"op\": \"%s\"". */
#define JSON(fmt, ...) bench_record("{ " fmt " }", __VA_ARGS__)

/* A figure, written as @fmt prints it (json-c keeps the text); NaN: null. */
static inline struct json_object *bench_num(const char *fmt, double v)
{
	char text[64];

	if (!isfinite(v))
		return NULL;
	snprintf(text, sizeof(text), fmt, v);
	return json_object_new_double_s(v, text);
}

/* The document: an object; bench_rows, its array under @rows_key. */
static inline struct json_object *bench_doc_begin(const char *rows_key)
{
	bench_doc = json_object_new_object();
	bench_rows = json_object_new_array();
	if (!bench_doc || !bench_rows) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	if (rows_key)
		json_object_object_add(bench_doc, rows_key, bench_rows);
	return bench_doc;
}

/* @v at @indent: an array an element a line, anything else on one line. */
static inline void bench_json_value(FILE *f, struct json_object *v,
				    int indent)
{
	size_t i, n;

	if (!json_object_is_type(v, json_type_array)) {
		fputs(json_object_to_json_string_ext(v, BENCH_JSON_FLAGS), f);
		return;
	}
	n = json_object_array_length(v);
	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n%*s%s", i ? "," : "", indent + 2, "",
			json_object_to_json_string_ext(json_object_array_get_idx(v, i),
						       BENCH_JSON_FLAGS));
	fprintf(f, "\n%*s]", indent, "");
}

/*
 * Write @doc to @path: an object a key a line (its arrays an element a
 * line), an array an element a line. 0, or -1 with errno.
 */
static inline int bench_json_write(const char *path, struct json_object *doc)
{
	struct json_object *key;
	FILE *f = fopen(path, "w");
	bool first = true;

	if (!f)
		return -1;
	if (!json_object_is_type(doc, json_type_object)) {
		bench_json_value(f, doc, 0);
		fputc('\n', f);
		return fclose(f);
	}
	fputc('{', f);
	json_object_object_foreach(doc, name, v) {
		key = json_object_new_string(name);
		fprintf(f, "%s\n  %s: ", first ? "" : ",",
			json_object_to_json_string_ext(key, BENCH_JSON_FLAGS));
		json_object_put(key);
		bench_json_value(f, v, 2);
		first = false;
	}
	fputs("\n}\n", f);
	return fclose(f);
}

/*
 * A benchmark's last step: @doc written to @path and freed, the file named
 * on stdout; 1 (and why on stderr) when it could not be written.
 */
static inline int bench_doc_end(const char *path, struct json_object *doc)
{
	int ret = bench_json_write(path, doc);

	if (ret)
		perror(path);
	else
		printf("\nJSON: %s\n", path);
	json_object_put(doc);
	return ret ? 1 : 0;
}

#endif /* CUMC_BENCH_JSON_H */
