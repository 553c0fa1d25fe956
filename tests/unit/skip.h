/* SPDX-License-Identifier: MIT */
/*
 * skip.h - the one way a unit test skips.  In strict mode
 * (LANDRUN_TEST_STRICT=1, which scripts/test.sh sets in CI) a skip is a
 * failure, unless it names a kernel feature the machine lacks (KERNEL true):
 * CI must have every tool the tests need, but cannot choose its kernel.
 * docs/development.md lists the kernel features a skip may name.
 */
#ifndef LR_TEST_SKIP_H
#define LR_TEST_SKIP_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static inline int lr_test_strict(void)
{
	const char *s = getenv("LANDRUN_TEST_STRICT");

	return s && !strcmp(s, "1");
}

/* lr_skip_test(KERNEL, "reason", ...): skip the test, or fail it when strict
 * and the reason is not a missing kernel feature */
#define lr_skip_test(kernel, ...)                                                               \
	do {                                                                                    \
		if (!(kernel) && lr_test_strict())                                              \
			cr_assert_fail("LANDRUN_TEST_STRICT=1: a skip that names no missing kernel " \
				 "feature: " __VA_ARGS__);                                      \
		cr_skip_test(__VA_ARGS__);                                                      \
	} while (0)

#endif
