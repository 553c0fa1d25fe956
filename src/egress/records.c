/* SPDX-License-Identifier: MIT */
/* The egress helper's records in the audit log, and their bound. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "landrun/egress/records.h"
#include "landrun/lib/json.h"

static uint64_t fnv(uint64_t h, const char *s)
{
	if (!s)
		return (h ^ 0xffu) * 0x100000001b3ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xfeu) * 0x100000001b3ULL; /* the end of a field */
}

uint64_t lr_audit_egress_key(const char *decision, const char *request, const char *host,
			     unsigned port, const char *reason)
{
	char p[16];

	snprintf(p, sizeof(p), "%u", port);
	return fnv(fnv(fnv(fnv(fnv(0xcbf29ce484222325ULL, decision), request), host), p), reason);
}

unsigned long lr_audit_repeat(struct lr_audit_bound *b, uint64_t key)
{
	unsigned long c;

	for (size_t i = 0; i < b->n; i++) {
		if (b->seen[i].key != key)
			continue;
		c = ++b->seen[i].count;
		return (c & (c - 1)) == 0 ? c : 0;
	}
	if (b->n < LR_AUDIT_KEYS) {
		b->seen[b->n].key = key;
		b->seen[b->n++].count = 1;
	}
	return 1;
}

enum lr_audit_room lr_audit_room(struct lr_audit_bound *b, size_t len)
{
	if (b->capped)
		return LR_AUDIT_FULL;
	if (len > LR_AUDIT_EGRESS_CAP - b->bytes) {
		b->capped = true;
		return LR_AUDIT_CAP_NOW;
	}
	b->bytes += len;
	return LR_AUDIT_ROOM;
}

char *lr_audit_capped(const struct lr_audit *a, size_t cap)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	lr_audit_head(out, a, "capped", getpid());
	fprintf(out, ",\"what\":\"egress\",\"cap_bytes\":%zu", cap);
	return lr_audit_finish(out, &buf);
}

char *lr_audit_egress(const struct lr_audit *a, const char *decision, const char *request,
		      const char *host, unsigned port, const char *address, const char *reason,
		      unsigned long count)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	lr_audit_head(out, a, "egress", getpid());
	fputs(",\"decision\":", out);
	lr_json_str(out, decision);
	fputs(",\"request\":", out);
	lr_json_str(out, request);
	fputs(",\"host\":", out);
	lr_json_str(out, host);
	if (port)
		fprintf(out, ",\"port\":%u", port);
	else
		fputs(",\"port\":null", out);
	fputs(",\"address\":", out);
	lr_json_str(out, address);
	fputs(",\"reason\":", out);
	lr_json_str(out, reason);
	fprintf(out, ",\"count\":%lu", count);
	return lr_audit_finish(out, &buf);
}
