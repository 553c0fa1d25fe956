/* SPDX-License-Identifier: MIT */
/*
 * What an executable needs from the filesystem to start: its ELF interpreter
 * and shared libraries, found by reading the ELF files and following ld.so's
 * search rules (never by running ldd, which may execute the file).
 */
#ifndef LANDRUN_ELF_H
#define LANDRUN_ELF_H

#include <stddef.h>

#include "landrun/lib/util.h"

/*
 * Append to OUT the absolute paths of everything PATH needs to be executed:
 * for a "#!" script its interpreter (recursively), for a dynamic ELF file its
 * PT_INTERP and every DT_NEEDED library, recursively, resolved as ld.so does
 * (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN/$LIB/$PLATFORM,
 * /etc/ld.so.cache, then the default directories).  LD_LIBRARY_PATH is the
 * value the command will see (NULL if none).  A static executable adds
 * nothing.  Paths already in OUT are not added twice.
 *
 * Returns 0, or -errno with a one-line explanation naming the file in ERR.
 * A library that cannot be found is an error (-ENOENT).
 */
int lr_elf_deps(const char *path, const char *ld_library_path, struct lr_strlist *out,
		char *err, size_t errlen);

/*
 * Append to OUT the interpreters the kernel opens to execute PATH, as it
 * checks them: a "#!" script's interpreter, a dynamic ELF file's PT_INTERP,
 * recursively (no libraries).  0, or -errno.
 */
int lr_elf_interpreters(const char *path, struct lr_strlist *out);

#endif /* LANDRUN_ELF_H */
