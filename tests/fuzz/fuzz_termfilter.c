/* SPDX-License-Identifier: MIT */
/*
 * The --pty relay's filter (termfilter.c), on what a command may write.  The
 * first byte of the input says how the rest is cut into writes.  Whatever
 * the bytes and the cuts:
 *
 * - the output of each call fits the room the header promises;
 * - it is the same however the input was cut;
 * - it holds no sequence the filter is to drop, as a checker of its own
 *   reads it (an OSC numbered 50, 52, 1337 or 5522, a CSI 20 t or 21 t,
 *   a DCS "tmux;", in their 7-bit, 8-bit and UTF-8 C1 forms, with the C0
 *   controls a terminal acts on in between);
 * - with what lr_term_restore adds at the end, filtered again (and its
 *   restore), it comes out the same, nothing more is dropped, and no mode
 *   is left on:
 *   what passes is what the filter itself would pass, and the restore
 *   turns off every mode the filter kept.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "landrun/supervisor/termfilter.h"

static size_t run(const uint8_t *in, size_t n, size_t step, char *out, struct lr_term_filter *f)
{
	char *buf = malloc(3 * step + LR_TERM_SLACK);
	size_t len = 0;

	lr_fuzz_check(buf, "out of memory");
	lr_term_filter_init(f, false);
	for (size_t i = 0; i < n; i += step) {
		size_t k = n - i < step ? n - i : step;
		size_t got = lr_term_filter(f, (const char *)in + i, k, buf);

		lr_fuzz_check(got <= 3 * k + LR_TERM_SLACK, "%zu bytes out of %zu", got, k);
		memcpy(out + len, buf, got);
		len += got;
	}
	free(buf);
	return len;
}

/* Where UTF-8 text stands after byte B (as a terminal decodes it). */
static int need_after(int need, unsigned char b)
{
	if (need > 0 && (b & 0xc0) == 0x80)
		return need - 1;
	return b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
}

/* The introducer at OUT[I] (ESC x, C1, C2 C1), as its 7-bit final, and its
 * length in *LEN; 0 if there is none.  0xc2 starts a character whatever
 * came before it; an 8-bit C1 control is one where no character expects
 * it. */
static int introducer(const unsigned char *o, size_t n, size_t i, int need, size_t *len)
{
	if (o[i] == 0x1b) {
		size_t j = i + 1;

		while (j < n && o[j] < 0x20 && o[j] != 0x1b && o[j] != 0x18 && o[j] != 0x1a)
			j++; /* C0 controls: acted on, the ESC waits */
		if (j < n && (o[j] == ']' || o[j] == '[' || o[j] == 'P')) {
			*len = j + 1 - i;
			return o[j];
		}
		return 0;
	}
	if (o[i] == 0xc2 && i + 1 < n && (o[i + 1] == 0x9d || o[i + 1] == 0x9b || o[i + 1] == 0x90)) {
		*len = 2;
		return o[i + 1] - 0x40;
	}
	if (need == 0 && (o[i] == 0x9d || o[i] == 0x9b || o[i] == 0x90)) {
		*len = 1;
		return o[i] - 0x40;
	}
	return 0;
}

/* The number at O[I...] (C0 controls skipped, and DEL, but BEL that ends
 * an OSC), saturated, and where it ends. */
static unsigned long number(const unsigned char *o, size_t n, size_t *i, bool *any, bool osc)
{
	unsigned long v = 0;

	*any = false;
	for (; *i < n; (*i)++) {
		if (o[*i] >= '0' && o[*i] <= '9') {
			v = v > 1000000 ? v : v * 10 + (o[*i] - '0');
			*any = true;
		} else if (!(o[*i] == 0x7f || (o[*i] < 0x20 && o[*i] != 0x1b && o[*i] != 0x18 &&
						       o[*i] != 0x1a && (!osc || o[*i] != 0x07))))
			break;
	}
	return v;
}

static void check_clean(const unsigned char *o, size_t n)
{
	int need = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len, j;
		bool any;
		int what = introducer(o, n, i, need, &len);
		unsigned long v;

		need = need_after(need, o[i]);
		if (!what)
			continue;
		j = i + len;
		if (what == ']') {
			v = number(o, n, &j, &any, true);
			lr_fuzz_check(!(any && (v == 50 || v == 52 || v == 1337 || v == 5522)),
				      "OSC %lu passed at %zu", v, i);
		} else if (what == '[') {
			v = number(o, n, &j, &any, false);
			lr_fuzz_check(!(j < n && o[j] == 't' && (v == 20 || v == 21)), "CSI %lu t at %zu", v,
				      i);
		} else if (what == 'P') {
			lr_fuzz_check(!(n - j >= 5 && memcmp(o + j, "tmux;", 5) == 0), "DCS tmux; at %zu", i);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_term_filter f, g;
	size_t step, n, a, b;
	char *one, *cut, *again;

	if (size < 1 || size > 4097)
		return 0;
	step = data[0] % 16 + 1;
	data++;
	n = size - 1;
	one = malloc(3 * n + LR_TERM_SLACK + LR_TERM_RESTORE_MAX);
	cut = malloc(3 * n + LR_TERM_SLACK + LR_TERM_RESTORE_MAX);
	again = malloc(3 * (3 * n + LR_TERM_SLACK + LR_TERM_RESTORE_MAX) + LR_TERM_SLACK);
	lr_fuzz_check(one && cut && again, "out of memory");

	a = run(data, n, n ? n : 1, one, &f);
	b = run(data, n, step, cut, &g);
	lr_fuzz_check(a == b && memcmp(one, cut, a) == 0, "cut in writes of %zu: %zu bytes, whole %zu",
		      step, b, a);
	check_clean((const unsigned char *)one, a);
	{
		char seq[LR_TERM_RESTORE_MAX];
		size_t r = lr_term_restore(&f, seq), c;

		lr_fuzz_check(r <= LR_TERM_RESTORE_MAX, "restore too long");
		memcpy(one + a, seq, r);
		a += r;
		c = run((const uint8_t *)one, a, a ? a : 1, again, &g);
		c += lr_term_restore(&g, again + c);
		lr_fuzz_check(c == a && memcmp(one, again, a) == 0, "filtered again: %zu bytes, first %zu",
			      c, a);
		lr_fuzz_check(lr_term_dropped(&g) == 0, "filtered again: %lu dropped",
			      lr_term_dropped(&g));
		lr_fuzz_check(g.modes == 0 && g.kitty_pushed == 0, "filtered again: modes %#x, %u pushed",
			      g.modes, g.kitty_pushed);
	}
	free(one);
	free(cut);
	free(again);
	return 0;
}
