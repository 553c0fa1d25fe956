/* SPDX-License-Identifier: MIT */
/* The audit log: the bound on egress records (egress/records.h), repeats and
 * the cap; and every kind of record, parsed back. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/egress/records.h"
#include "landrun/lib/util.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/supervisor/audit.h"
#include "landrun/supervisor/learn.h"
#include "landrun/supervisor/supervise.h"
#include "skip.h"

static struct lr_audit_bound b;

Test(audit_bound, a_repeated_decision_is_written_at_powers_of_two)
{
	uint64_t k = lr_audit_egress_key("refused", "CONNECT", "evil.test", 443, "not allowed");
	unsigned long want[] = { 1, 2, 0, 4, 0, 0, 0, 8, 0 };

	memset(&b, 0, sizeof(b));
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		cr_expect_eq(lr_audit_repeat(&b, k), want[i], "occurrence %zu", i + 1);
	for (unsigned long i = 10; i <= 1024; i++)
		if (lr_audit_repeat(&b, k) && (i & (i - 1)))
			cr_assert_fail("occurrence %lu written", i);
}

Test(audit_bound, keys_differ_by_every_field)
{
	uint64_t k = lr_audit_egress_key("refused", "CONNECT", "a.test", 443, "r");

	cr_expect_neq(k, lr_audit_egress_key("allowed", "CONNECT", "a.test", 443, "r"));
	cr_expect_neq(k, lr_audit_egress_key("refused", "GET", "a.test", 443, "r"));
	cr_expect_neq(k, lr_audit_egress_key("refused", "CONNECT", "b.test", 443, "r"));
	cr_expect_neq(k, lr_audit_egress_key("refused", "CONNECT", "a.test", 80, "r"));
	cr_expect_neq(k, lr_audit_egress_key("refused", "CONNECT", "a.test", 443, NULL));
	/* the fields are delimited: "ab" + "c" is not "a" + "bc" */
	cr_expect_neq(lr_audit_egress_key("ab", "c", NULL, 0, NULL),
		      lr_audit_egress_key("a", "bc", NULL, 0, NULL));
	cr_expect_eq(k, lr_audit_egress_key("refused", "CONNECT", "a.test", 443, "r"));
}

Test(audit_bound, keys_past_the_table_are_written_every_time)
{
	memset(&b, 0, sizeof(b));
	for (unsigned i = 0; i < LR_AUDIT_KEYS; i++)
		cr_assert_eq(lr_audit_repeat(&b, i + 1), 1);
	cr_expect_eq(lr_audit_repeat(&b, 1), 2, "a kept key is still counted");
	cr_expect_eq(lr_audit_repeat(&b, 0xdead0000), 1);
	cr_expect_eq(lr_audit_repeat(&b, 0xdead0000), 1, "no room to count it: written again");
}

Test(audit_bound, the_cap_gives_one_capped_record_then_nothing)
{
	size_t n = 0;

	memset(&b, 0, sizeof(b));
	while (lr_audit_room(&b, 250) == LR_AUDIT_ROOM)
		n++;
	cr_expect_eq(n, LR_AUDIT_EGRESS_CAP / 250);
	cr_expect_leq(b.bytes, (size_t)LR_AUDIT_EGRESS_CAP);
	cr_expect_eq(lr_audit_room(&b, 1), LR_AUDIT_FULL, "after the capped record, nothing");
	cr_expect_eq(lr_audit_room(&b, 250), LR_AUDIT_FULL);
}

Test(audit_bound, records_carry_their_count)
{
	struct lr_audit a;
	char *rec, *capped;

	lr_audit_init(&a);
	rec = lr_audit_egress(&a, "refused", "CONNECT", "evil.test", 443, NULL, "no", 8);
	capped = lr_audit_capped(&a, LR_AUDIT_EGRESS_CAP);
	cr_assert_not_null(rec);
	cr_assert_not_null(capped);
	cr_expect_not_null(strstr(rec, ",\"count\":8}"), "%s", rec);
	cr_expect_not_null(strstr(capped, "\"event\":\"capped\""), "%s", capped);
	cr_expect_not_null(strstr(capped, "\"cap_bytes\":1048576"), "%s", capped);
	free(rec);
	free(capped);
}

/* ------------------------------------------------------ every record, parsed */

/*
 * Every kind of record the supervisor (supervisor/audit.h) and the egress
 * helper (egress/records.h) write, with text the command chose (newlines,
 * ESC, invalid UTF-8, quotes, backslashes, bidirectional overrides) in
 * every field that can hold it, parsed back by Python's json module: each
 * record is one line of valid UTF-8 with no raw control character, an object
 * with the common head, and each string decodes to what was given (invalid
 * bytes as U+FFFD).
 */

/* Python's side: for each line, its checks, then "N KEY HEX" for a string
 * (its UTF-8, in hex), "N KEY[I] HEX" for a list of strings, "N KEY =JSON"
 * for anything else; "N !why" for a line that fails a check. */
static const char checker[] =
	"import json, re, sys\n"
	"data = open(sys.argv[1], 'rb').read()\n"
	"if not data.endswith(b'\\n'): print('0 !no newline at the end')\n"
	"for n, raw in enumerate(data.split(b'\\n')[:-1]):\n"
	"    try:\n"
	"        text = raw.decode('utf-8')\n"
	"    except UnicodeDecodeError as e:\n"
	"        print(n, '!not UTF-8:', e); continue\n"
	"    bad = [c for c in text if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or\n"
	"           0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]\n"
	"    if bad: print(n, '!raw', [hex(ord(c)) for c in bad]); continue\n"
	"    try:\n"
	"        o = json.loads(text)\n"
	"    except ValueError as e:\n"
	"        print(n, '!not JSON:', e); continue\n"
	"    if not isinstance(o, dict): print(n, '!not an object'); continue\n"
	"    if list(o)[:5] != ['schema', 'event', 'run', 'time', 'pid'] or o['schema'] != 1 or\\\n"
	"       not re.fullmatch('[0-9a-f]{32}', o['run']) or not isinstance(o['pid'], int) or\\\n"
	"       not re.fullmatch(r'\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z', "
	"o['time']):\n"
	"        print(n, '!bad head', list(o)[:5]); continue\n"
	"    for k, v in o.items():\n"
	"        if isinstance(v, str): print(n, k, v.encode().hex() or '-')\n"
	"        elif isinstance(v, list) and all(isinstance(s, str) for s in v):\n"
	"            for i, s in enumerate(v): print(n, '%s[%d]' % (k, i), s.encode().hex() or "
	"'-')\n"
	"        else: print(n, k, '=' + json.dumps(v, sort_keys=True))\n";

/* What Python said, one line each. */
static struct {
	char *v[4096];
	size_t n;
} said;

static char rec_dir[] = "/tmp/lr-audit-XXXXXX";

/* Parse the NUL-terminated RECORDS (N of them, concatenated) in Python. */
static void parse_records(char *const *records, size_t n)
{
	char path[64], script[64], cmd[256], line[16384];
	FILE *f, *p;

	if (system("python3 -c '' >/dev/null 2>&1") != 0)
		lr_skip_test(false, "no python3 to parse the records back");
	cr_assert_not_null(mkdtemp(rec_dir));
	snprintf(path, sizeof(path), "%s/log", rec_dir);
	snprintf(script, sizeof(script), "%s/check.py", rec_dir);
	cr_assert_not_null(f = fopen(script, "we"));
	fputs(checker, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_not_null(f = fopen(path, "we"));
	for (size_t i = 0; i < n; i++) {
		cr_assert_not_null(records[i], "record %zu not made", i);
		fputs(records[i], f);
	}
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", script, path);
	p = popen(cmd, "re");
	cr_assert_not_null(p);
	while (said.n < sizeof(said.v) / sizeof(*said.v) && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		said.v[said.n++] = strdup(line);
	}
	cr_assert_eq(pclose(p), 0, "python3: %s", said.n ? said.v[0] : "(nothing)");
	unlink(script);
	unlink(path);
	rmdir(rec_dir);
	for (size_t i = 0; i < said.n; i++) {
		const char *sp = strchr(said.v[i], ' ');

		cr_expect(sp && sp[1] != '!', "%s", said.v[i]);
	}
}

/* What record N's KEY decoded to: "HEX", "=JSON", or NULL when absent. */
static const char *field(size_t n, const char *key)
{
	char head[128];
	size_t len = (size_t)snprintf(head, sizeof(head), "%zu %s ", n, key);

	for (size_t i = 0; i < said.n; i++)
		if (strncmp(said.v[i], head, len) == 0)
			return said.v[i] + len;
	return NULL;
}

static void expect_str(size_t n, const char *key, const char *want)
{
	const char *got = field(n, key);
	char hex[2 * 8192 + 2] = "";

	for (size_t i = 0; want[i] && i < 8192; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)want[i]);
	if (!*hex)
		strcpy(hex, "-");
	cr_expect_not_null(got, "record %zu: no %s", n, key);
	if (got)
		cr_expect_str_eq(got, hex, "record %zu: %s decodes to something else", n, key);
}

static void expect_json(size_t n, const char *key, const char *want)
{
	const char *got = field(n, key);

	cr_expect_not_null(got, "record %zu: no %s", n, key);
	if (got)
		cr_expect_str_eq(got, want, "record %zu: %s", n, key);
}

/* What the command chose, and what it decodes to. */
#define NASTY "a\nb\r\t\x1b[2J\x1b]0;t\x07\"q\\\\u0000\xff\xc3(\xe2\x80\xae\xc2\x9b!"
#define NASTY_DECODED                                                                              \
	"a\nb\r\t\x1b[2J\x1b]0;t\x07\"q\\\\u0000\xef\xbf\xbd\xef\xbf\xbd(\xe2\x80\xae\xc2\x9b!"

Test(audit_records, every_kind_parses_and_keeps_its_text)
{
	char *argv[] = {"landrun", "--ro", "/p/" NASTY, "--", "cmd", NASTY, NULL};
	struct lr_policy policy;
	struct lr_features features;
	struct lr_plan plan;
	struct lr_fs_rules rules = {0};
	struct lr_holes holes = {0};
	struct lr_strlist env = {0};
	struct lr_explain_input in = {&policy, &plan, &rules, &holes, &env, "/bin/" NASTY, NULL};
	struct lr_outcome exited = {.ended = true, .why = LR_END_EXITED, .status = 3 << 8};
	struct lr_outcome timeout = {
		.ended = true, .why = LR_END_TIMEOUT, .status = SIGSEGV | 0x80};
	struct lr_outcome signalled = {.ended = true,
				       .why = LR_END_SIGNAL,
				       .signal = SIGTERM,
				       .status = SIGTERM,
				       .killed = true,
				       .left_behind = 2};
	struct lr_outcome orphaned = {.ended = true, .why = LR_END_PARENT_DIED, .status = SIGKILL};
	struct lr_denial read_d = {.op = LR_DENIED_READ,
				   .asked = NASTY,
				   .path = "/p/" NASTY,
				   .err = EACCES,
				   .pid = 42,
				   .count = 7};
	struct lr_denial unix_d = {.op = LR_DENIED_CONNECT_UNIX,
				   .asked = NASTY,
				   .abstract = true,
				   .err = EACCES,
				   .pid = 43,
				   .count = 1};
	struct lr_denial rename_d = {.op = LR_DENIED_RENAME,
				     .asked = "x",
				     .path = "/p/x",
				     .asked2 = NASTY,
				     .path2 = "/p/" NASTY,
				     .err = EXDEV,
				     .pid = 44,
				     .count = 2};
	struct lr_advice grant = {
		.kind = LR_ADVICE_GRANT, .key = "ro", .value = "/p/" NASTY, .note = NASTY};
	struct lr_advice note = {.kind = LR_ADVICE_NOTE, .note = NASTY};
	struct lr_audit a;
	char *rec[11];

	lr_audit_init(&a);
	lr_policy_init(&policy);
	lr_features_probe(&features);
	lr_plan_compute(&policy, &features, &plan);
	cr_assert_eq(lr_strlist_add(&env, "PATH=/bin"), 0);
	/* comm: the kernel's 15 bytes, which the command chose */
	memcpy(read_d.comm, "\x1b]52;c;\xff\n\"\\x\\\"", 15);
	memcpy(unix_d.comm, "plain", 6);
	memcpy(rename_d.comm, "sh", 3);
	rec[0] = lr_audit_started(&a, &in, argv, 10, 11);
	rec[1] = lr_audit_ended(&a, &exited, 3);
	rec[2] = lr_audit_ended(&a, &timeout, 139);
	rec[3] = lr_audit_ended(&a, &signalled, 143);
	rec[4] = lr_audit_ended(&a, &orphaned, 137);
	rec[5] = lr_audit_denied(&a, &read_d, &grant);
	rec[6] = lr_audit_denied(&a, &unix_d, &note);
	rec[7] = lr_audit_denied(&a, &rename_d, &note);
	rec[8] = lr_audit_egress(&a, "refused", "GET\r\n" NASTY, "evil" NASTY ".test", 0, NULL,
				 NASTY, 1);
	rec[9] = lr_audit_egress(&a, "allowed", "CONNECT", "api.example.com", 443,
				 "[2001:db8::1]:443", NULL, 4);
	rec[10] = lr_audit_capped(&a, LR_AUDIT_EGRESS_CAP);
	for (size_t i = 0; i < sizeof(rec) / sizeof(*rec); i++) {
		cr_assert_not_null(rec[i], "record %zu", i);
		cr_expect_eq(strchr(rec[i], '\n'), rec[i] + strlen(rec[i]) - 1,
			     "record %zu: one line", i);
		cr_expect_not_null(strstr(rec[i], a.run), "record %zu: the run's id", i);
	}
	parse_records(rec, sizeof(rec) / sizeof(*rec));

	expect_str(0, "event", "started");
	expect_json(0, "pid", "=10");
	expect_json(0, "command_pid", "=11");
	expect_str(0, "argv[2]", "/p/" NASTY_DECODED);
	expect_str(0, "argv[5]", NASTY_DECODED);
	cr_expect_null(field(0, "argv[6]"));
	expect_str(0, "command", "/bin/" NASTY_DECODED);
	cr_expect_not_null(field(0, "policy"));
	cr_expect_eq(*field(0, "policy"), '=', "the policy: an object");

	expect_str(1, "event", "completed");
	expect_json(1, "exit_code", "=3");
	expect_json(1, "exit_signal", "=null");
	expect_json(1, "status", "=3");
	cr_expect_null(field(1, "reason"));
	expect_str(2, "event", "cancelled");
	expect_str(2, "reason", "timeout");
	expect_str(2, "exit_signal", "SIGSEGV");
	expect_json(2, "core_dumped", "=true");
	expect_json(2, "exit_code", "=null");
	expect_str(3, "reason", "signal");
	expect_str(3, "signal", "SIGTERM");
	expect_json(3, "killed", "=true");
	expect_json(3, "left_behind", "=2");
	expect_str(4, "reason", "parent-died");
	expect_str(4, "exit_signal", "SIGKILL");

	expect_str(5, "event", "denied");
	expect_str(5, "comm", "\x1b]52;c;\xef\xbf\xbd\n\"\\x\\\"");
	expect_str(5, "what", "read " NASTY_DECODED);
	expect_str(5, "path", "/p/" NASTY_DECODED);
	expect_str(5, "errno", "EACCES");
	expect_json(5, "count", "=7");
	expect_str(5, "allowed_by", "--ro /p/" NASTY_DECODED);
	expect_str(5, "note", NASTY_DECODED);
	expect_str(6, "what", "connect to the abstract UNIX socket @" NASTY_DECODED);
	expect_json(6, "path", "=null");
	expect_json(6, "allowed_by", "=null");
	expect_str(7, "what", "rename x to " NASTY_DECODED);
	expect_str(7, "errno", "EXDEV");

	expect_str(8, "event", "egress");
	expect_str(8, "request", "GET\r\n" NASTY_DECODED);
	expect_str(8, "host", "evil" NASTY_DECODED ".test");
	expect_json(8, "port", "=null");
	expect_json(8, "address", "=null");
	expect_str(8, "reason", NASTY_DECODED);
	expect_json(8, "count", "=1");
	expect_json(9, "port", "=443");
	expect_str(9, "address", "[2001:db8::1]:443");
	expect_json(9, "reason", "=null");
	expect_str(10, "event", "capped");
	expect_str(10, "what", "egress");
	expect_json(10, "cap_bytes", "=1048576");

	for (size_t i = 0; i < sizeof(rec) / sizeof(*rec); i++)
		free(rec[i]);
	for (size_t i = 0; i < said.n; i++)
		free(said.v[i]);
	lr_strlist_free(&env);
	lr_policy_free(&policy);
}

/* A path as long as the kernel takes, made of the nastiest text: written
 * whole, every escape whole, and the record no longer than its fields
 * escaped (at most six bytes for one: \u001b). */
Test(audit_records, long_fields_are_whole_and_their_records_bounded)
{
	enum { PIECES = 4000 / (sizeof(NASTY) - 1) };
	char path[4096] = "/p/", want[8192] = "/p/", what[8192] = "write ", *rec[2];
	struct lr_denial d = {.op = LR_DENIED_WRITE, .err = EACCES, .pid = 1, .count = 1};
	struct lr_advice note = {.kind = LR_ADVICE_NOTE, .note = "n"};
	struct lr_audit a;
	size_t fields;

	for (size_t i = 0; i < PIECES; i++) {
		strcat(path, NASTY);
		strcat(want, NASTY_DECODED);
	}
	cr_assert_lt(strlen(path), 4096);
	d.path = d.asked = path;
	lr_audit_init(&a);
	rec[0] = lr_audit_denied(&a, &d, &note);
	rec[1] = lr_audit_egress(&a, "refused", "CONNECT", path, 443, NULL, path, 1);
	cr_assert(rec[0] && rec[1]);
	/* what the fields hold: the path twice in each, and little else */
	fields = 2 * strlen(path);
	cr_expect_leq(strlen(rec[0]), 6 * fields + 512, "%zu bytes", strlen(rec[0]));
	cr_expect_leq(strlen(rec[1]), 6 * fields + 512, "%zu bytes", strlen(rec[1]));
	parse_records(rec, 2);
	strcat(what, want);
	expect_str(0, "path", want);
	expect_str(0, "what", what);
	expect_str(1, "host", want);
	expect_str(1, "reason", want);
	free(rec[0]);
	free(rec[1]);
	for (size_t i = 0; i < said.n; i++)
		free(said.v[i]);
}

Test(audit_bound, a_record_past_the_cap_is_never_written_in_part)
{
	memset(&b, 0, sizeof(b));
	cr_expect_eq(lr_audit_room(&b, LR_AUDIT_EGRESS_CAP - 100), LR_AUDIT_ROOM);
	cr_expect_eq(lr_audit_room(&b, 100), LR_AUDIT_ROOM, "exactly to the cap: it fits");
	cr_expect_eq(b.bytes, (size_t)LR_AUDIT_EGRESS_CAP);
	cr_expect_eq(lr_audit_room(&b, 1), LR_AUDIT_CAP_NOW);
	cr_expect_eq(b.bytes, (size_t)LR_AUDIT_EGRESS_CAP, "the refused record is not counted");

	memset(&b, 0, sizeof(b));
	cr_expect_eq(lr_audit_room(&b, LR_AUDIT_EGRESS_CAP + 1), LR_AUDIT_CAP_NOW,
		     "one record longer than the cap");
	cr_expect_eq(b.bytes, 0);
	cr_expect_eq(lr_audit_room(&b, 1), LR_AUDIT_FULL, "and nothing after it");
	memset(&b, 0, sizeof(b));
	cr_expect_eq(lr_audit_room(&b, (size_t)-1), LR_AUDIT_CAP_NOW, "no overflow");
}

/* The proxy's way (proxy.c's decided()) with hosts as long as names go and
 * all different: what is written stays within the cap, then one "capped". */
Test(audit_bound, long_distinct_decisions_stay_within_the_cap)
{
	struct lr_audit a;
	size_t written = 0, records = 0, capped = 0;
	char host[254];

	memset(&b, 0, sizeof(b));
	lr_audit_init(&a);
	for (unsigned i = 0; i < 20000; i++) {
		unsigned long count;
		char *rec;

		memset(host, 'a' + (char)(i % 26), 253);
		snprintf(host, sizeof(host), "%u", i);
		host[strlen(host)] = '.';
		host[253] = '\0';
		count = lr_audit_repeat(
			&b, lr_audit_egress_key("refused", "CONNECT", host, 443, "not allowed"));
		cr_assert_neq(count, 0, "decision %u: all differ", i);
		rec = lr_audit_egress(&a, "refused", "CONNECT", host, 443, NULL, "not allowed",
				      count);
		cr_assert_not_null(rec);
		switch (lr_audit_room(&b, strlen(rec))) {
		case LR_AUDIT_ROOM:
			written += strlen(rec);
			records++;
			break;
		case LR_AUDIT_CAP_NOW:
			capped++;
			break;
		case LR_AUDIT_FULL:
			break;
		}
		free(rec);
	}
	cr_expect_leq(written, (size_t)LR_AUDIT_EGRESS_CAP);
	cr_expect_gt(written, (size_t)LR_AUDIT_EGRESS_CAP - 400, "%zu: the cap is used", written);
	cr_expect_eq(capped, 1);
	cr_expect_lt(records, 20000);
}
