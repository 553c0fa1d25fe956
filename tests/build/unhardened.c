/* SPDX-License-Identifier: MIT */
/*
 * The control for hardening.py: built without any of the hardening, it must
 * fail every check.  A large frame (for the stack-clash check) and a copy
 * into a buffer of known size (what FORTIFY would check).
 */
#include <stdio.h>
#include <string.h>

int lr_unhardened_frame(const char *s);

int lr_unhardened_frame(const char *s)
{
	char big[8192];

	strcpy(big, s);
	return puts(big);
}

int main(int argc, char **argv)
{
	return lr_unhardened_frame(argc > 1 ? argv[1] : "");
}
