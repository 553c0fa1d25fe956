/* SPDX-License-Identifier: MIT */
/* The --pty relay's filter: what acts beyond the screen is dropped, the
 * rest passes byte for byte, however the command's writes cut it; the modes
 * it left on are turned off at the end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/supervisor/termfilter.h"

#define E "\033"
#define ST E "\\"

struct expect {
	const char *in;
	const char *out;
	enum lr_term_dropped kind; /* what was dropped, if anything */
	unsigned long n;
};

static const struct expect cases[] = {
	/* text, and sequences that stay on the screen, pass as they are */
	{ "plain text\r\n", "plain text\r\n", 0, 0 },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92", 0, 0 },
	{ "\xc5\x9d\xc2\xa0x", "\xc5\x9d\xc2\xa0x", 0, 0 }, /* 0x9d, 0xa0 as continuations */
	{ "\xc3" E "[1m\xe2\x82x", "?" E "[1m?x", 0, 0 },	/* characters cut short */
	{ E "[1;31mred" E "[0m", E "[1;31mred" E "[0m", 0, 0 },
	{ E "[38;2;255;128;0m", E "[38;2;255;128;0m", 0, 0 },
	{ E "]0;my title\a", E "]0;my title\a", 0, 0 },
	{ E "]2;title" ST, E "]2;title" ST, 0, 0 },
	{ E "]8;;https://example.com" ST "link" E "]8;;" ST, E "]8;;https://example.com" ST "link" E "]8;;" ST, 0, 0 },
	{ E "]11;?\a", E "]11;?\a", 0, 0 },			/* a colour query */
	{ E "[6n", E "[6n", 0, 0 },				/* the cursor's position */
	{ E "[18t" E "[8;24;80t", E "[18t" E "[8;24;80t", 0, 0 },
	{ E "Pq#0;2;0;0;0~" ST, E "Pq#0;2;0;0;0~" ST, 0, 0 },	/* sixel */
	{ E "P$qm" ST, E "P$qm" ST, 0, 0 },			/* DECRQSS */
	{ E "_Gf=100;AAAA" ST, E "_Gf=100;AAAA" ST, 0, 0 },	/* kitty graphics (APC) */
	{ E "(B" E "#8" E "7" E "8", E "(B" E "#8" E "7" E "8", 0, 0 },
	{ "\x1b\x1b[m", "\x1b[m", 0, 0 },			/* ESC abandoned for ESC */
	{ E "]52", "", 0, 0 },				/* (held: not yet decided) */
	/* the clipboard, set or read, in every form a terminal takes */
	{ "a" E "]52;c;ZXZpbA==\ab", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a" E "]52;c;?" ST "b", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a" E "]052;c;eA==\ab", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a" E "]52\ab", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a\x9d" "52;c;eA==\x9c" "b", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },	/* 8-bit C1 */
	{ "a\xc2\x9d" "52;c;eA==\xc2\x9c" "b", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 }, /* C1 in UTF-8 */
	{ "a\xe2\xc2\x9d" "52;c;eA==\ab", "a?b", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a" E "]5522;type=write\ab", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a" E "]1337;File=name=eA==:eA==\ab", "ab", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ "a" E "]50;?\ab", "ab", LR_TERM_DROPPED_FONT, 1 },
	/* a string ended by a new sequence, the new one dropped: ended by ST */
	{ E "]0;t" E "]52;c;eA==\ax", E "]0;t" ST "x", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ E "]0;t\xc2\x9d" "52;c;eA==\ax", E "]0;t" ST "x", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ E "Pq#0" E "]52;c;eA==\ax", E "Pq#0" ST "x", LR_TERM_DROPPED_CLIPBOARD, 1 },
	/* a dropped string ends where the terminal's would */
	{ E "]52;c;eA==" E "[1mx", E "[1mx", LR_TERM_DROPPED_CLIPBOARD, 1 },
	{ E "]52;c;eA==\x18x", "x", LR_TERM_DROPPED_CLIPBOARD, 1 },
	/* reports that would echo text the command chose back as typed input */
	{ "a" E "[21tb", "ab", LR_TERM_DROPPED_REPORT, 1 },
	{ "a" E "[20tb", "ab", LR_TERM_DROPPED_REPORT, 1 },
	{ "a" E "[0021tb", "ab", LR_TERM_DROPPED_REPORT, 1 },
	{ "a\x9b" "21tb", "ab", LR_TERM_DROPPED_REPORT, 1 },
	{ "a\xc2\x9b" "21tb", "ab", LR_TERM_DROPPED_REPORT, 1 },
	/* tmux's passthrough: all of it */
	{ "a" E "Ptmux;" E E "]52;c;eA==\a" ST "b", "ab", LR_TERM_DROPPED_PASSTHROUGH, 1 },
	/* screen's (a DCS whose ESC the terminal would take as its end) */
	{ "a" E "P" E "]52;c;eA==\a" ST "b", "a" E "P" ST ST "b", LR_TERM_DROPPED_CLIPBOARD, 1 },
	/* a sequence cut short by ESC or C1: the terminal abandons it */
	{ E "[12" E "[1m", E "[1m", 0, 0 },
	{ E "[1\x07" E "[1m", "\x07" E "[1m", 0, 0 },
	/* too long to be decided: dropped */
	{ NULL, NULL, LR_TERM_DROPPED_LONG, 1 },
};

static void run_split(const char *in, size_t n, size_t step, char *out, size_t *out_len,
		      struct lr_term_filter *f)
{
	char *buf = malloc(3 * step + LR_TERM_SLACK);

	cr_assert(buf);
	*out_len = 0;
	lr_term_filter_init(f, false);
	for (size_t i = 0; i < n; i += step) {
		size_t k = n - i < step ? n - i : step;
		size_t got = lr_term_filter(f, in + i, k, buf);

		cr_assert(got <= 3 * k + LR_TERM_SLACK);
		memcpy(out + *out_len, buf, got);
		*out_len += got;
	}
	free(buf);
}

static void check(const char *in, size_t n, const char *want, size_t want_len,
		  const struct expect *e)
{
	char *out = malloc(3 * n + LR_TERM_SLACK);

	cr_assert(out);
	/* whole, byte by byte, and in pieces of 2, 3 and 7 */
	const size_t steps[] = { n ? n : 1, 1, 2, 3, 7 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t step = steps[i], len;
		struct lr_term_filter f;

		run_split(in, n, step, out, &len, &f);
		cr_expect(len == want_len && memcmp(out, want, len) == 0,
			  "input %zu bytes, in pieces of %zu: %zu bytes out, %zu wanted", n, step,
			  len, want_len);
		cr_expect(lr_term_dropped(&f) == e->n, "input %zu bytes: %lu dropped, %lu wanted", n,
			  lr_term_dropped(&f), e->n);
		if (e->n)
			cr_expect(f.dropped[e->kind] == e->n, "dropped as kind %d", e->kind);
	}
	free(out);
}

Test(termfilter, cases)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct expect *e = &cases[i];

		if (!e->in) { /* a CSI too long to be a real one */
			char in[2 * LR_TERM_HELD];
			size_t n = 0;

			n += (size_t)sprintf(in, "a" E "[");
			while (n < LR_TERM_HELD + 10)
				in[n++] = '0';
			n += (size_t)sprintf(in + n, "21tb");
			check(in, n, "ab", 2, e);
			continue;
		}
		check(e->in, strlen(e->in), e->out, strlen(e->out), e);
	}
}

Test(termfilter, pass_all)
{
	const char *in = "a" E "]52;c;eA==\a" E "[21t" E "Ptmux;x" ST "b";
	char out[256];
	struct lr_term_filter f;
	size_t len;

	lr_term_filter_init(&f, true);
	len = lr_term_filter(&f, in, strlen(in), out);
	cr_expect(len == strlen(in) && memcmp(out, in, len) == 0, "all passed");
	cr_expect(lr_term_dropped(&f) == 0);
}

static const struct {
	const char *in;
	const char *restore;
} modes[] = {
	{ "text", "" },
	{ E "[?1049h" E "[?1000;1006h" E "[?2004h", E "[?1049;1000;1006;2004l" },
	{ E "[?1049h" E "[?1049l", "" },
	{ E "[?1002h" E "[?1002l" E "[?25l", E "[?25h" },
	{ E "[?25l" E "[?25h", "" },
	{ E "=" E "[?1h", E "[?1l" E ">" },
	{ E "=" E ">", "" },
	{ E "[>4;2m", E "[>4m" },
	{ E "[>4;2m" E "[>4;0m", "" },
	{ E "[>1u" E "[>3u", E "[<2u" },
	{ E "[>1u" E "[>3u" E "[<u", E "[<1u" },
	{ E "[>1u" E "[<5u", "" },
	{ E "[?1049h" E "[?1004h" E "c", "" },	/* RIS */
	/* a string left open: CAN ends it first */
	{ E "]0;never ended", "\x18" },
	{ E "[?1000h" E "]2;t", "\x18" E "[?1000l" },
};

Test(termfilter, restore)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct lr_term_filter f;
		char out[256], seq[LR_TERM_RESTORE_MAX];
		size_t len;

		lr_term_filter_init(&f, false);
		lr_term_filter(&f, modes[i].in, strlen(modes[i].in), out);
		len = lr_term_restore(&f, seq);
		cr_expect(len == strlen(modes[i].restore) && memcmp(seq, modes[i].restore, len) == 0,
			  "case %zu: restore %.*s", i, (int)len, seq);
	}
}

Test(termfilter, restore_everything_fits)
{
	struct lr_term_filter f;
	char out[1024], seq[LR_TERM_RESTORE_MAX];
	const char *in = E "[?1049;1047;47;9;1000;1001;1002;1003;1005;1006;1015;1016;1004;2004;1;2026h"
			 E "[?25l" E "=" E "[>4;2m" E "[>1u" E "]0;open";

	lr_term_filter_init(&f, false);
	f.kitty_pushed = 4095;
	lr_term_filter(&f, in, strlen(in), out);
	cr_expect(lr_term_restore(&f, seq) <= LR_TERM_RESTORE_MAX);
}

/* ESC, then more C0 controls than the filter holds, then "]52;...": the
 * terminal still waits after the ESC (it acts on C0 controls inside a
 * sequence), so the OSC 52 is dropped, not passed as text; beside it, the
 * control: an OSC 0 (the title) after as many passes. */
Test(termfilter, esc_waits_past_many_c0_controls)
{
	static const char *const tails[] = { "]52;c;aGk=\a", "]0;t\a" };
	char in[3 * LR_TERM_HELD], *out = malloc(9 * LR_TERM_HELD + LR_TERM_SLACK);
	const size_t steps[] = { 1, 2, 7, 3 * LR_TERM_HELD };

	cr_assert(out);
	for (size_t t = 0; t < 2; t++) {
		size_t n = 0, len;

		in[n++] = 0x1b;
		for (int i = 0; i < 2 * LR_TERM_HELD; i++)
			in[n++] = '\0';
		n += (size_t)sprintf(in + n, "%s", tails[t]);
		for (size_t k = 0; k < sizeof(steps) / sizeof(*steps); k++) {
			struct lr_term_filter f;
			const char *esc;

			run_split(in, n, steps[k], out, &len, &f);
			esc = memchr(out, 0x1b, len);
			if (t == 0) {
				cr_expect(!memmem(out, len, "52", 2) && !esc,
					  "in pieces of %zu: the OSC 52 passed", steps[k]);
				cr_expect(f.dropped[LR_TERM_DROPPED_CLIPBOARD] == 1);
			} else {
				cr_expect(esc && memmem(esc, len - (size_t)(esc - out), "]0;t\a", 5),
					  "in pieces of %zu: the control's OSC 0 did not pass", steps[k]);
				cr_expect(lr_term_dropped(&f) == 0);
			}
			/* the NULs, which the terminal acts on: most of them out */
			cr_expect(len >= 2 * LR_TERM_HELD - 8, "%zu bytes out", len);
		}
	}
	free(out);
}
