/* SPDX-License-Identifier: MIT */
/*
 * Writing JSON: the strings of --explain=json and of the audit log.  Paths
 * and arguments are bytes, JSON is UTF-8: a byte that is not part of valid
 * UTF-8 is written as U+FFFD, so that every output parses.
 */
#ifndef LANDRUN_JSON_H
#define LANDRUN_JSON_H

#include <stddef.h>
#include <stdio.h>

/* LEN bytes of S as a JSON string. */
void lr_json_strn(FILE *out, const char *s, size_t len);
/* S as a JSON string, or null when S is NULL. */
void lr_json_str(FILE *out, const char *s);
/* "a", "b", ... : the strings of a NULL-terminated V (a JSON array's inside). */
void lr_json_strv(FILE *out, char *const *v);

#endif /* LANDRUN_JSON_H */
