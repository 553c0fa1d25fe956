/* SPDX-License-Identifier: MIT */
/* The audit log's bound on egress records (egress/records.h): repeats, the cap. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "landrun/egress/records.h"
#include "landrun/supervisor/audit.h"

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
