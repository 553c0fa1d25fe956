/* SPDX-License-Identifier: MIT */
#ifndef LANDRUN_TERMFILTER_H
#define LANDRUN_TERMFILTER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * --pty: what the command writes, on its way to the user's terminal.  The
 * terminal is outside the sandbox, and some of what it understands acts
 * beyond the screen: a clipboard the user pastes from later, reports that
 * echo text the command chose back as typed input (after the run, into the
 * user's shell), fonts, files.  The filter drops those sequences, as the
 * terminal would parse them (ECMA-48: 7-bit ESC forms, 8-bit C1 bytes and
 * C1 controls written in UTF-8), and passes everything else as it came,
 * but a UTF-8 character cut short, which becomes '?' (a terminal shows
 * U+FFFD; the bytes left could join what follows into a C1 control):
 *
 * - OSC 50 (fonts), 52 (clipboard: set and query), 1337 (iTerm2's: files,
 *   clipboard), 5522 (kitty's clipboard);
 * - CSI 20 t and CSI 21 t (report the icon label and the title, text the
 *   command can set);
 * - a DCS "tmux;" (tmux's passthrough to the terminal beneath it).
 *
 * It also keeps the modes that the command turned on and that outlive it in
 * the terminal: mouse reporting, focus events, bracketed paste, the
 * alternate screen, a hidden cursor, application cursor keys and keypad,
 * xterm's modifyOtherKeys, kitty's keyboard protocol.  lr_term_restore
 * writes what turns them off again, for the end of the run.
 */

/* What a sequence still undecided may hold (longer: it is dropped). */
#define LR_TERM_HELD 256
/* What lr_term_filter may write beyond three times what it was given (a
 * string that the terminal would end at an ESC or a C1 control gets an ST of
 * the filter's own, in case what follows is dropped). */
#define LR_TERM_SLACK (LR_TERM_HELD + 8)
/* What lr_term_restore writes at most. */
#define LR_TERM_RESTORE_MAX 160

enum lr_term_dropped {
	LR_TERM_DROPPED_CLIPBOARD,	/* OSC 52, 5522, 1337 */
	LR_TERM_DROPPED_FONT,		/* OSC 50 */
	LR_TERM_DROPPED_REPORT,		/* CSI 20/21 t */
	LR_TERM_DROPPED_PASSTHROUGH,	/* DCS tmux; */
	LR_TERM_DROPPED_LONG,		/* a control sequence over LR_TERM_HELD */
	LR_TERM_DROPPED_KINDS
};

struct lr_term_filter {
	bool pass_all;			/* --pty-passthrough: drop nothing (modes are kept still) */
	int state;
	unsigned char ch[4];		/* a UTF-8 character begun, */
	int ch_len, ch_need;		/* its bytes so far, and still due */
	unsigned char held[LR_TERM_HELD];
	size_t n_held;
	size_t intro;			/* of which the sequence's introducer */
	unsigned long osc;		/* the OSC's number so far */
	bool osc_digits;		/* it has a digit */
	unsigned modes;			/* LR_TERM_MODE_* bits left on */
	unsigned kitty_pushed;		/* kitty keyboard flags pushed and not popped */
	unsigned long dropped[LR_TERM_DROPPED_KINDS];
};

/* A filter that drops what acts beyond the screen (PASS_ALL: nothing). */
void lr_term_filter_init(struct lr_term_filter *f, bool pass_all);

/* Filter the N bytes of IN into OUT, which has room for 3 * N +
 * LR_TERM_SLACK bytes; what OUT received (bytes of an undecided sequence wait in F). */
size_t lr_term_filter(struct lr_term_filter *f, const char *in, size_t n, char *out);

/* What turns off again, in the terminal, the modes the command left on, and
 * ends a sequence left open: into OUT (LR_TERM_RESTORE_MAX bytes); its
 * length, 0 when nothing is due. */
size_t lr_term_restore(const struct lr_term_filter *f, char *out);

/* All sequences dropped so far. */
unsigned long lr_term_dropped(const struct lr_term_filter *f);

#endif
