/* SPDX-License-Identifier: MIT */
/*
 * The egress helper's records in the audit log (lib/audit-log.h): one per
 * decision of the --allow-domain proxy, and their bound.
 */
#ifndef LANDRUN_EGRESS_RECORDS_H
#define LANDRUN_EGRESS_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "landrun/lib/audit-log.h"

/*
 * An "egress" record, by the --allow-domain proxy (egress.h), which is its
 * "pid": DECISION ("allowed", "refused", "failed", "forwarded") on REQUEST
 * (the method, "forward", or NULL for what was no request) for HOST:PORT
 * (NULL, 0 when there was none), the ADDRESS connected to, or the REASON;
 * COUNT such decisions so far (lr_audit_repeat).  malloc'd, or NULL.
 */
char *lr_audit_egress(const struct lr_audit *a, const char *decision, const char *request,
		      const char *host, unsigned port, const char *address, const char *reason,
		      unsigned long count);

/*
 * The bound of the egress records of a run (the proxy's helper writes them,
 * one per decision, as fast as the command asks): a decision like one
 * written before (the same verdict, request, host, port and reason) is
 * written again only at its 2nd, 4th, 8th... occurrence, with its "count"
 * so far; and past LR_AUDIT_EGRESS_CAP bytes, one "capped" record, then
 * nothing more.  The supervisor's own records ("started", "denied", which
 * the tracer bounds, and the end) are not counted: the end is always
 * written.  Not thread-safe: the caller locks.
 */
#define LR_AUDIT_EGRESS_CAP (1024 * 1024)
#define LR_AUDIT_KEYS 1024

struct lr_audit_bound {
	size_t bytes;			/* egress records written */
	bool capped;			/* the "capped" record is written */
	size_t n;
	struct {
		uint64_t key;
		unsigned long count;
	} seen[LR_AUDIT_KEYS];
};

/* The key of a decision (lr_audit_egress's arguments but the address). */
uint64_t lr_audit_egress_key(const char *decision, const char *request, const char *host,
			     unsigned port, const char *reason);

/* One more decision of KEY: how many there were with it, when its record is
 * to be written (1, 2, 4, 8...), else 0 (only counted).  A key that does not
 * fit among those kept is written every time (the cap still holds). */
unsigned long lr_audit_repeat(struct lr_audit_bound *b, uint64_t key);

enum lr_audit_room {
	LR_AUDIT_ROOM,			/* write it (counted in B) */
	LR_AUDIT_CAP_NOW,		/* no: write the "capped" record instead, once */
	LR_AUDIT_FULL,			/* no */
};

/* Is there room for a record of LEN bytes? */
enum lr_audit_room lr_audit_room(struct lr_audit_bound *b, size_t len);

/* The "capped" record: no more egress records in this run, past CAP bytes.
 * malloc'd, or NULL. */
char *lr_audit_capped(const struct lr_audit *a, size_t cap);

#endif /* LANDRUN_EGRESS_RECORDS_H */
