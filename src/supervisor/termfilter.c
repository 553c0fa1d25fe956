// SPDX-License-Identifier: MIT
/*
 * The --pty relay's filter of what the command writes to the user's terminal
 * (termfilter.h).  A parser after ECMA-48 and DEC's (vt100.net), which a
 * terminal's own follows: text passes byte by byte; a sequence whose fate
 * depends on its parameters (a CSI, an OSC's number, a DCS's first bytes) is
 * held until they are known, and then passed or dropped whole; the strings
 * of OSC, DCS, APC, PM and SOS pass (or are dropped) as they come, up to
 * their terminator, or to the ESC or C1 control that the terminal takes as
 * their end and the start of something new.
 */
#include "landrun/supervisor/termfilter.h"

#include <stdio.h>
#include <string.h>

#define ESC 0x1b
#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a
/* a C1 control, as a token: C1 + its 7-bit final ('[' for CSI) */
#define C1 0x100

enum state {
	GROUND,
	ESCAPE,		/* ESC (held), and what the terminal does not act on yet */
	ESC_INTER,	/* ESC and an intermediate: passed up to the final */
	CSI,		/* held up to its final */
	CSI_DROP,	/* too long: dropped up to its final */
	OSC_NUM,	/* held while its number comes */
	OSC_PASS,
	OSC_DROP,
	DCS_HEAD,	/* held while its first bytes may be "tmux;" */
	DCS_PASS,
	DCS_DROP,
	STR_PASS,	/* APC, PM, SOS */
};

/* In a string, an ESC was seen: held (a pass state) or not (a drop state),
 * waiting for the byte that says whether it is ST. */
#define STR_ESC 0x100

static const char tmux_prefix[] = "tmux;";

/* DEC private modes that outlive the command in the terminal. */
enum {
	M_ALT47 = 1u << 0, M_ALT1047 = 1u << 1, M_ALT1049 = 1u << 2, M_X10 = 1u << 3,
	M_VT200 = 1u << 4, M_HILITE = 1u << 5, M_BUTTON = 1u << 6, M_ANY = 1u << 7,
	M_UTF8M = 1u << 8, M_SGRM = 1u << 9, M_URXVTM = 1u << 10, M_PIXELM = 1u << 11,
	M_FOCUS = 1u << 12, M_PASTE = 1u << 13, M_CKM = 1u << 14, M_SYNC = 1u << 15,
	M_HIDDEN = 1u << 16, /* ?25 reset: the cursor hidden */
	M_KEYPAD = 1u << 17, /* ESC = */
	M_MOK = 1u << 18,    /* CSI > 4 ; N m, N > 0 */
};

static const struct {
	unsigned param, bit;
} dec_modes[] = {
	/* the alternate screen first: what follows then applies to the main one */
	{ 1049, M_ALT1049 }, { 1047, M_ALT1047 }, { 47, M_ALT47 },
	{ 9, M_X10 }, { 1000, M_VT200 }, { 1001, M_HILITE }, { 1002, M_BUTTON },
	{ 1003, M_ANY }, { 1005, M_UTF8M }, { 1006, M_SGRM }, { 1015, M_URXVTM },
	{ 1016, M_PIXELM }, { 1004, M_FOCUS }, { 2004, M_PASTE }, { 1, M_CKM },
	{ 2026, M_SYNC },
};

#define KITTY_MAX 4096

void lr_term_filter_init(struct lr_term_filter *f, bool pass_all)
{
	memset(f, 0, sizeof(*f));
	f->pass_all = pass_all;
	f->state = GROUND;
}

unsigned long lr_term_dropped(const struct lr_term_filter *f)
{
	unsigned long n = 0;

	for (int k = 0; k < LR_TERM_DROPPED_KINDS; k++)
		n += f->dropped[k];
	return n;
}

struct sink {
	char *out;
	size_t len;
};

static void emit(struct sink *s, const unsigned char *b, size_t n)
{
	memcpy(s->out + s->len, b, n);
	s->len += n;
}

static void emit_held(struct lr_term_filter *f, struct sink *s)
{
	emit(s, f->held, f->n_held);
	f->n_held = 0;
}

/* Hold RAW; false when there is no room (the caller drops the sequence). */
static bool hold(struct lr_term_filter *f, const unsigned char *raw, size_t n)
{
	if (n > sizeof(f->held) - f->n_held)
		return false;
	memcpy(f->held + f->n_held, raw, n);
	f->n_held += n;
	return true;
}

/* The terminal abandons the sequence held (a new one starts): only the C0
 * controls held with it, which it acted on, pass. */
static void abandon(struct lr_term_filter *f, struct sink *s)
{
	for (size_t i = 1; i < f->n_held; i++)
		if (f->held[i] < 0x20)
			emit(s, &f->held[i], 1);
	f->n_held = 0;
}

/* Drop what is held of the sequence, counted as KIND; STATE follows. */
static void drop(struct lr_term_filter *f, enum lr_term_dropped kind, int state)
{
	f->n_held = 0;
	f->dropped[kind]++;
	f->state = state;
}

/* ---------------------------------------------------------------- CSI */

struct csi {
	char private;		/* < = > ? or 0 */
	bool inter;		/* an intermediate byte */
	unsigned char final;
	unsigned n;		/* parameters */
	unsigned long p[16];	/* (saturated; a missing one is 0) */
};

/* The held CSI (its introducer INTRO bytes long), read. */
static void parse_csi(const struct lr_term_filter *f, struct csi *c)
{
	const unsigned char *b = f->held + f->intro, *end = f->held + f->n_held - 1;

	memset(c, 0, sizeof(*c));
	c->final = *end;
	c->n = 1;
	for (; b < end; b++) {
		if (*b < 0x20 || *b == 0x7f)
			continue; /* a control the terminal acted on meanwhile */
		if (*b >= 0x3c && *b <= 0x3f && !c->private && c->n == 1 && !c->p[0])
			c->private = (char)*b;
		else if (*b >= '0' && *b <= '9') {
			unsigned long *p = &c->p[c->n - 1];

			*p = *p > 1000000 ? *p : *p * 10 + (unsigned long)(*b - '0');
		} else if ((*b == ';' || *b == ':') && c->n < 16)
			c->n++;
		else if (*b >= 0x20 && *b <= 0x2f)
			c->inter = true;
	}
}

static void track_dec(struct lr_term_filter *f, const struct csi *c)
{
	bool set = c->final == 'h';

	for (unsigned i = 0; i < c->n; i++) {
		if (c->p[i] == 25) {
			f->modes = set ? f->modes & ~M_HIDDEN : f->modes | M_HIDDEN;
			continue;
		}
		for (size_t m = 0; m < sizeof(dec_modes) / sizeof(dec_modes[0]); m++)
			if (dec_modes[m].param == c->p[i])
				f->modes = set ? f->modes | dec_modes[m].bit : f->modes & ~dec_modes[m].bit;
	}
}

/* The held CSI is complete: pass it (and keep what it turns on) or drop it. */
static void csi_final(struct lr_term_filter *f, struct sink *s)
{
	struct csi c;

	parse_csi(f, &c);
	f->state = GROUND;
	if (!c.private && !c.inter && c.final == 't' && (c.p[0] == 20 || c.p[0] == 21) &&
	    !f->pass_all) {
		drop(f, LR_TERM_DROPPED_REPORT, GROUND);
		return;
	}
	if (c.private == '?' && !c.inter && (c.final == 'h' || c.final == 'l'))
		track_dec(f, &c);
	else if (c.private == '>' && !c.inter && c.final == 'u')
		f->kitty_pushed += f->kitty_pushed < KITTY_MAX;
	else if (c.private == '<' && !c.inter && c.final == 'u') {
		unsigned long n = c.p[0] ? c.p[0] : 1;

		f->kitty_pushed = n >= f->kitty_pushed ? 0 : f->kitty_pushed - (unsigned)n;
	} else if (c.private == '>' && !c.inter && c.final == 'm' && c.p[0] == 4)
		f->modes = c.n > 1 && c.p[1] ? f->modes | M_MOK : f->modes & ~M_MOK;
	emit_held(f, s);
}

/* ---------------------------------------------------------------- the parser */

static void token(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		  size_t n);

/* A C1 control (or ESC and its final byte, held already): what it starts. */
static void introduce(struct lr_term_filter *f, struct sink *s, int ch)
{
	f->intro = f->n_held;
	switch (ch) {
	case '[':
		f->state = CSI;
		break;
	case ']':
		f->state = OSC_NUM;
		f->osc = 0;
		f->osc_digits = false;
		break;
	case 'P':
		f->state = DCS_HEAD;
		break;
	case '_': /* APC */
	case '^': /* PM */
	case 'X': /* SOS */
		emit_held(f, s);
		f->state = STR_PASS;
		break;
	default: /* ST alone, and the other C1 controls: acted on, done */
		emit_held(f, s);
		f->state = GROUND;
	}
}

/* In ESCAPE: the byte after ESC (and what it held). */
static void escape(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		   size_t n)
{
	if (t >= C1 || t == ESC) { /* the ESC is abandoned for what follows */
		abandon(f, s);
		f->state = GROUND;
		token(f, s, t, raw, n);
		return;
	}
	if (t < 0x20 && t != CAN && t != SUB) {
		/* a C0 control is acted on and the ESC still waits (held: its
		 * room kept for an introducer, hold of which cannot fail) */
		if (f->n_held + n > LR_TERM_HELD - 2 || !hold(f, raw, n)) {
			/* no room: the C0 controls go out now, and the ESC
			 * stays held, for the terminal still waits after it
			 * (sent, it would make an OSC 52 of a "]52" that
			 * followed, passed as text) */
			abandon(f, s);
			emit(s, raw, n);
			hold(f, (const unsigned char[]){ ESC }, 1);
		}
		return;
	}
	if (t == '[' || t == ']' || t == 'P' || t == '_' || t == '^' || t == 'X') {
		hold(f, raw, n);
		introduce(f, s, t);
		return;
	}
	if (t == '=')
		f->modes |= M_KEYPAD;
	else if (t == '>')
		f->modes &= ~M_KEYPAD;
	else if (t == 'c') { /* RIS: the terminal is reset whole */
		f->modes = 0;
		f->kitty_pushed = 0;
	}
	emit_held(f, s);
	emit(s, raw, n);
	f->state = t >= 0x20 && t <= 0x2f ? ESC_INTER : GROUND;
}

/* The number of an OSC is known (T is the byte after it): pass or drop. */
static void osc_number(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		       size_t n)
{
	bool numbered = f->osc_digits;
	enum lr_term_dropped kind = LR_TERM_DROPPED_CLIPBOARD;
	bool bad = false;

	if (numbered && (f->osc == 52 || f->osc == 5522 || f->osc == 1337))
		bad = true;
	else if (numbered && f->osc == 50)
		bad = true, kind = LR_TERM_DROPPED_FONT;
	if (bad && !f->pass_all) {
		drop(f, kind, OSC_DROP);
	} else {
		emit_held(f, s);
		f->state = OSC_PASS;
	}
	token(f, s, t, raw, n);
}

/* In a string (OSC, DCS, APC, PM, SOS) passed or dropped. */
static void string(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		   size_t n, bool pass)
{
	int base = f->state & ~STR_ESC;

	if (f->state & STR_ESC) { /* after an ESC: ST, or the string's end */
		f->state = base;
		if (t == '\\') {
			if (pass)
				emit(s, (const unsigned char[]){ ESC, '\\' }, 2);
			f->state = GROUND;
			return;
		}
		if (base == DCS_DROP)
			return; /* tmux's passthrough doubles its ESCs: all of it dropped */
		/* the terminal ends the string there, and a new sequence starts
		 * (and may be dropped: the string is ended by an ST of ours) */
		if (pass)
			emit(s, (const unsigned char[]){ ESC, '\\' }, 2);
		hold(f, (const unsigned char[]){ ESC }, 1);
		f->state = ESCAPE;
		escape(f, s, t, raw, n);
		return;
	}
	if (t == ESC) {
		f->state |= STR_ESC;
		return;
	}
	if (t == C1 + '\\' || t == CAN || t == SUB || (t == BEL && (base == OSC_PASS || base == OSC_DROP))) {
		if (pass)
			emit(s, raw, n);
		f->state = GROUND;
		return;
	}
	if (t >= C1 && base != DCS_DROP) { /* ends the string, and acts */
		if (pass)
			emit(s, (const unsigned char[]){ ESC, '\\' }, 2);
		f->state = GROUND;
		token(f, s, t, raw, n);
		return;
	}
	if (pass && t < C1)
		emit(s, raw, n);
}

/* In GROUND: text passes; ESC and a C1 control start a sequence. */
static void ground(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		   size_t n)
{
	if (t == ESC) {
		hold(f, raw, n);
		f->state = ESCAPE;
	} else if (t >= C1) {
		hold(f, raw, n);
		introduce(f, s, t - C1);
	} else
		emit(s, raw, n);
}

/* In ESC_INTER: passed up to the final. */
static void esc_inter(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		      size_t n)
{
	if (t == ESC || t >= C1) { /* the terminal abandons it: so does CAN */
		emit(s, (const unsigned char[]){ CAN }, 1);
		f->state = GROUND;
		token(f, s, t, raw, n);
		return;
	}
	emit(s, raw, n);
	if ((t >= 0x30 && t <= 0x7e) || t == CAN || t == SUB)
		f->state = GROUND;
}

/* In CSI: held up to its final, then judged whole (csi_final). */
static void csi(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw, size_t n)
{
	if (t == ESC || t >= C1) {
		abandon(f, s); /* cut short: the terminal drops it too */
		f->state = GROUND;
		token(f, s, t, raw, n);
		return;
	}
	if (t == CAN || t == SUB) {
		abandon(f, s);
		emit(s, raw, n);
		f->state = GROUND;
		return;
	}
	if (!hold(f, raw, n)) {
		drop(f, LR_TERM_DROPPED_LONG, CSI_DROP);
		if (t >= 0x40 && t <= 0x7e)
			f->state = GROUND;
		return;
	}
	if (t >= 0x40 && t <= 0x7e)
		csi_final(f, s);
}

/* In CSI_DROP: dropped up to its final. */
static void csi_drop(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		     size_t n)
{
	if (t == ESC || t >= C1) {
		f->state = GROUND;
		token(f, s, t, raw, n);
	} else if ((t >= 0x40 && t <= 0x7e) || t == CAN || t == SUB)
		f->state = GROUND;
}

/* In OSC_NUM: held while its number comes. */
static void osc_num(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		    size_t n)
{
	/* (a terminal ignores C0 controls and DEL in a string: in its number too) */
	if ((t >= '0' && t <= '9') || t == 0x7f ||
	    (t < 0x20 && t != BEL && t != CAN && t != SUB && t != ESC)) {
		if (!hold(f, raw, n)) {
			drop(f, LR_TERM_DROPPED_LONG, OSC_DROP);
			return;
		}
		if (t >= '0' && t <= '9') {
			f->osc = f->osc > 1000000 ? f->osc : f->osc * 10 + (unsigned long)(t - '0');
			f->osc_digits = true;
		}
		return;
	}
	osc_number(f, s, t, raw, n);
}

/* In DCS_HEAD: held while its first bytes may be tmux's passthrough. */
static void dcs_head(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		     size_t n)
{
	size_t k = f->n_held - f->intro;

	if (t < C1 && t == (unsigned char)tmux_prefix[k]) {
		hold(f, raw, n);
		if (k + 1 == sizeof(tmux_prefix) - 1 && !f->pass_all)
			drop(f, LR_TERM_DROPPED_PASSTHROUGH, DCS_DROP);
		else if (k + 1 == sizeof(tmux_prefix) - 1) {
			emit_held(f, s);
			f->state = DCS_PASS;
		}
		return;
	}
	emit_held(f, s);
	f->state = DCS_PASS;
	string(f, s, t, raw, n, true);
}

static void string_pass(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
			size_t n)
{
	string(f, s, t, raw, n, true);
}

static void string_drop(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
			size_t n)
{
	string(f, s, t, raw, n, false);
}

/* What each state does with a token (in a string, after an ESC too:
 * string() looks at STR_ESC). */
static void (*const states[])(struct lr_term_filter *f, struct sink *s, int t,
			      const unsigned char *raw, size_t n) = {
	[GROUND] = ground,
	[ESCAPE] = escape,
	[ESC_INTER] = esc_inter,
	[CSI] = csi,
	[CSI_DROP] = csi_drop,
	[OSC_NUM] = osc_num,
	[OSC_PASS] = string_pass,
	[OSC_DROP] = string_drop,
	[DCS_HEAD] = dcs_head,
	[DCS_PASS] = string_pass,
	[DCS_DROP] = string_drop,
	[STR_PASS] = string_pass,
};

static void token(struct lr_term_filter *f, struct sink *s, int t, const unsigned char *raw,
		  size_t n)
{
	unsigned state = (unsigned)(f->state & ~STR_ESC);

	if (state < sizeof(states) / sizeof(states[0]) && states[state])
		states[state](f, s, t, raw, n);
}

/* The continuation bytes due after a UTF-8 lead byte B (0: not one). */
static int utf8_need(unsigned char b)
{
	return b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
}

/*
 * Bytes to tokens: a UTF-8 character whole (as one token, >= 0x80), a C1
 * control (C1 + its final) whether 8-bit or in UTF-8 (0xc2 0x80-0x9f), and
 * any other byte as itself; a character cut short by a byte that does not
 * continue it is a '?', and that byte comes next.
 */
size_t lr_term_filter(struct lr_term_filter *f, const char *in, size_t n, char *out)
{
	struct sink s = { out, 0 };
	const unsigned char *b = (const unsigned char *)in;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = b[i];

		if (f->ch_len) {
			if (f->ch[0] == 0xc2 && c >= 0x80 && c <= 0x9f) {
				f->ch_len = 0;
				token(f, &s, C1 + (c - 0x40), (const unsigned char[]){ 0xc2, c }, 2);
				continue;
			}
			if ((c & 0xc0) == 0x80) {
				f->ch[f->ch_len++] = c;
				if (--f->ch_need == 0) {
					size_t len = (size_t)f->ch_len;

					f->ch_len = 0;
					token(f, &s, 0x80, f->ch, len);
				}
				continue;
			}
			f->ch_len = 0;
			token(f, &s, '?', (const unsigned char *)"?", 1);
		}
		if (utf8_need(c)) {
			f->ch[0] = c;
			f->ch_len = 1;
			f->ch_need = utf8_need(c);
		} else if (c >= 0x80 && c <= 0x9f)
			token(f, &s, C1 + (c - 0x40), &b[i], 1); /* an 8-bit C1 control */
		else
			token(f, &s, c, &b[i], 1);
	}
	return s.len;
}

size_t lr_term_restore(const struct lr_term_filter *f, char *out)
{
	size_t len = 0;
	bool first = true;

	/* a sequence left open would swallow what follows: CAN ends any */
	if (f->state != GROUND && f->state != ESCAPE && f->state != CSI && f->state != OSC_NUM &&
	    f->state != DCS_HEAD)
		out[len++] = CAN;
	for (size_t m = 0; m < sizeof(dec_modes) / sizeof(dec_modes[0]); m++) {
		if (!(f->modes & dec_modes[m].bit))
			continue;
		len += (size_t)sprintf(out + len, "%s%u", first ? "\033[?" : ";", dec_modes[m].param);
		first = false;
	}
	if (!first)
		out[len++] = 'l';
	if (f->modes & M_HIDDEN)
		len += (size_t)sprintf(out + len, "\033[?25h");
	if (f->modes & M_KEYPAD)
		len += (size_t)sprintf(out + len, "\033>");
	if (f->modes & M_MOK)
		len += (size_t)sprintf(out + len, "\033[>4m");
	if (f->kitty_pushed)
		len += (size_t)sprintf(out + len, "\033[<%uu", f->kitty_pushed);
	return len;
}
