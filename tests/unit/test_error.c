/* SPDX-License-Identifier: MIT */
/* The one way an error line is written (lib/error.h): what fits is kept
 * whole; what does not ends in "...", never cut silently; LR_ERR_MAX holds
 * two paths of PATH_MAX and the words around them. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "landrun/lib/error.h"

Test(error, a_line_that_fits_is_whole)
{
	char err[32];

	lr_errf(err, sizeof(err), "--rw %s: %s", "/srv", "missing");
	cr_assert_str_eq(err, "--rw /srv: missing");
	/* exactly full: 31 characters and the NUL, no mark */
	lr_errf(err, sizeof(err), "%s", "0123456789012345678901234567890");
	cr_assert_str_eq(err, "0123456789012345678901234567890");
}

Test(error, a_line_cut_ends_in_dots)
{
	char err[16];

	/* the control: a byte more than fits */
	lr_errf(err, sizeof(err), "%s", "0123456789abcdef");
	cr_assert_eq(strlen(err), sizeof(err) - 1);
	cr_assert_str_eq(err, "0123456789ab...");
}

Test(error, fail_returns_its_status)
{
	char err[64];

	cr_assert_eq(lr_fail(err, sizeof(err), -EACCES, "--ro %s", "/x"), -EACCES);
	cr_assert_str_eq(err, "--ro /x");
	/* no buffer: nothing written, the status still returned */
	cr_assert_eq(lr_fail(NULL, 0, -ENOENT, "%s", "x"), -ENOENT);
}

Test(error, two_long_paths_fit)
{
	static char a[PATH_MAX], b[PATH_MAX], err[LR_ERR_MAX];

	memset(a, 'a', sizeof(a) - 1);
	memset(b, 'b', sizeof(b) - 1);
	lr_errf(err, sizeof(err), "--rw %s: cannot be carved around %s: %s", a, b,
		strerror(ENAMETOOLONG));
	cr_assert_eq(strlen(err), strlen("--rw ") + strlen(a) +
					  strlen(": cannot be carved around ") + strlen(b) +
					  strlen(": ") + strlen(strerror(ENAMETOOLONG)));
	cr_assert_null(strstr(err, "..."));
}
