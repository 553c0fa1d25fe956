/* SPDX-License-Identifier: MIT */
/*
 * The .env parser: lr_dotenv_parse on the input, lr_dotenv_load on the same
 * bytes written to a file (both must agree), and a round trip: what parsed
 * is written back out with double quotes and must parse to the same pairs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "landrun/lib/util.h"
#include "landrun/policy/dotenv.h"
#include "landrun/policy/policy.h"

static void check_result(int r, const struct lr_dotenv_error *err, const struct lr_kvlist *kv)
{
	lr_fuzz_check(r == 0 || r == -EINVAL || r == -ENOMEM, "result %d", r);
	if (r == -EINVAL)
		lr_fuzz_check(err->reason && err->line >= 1, "error without a reason or line");
	if (r != 0)
		return;
	for (size_t i = 0; i < kv->n; i++) {
		lr_fuzz_check(lr_env_name_valid(kv->items[i].key, strlen(kv->items[i].key)),
			      "bad key '%s'", kv->items[i].key);
		for (size_t j = i + 1; j < kv->n; j++)
			lr_fuzz_check(strcmp(kv->items[i].key, kv->items[j].key) != 0,
				      "key '%s' listed twice", kv->items[i].key);
	}
}

static void check_same(const struct lr_kvlist *a, const struct lr_kvlist *b, const char *what)
{
	lr_fuzz_check(a->n == b->n, "%s: %zu pairs, then %zu", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		lr_fuzz_check(strcmp(a->items[i].key, b->items[i].key) == 0, "%s: key %zu differs",
			      what, i);
		lr_fuzz_check(strcmp(a->items[i].value, b->items[i].value) == 0,
			      "%s: value of %s differs", what, a->items[i].key);
	}
}

/* KEY="VALUE" lines, with the three escapes the parser knows. */
static void round_trip(const struct lr_kvlist *kv)
{
	struct lr_kvlist again = {0};
	struct lr_dotenv_error err;
	struct lr_buf b = {0};
	int r = lr_buf_add(&b, "", 0);

	for (size_t i = 0; i < kv->n && r == 0; i++) {
		r = lr_buf_add(&b, kv->items[i].key, strlen(kv->items[i].key));
		if (r == 0)
			r = lr_buf_add(&b, "=\"", 2);
		for (const char *c = kv->items[i].value; *c && r == 0; c++) {
			if (*c == '"' || *c == '\\')
				r = lr_buf_add(&b, "\\", 1);
			if (r == 0)
				r = *c == '\n' ? lr_buf_add(&b, "\\n", 2) : lr_buf_add(&b, c, 1);
		}
		if (r == 0)
			r = lr_buf_add(&b, "\"\n", 2);
	}
	if (r == 0) {
		r = lr_dotenv_parse(b.s, b.len, &again, &err);
		lr_fuzz_check(r == 0 || r == -ENOMEM, "written back, it does not parse: %d %s", r,
			      err.reason ? err.reason : "");
		if (r == 0)
			check_same(kv, &again, "round trip");
	}
	lr_kvlist_free(&again);
	free(b.s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start;
	struct lr_kvlist parsed = {0}, loaded = {0};
	struct lr_dotenv_error perr, lerr;
	char path[PATH_MAX];
	int pr, lr;

	pr = lr_dotenv_parse((const char *)data, size, &parsed, &perr);
	check_result(pr, &perr, &parsed);
	if (pr == 0)
		round_trip(&parsed);

	snprintf(path, sizeof(path), "%s/.env", lr_fuzz_dir());
	lr_fuzz_must(lr_fuzz_write(path, data, size, 0600), path);
	start = lr_fuzz_now();
	lr = lr_dotenv_load(path, &loaded, &lerr);
	lr_fuzz_check_quick(start, "lr_dotenv_load");
	lr_fuzz_check(lr != -EINTR, "the open was interrupted");
	if (size > LR_DOTENV_MAX_SIZE) {
		lr_fuzz_check(lr == -EFBIG, "a file of %zu bytes loaded: %d", size, lr);
	} else if (pr != -ENOMEM && lr != -ENOMEM) {
		lr_fuzz_check(lr == pr, "parse says %d, load says %d", pr, lr);
		lr_fuzz_check(lerr.line == perr.line, "error line %u vs %u", perr.line, lerr.line);
		if (pr == 0)
			check_same(&parsed, &loaded, "parse vs load");
	}
	lr_kvlist_free(&parsed);
	lr_kvlist_free(&loaded);
	return 0;
}
