/* SPDX-License-Identifier: MIT */
/*
 * lr_elf_deps() against real system binaries and against small programs and
 * libraries built here with cc, then against corrupted copies of them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "landrun/lib/elf.h"
#include "landrun/lib/util.h"

static char dir[PATH_MAX];
static struct lr_strlist out;
static char err[512];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void setup(void)
{
	char tmpl[] = "/tmp/lr-test-elf-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	/* $ORIGIN is the realpath of the executable's directory */
	cr_assert_not_null(realpath(tmpl, dir));
	memset(&out, 0, sizeof(out));
	err[0] = '\0';
}

static void teardown(void)
{
	lr_strlist_free(&out);
	if (dir[0])
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(elf, .init = setup, .fini = teardown, .timeout = 60);

/* DIR/NAME in a static buffer (one of a few, so several can be live). */
static const char *at(const char *name)
{
	static char bufs[8][PATH_MAX];
	static unsigned int i;
	char *b = bufs[i++ % 8];
	int n = snprintf(b, PATH_MAX, "%s/%s", dir, name);

	cr_assert(n > 0 && n < PATH_MAX);
	return b;
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	FILE *f = fopen(at(name), "w");

	cr_assert_not_null(f, "fopen %s", at(name));
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(at(name), mode), 0);
}

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < sizeof(cmd));
	cr_assert_eq(system(cmd), 0, "command failed: %s", cmd);
}

static int deps(const char *path, const char *llp)
{
	return lr_elf_deps(path, llp, &out, err, sizeof(err));
}

static bool has(const char *p)
{
	return lr_strlist_contains(&out, p);
}

static bool has_suffix(const char *suffix)
{
	size_t sl = strlen(suffix);

	for (size_t i = 0; i < out.n; i++) {
		size_t l = strlen(out.v[i]);

		if (l >= sl && strcmp(out.v[i] + l - sl, suffix) == 0)
			return true;
	}
	return false;
}

/* Every entry absolute, existing and listed once. */
static void assert_sane(void)
{
	for (size_t i = 0; i < out.n; i++) {
		cr_assert_eq(out.v[i][0], '/', "not absolute: %s", out.v[i]);
		cr_assert_eq(access(out.v[i], F_OK), 0, "does not exist: %s", out.v[i]);
		for (size_t j = i + 1; j < out.n; j++)
			cr_assert_str_neq(out.v[i], out.v[j], "listed twice: %s", out.v[i]);
	}
	cr_assert_null(out.v ? out.v[out.n] : NULL);
}

static void assert_has_interp(void)
{
	char real[PATH_MAX];

	cr_assert_not_null(realpath("/lib64/ld-linux-x86-64.so.2", real));
	cr_assert(has("/lib64/ld-linux-x86-64.so.2") || has(real), "no ELF interpreter in list");
	/* a symlink's target is what Landlock checks, so it must be there too */
	cr_assert(has(real), "realpath %s of the interpreter is missing", real);
}

static const char *ls_path(void)
{
	return access("/bin/ls", X_OK) == 0 ? "/bin/ls" : "/usr/bin/ls";
}

/* libfoo.so in DIR/LIBDIR and prog in DIR linked against it with LDFLAGS. */
static void build_prog(const char *libdir, const char *ldflags)
{
	write_file("foo.c", "int foo(void) { return 42; }\n", 0644);
	write_file("main.c", "int foo(void);\nint main(void) { return foo() == 42 ? 0 : 1; }\n",
		   0644);
	sh("mkdir -p '%s/%s' && cc -shared -fPIC -Wl,-soname,libfoo.so -o '%s/%s/libfoo.so' "
	   "'%s/foo.c'",
	   dir, libdir, dir, libdir, dir);
	sh("cc -o '%s/prog' '%s/main.c' -L'%s/%s' -lfoo %s", dir, dir, dir, libdir, ldflags);
}

Test(elf, ls_has_interpreter_and_libc)
{
	cr_assert_eq(deps(ls_path(), NULL), 0, "%s", err);
	assert_has_interp();
	cr_assert(has_suffix("/libc.so.6"), "no libc.so.6");
	assert_sane();
}

Test(elf, deterministic_and_no_duplicates_across_calls)
{
	struct lr_strlist first = { 0 };

	cr_assert_eq(deps(ls_path(), NULL), 0, "%s", err);
	for (size_t i = 0; i < out.n; i++)
		cr_assert_eq(lr_strlist_add(&first, out.v[i]), 0);
	lr_strlist_free(&out);
	cr_assert_eq(deps(ls_path(), NULL), 0, "%s", err);
	cr_assert_eq(out.n, first.n);
	for (size_t i = 0; i < out.n; i++)
		cr_assert_str_eq(out.v[i], first.v[i]);
	/* a second call into the same list adds nothing new */
	cr_assert_eq(deps(ls_path(), NULL), 0, "%s", err);
	cr_assert_eq(out.n, first.n);
	lr_strlist_free(&first);
}

Test(elf, keeps_existing_entries)
{
	cr_assert_eq(lr_strlist_add(&out, "/already/here"), 0);
	cr_assert_eq(deps(ls_path(), NULL), 0, "%s", err);
	cr_assert_str_eq(out.v[0], "/already/here");
	cr_assert(out.n > 2);
}

Test(elf, static_binary_has_no_deps)
{
	write_file("s.c", "int main(void) { return 0; }\n", 0644);
	sh("cc -static -o '%s/static' '%s/s.c'", dir, dir);
	cr_assert_eq(deps(at("static"), NULL), 0, "%s", err);
	cr_assert_eq(out.n, 0, "static binary got %zu deps, first %s", out.n,
		     out.n ? out.v[0] : "");
}

Test(elf, static_pie_has_no_deps)
{
	write_file("s.c", "int main(void) { return 0; }\n", 0644);
	sh("cc -static-pie -fPIE -o '%s/spie' '%s/s.c'", dir, dir);
	cr_assert_eq(deps(at("spie"), NULL), 0, "%s", err);
	cr_assert_eq(out.n, 0);
}

Test(elf, script_gets_interpreter_and_its_libs)
{
	char real[PATH_MAX];

	write_file("script", "#!/bin/sh\necho hi\n", 0755);
	cr_assert_eq(deps(at("script"), NULL), 0, "%s", err);
	cr_assert(has("/bin/sh"));
	cr_assert_not_null(realpath("/bin/sh", real));
	cr_assert(has(real), "realpath %s of /bin/sh missing", real);
	assert_has_interp();
	cr_assert(has_suffix("/libc.so.6"));
	assert_sane();
}

Test(elf, script_with_spaces_and_argument)
{
	write_file("script", "#!  \t/bin/sh -e\nexit 0\n", 0755);
	cr_assert_eq(deps(at("script"), NULL), 0, "%s", err);
	cr_assert(has("/bin/sh"));
	cr_assert(!has("-e") && !has("/bin/sh -e"));
}

Test(elf, script_chain_of_scripts)
{
	char line[PATH_MAX + 16];

	write_file("inner", "#!/bin/sh\n", 0755);
	snprintf(line, sizeof(line), "#!%s\n", at("inner"));
	write_file("outer", line, 0755);
	cr_assert_eq(deps(at("outer"), NULL), 0, "%s", err);
	cr_assert(has(at("inner")));
	cr_assert(has("/bin/sh"));
}

Test(elf, script_loop_is_eloop)
{
	char line[PATH_MAX + 16];

	snprintf(line, sizeof(line), "#!%s\n", at("self"));
	write_file("self", line, 0755);
	cr_assert_eq(deps(at("self"), NULL), -ELOOP);
	cr_assert(strstr(err, at("self")), "err: %s", err);
}

Test(elf, script_without_interpreter)
{
	write_file("empty", "#!   \n", 0755);
	cr_assert_eq(deps(at("empty"), NULL), -ENOEXEC);
	write_file("missing", "#!/nonexistent/interp\n", 0755);
	cr_assert_eq(deps(at("missing"), NULL), -ENOENT);
	cr_assert(strstr(err, "/nonexistent/interp"), "err: %s", err);
}

Test(elf, text_file_is_enoexec)
{
	write_file("text", "just some text\n", 0644);
	cr_assert_eq(deps(at("text"), NULL), -ENOEXEC);
	cr_assert(strstr(err, at("text")), "err does not name the file: %s", err);
	write_file("empty", "", 0644);
	cr_assert_eq(deps(at("empty"), NULL), -ENOEXEC);
}

Test(elf, missing_file_is_enoent)
{
	cr_assert_eq(deps(at("nope"), NULL), -ENOENT);
	cr_assert(strstr(err, "nope"), "err: %s", err);
	cr_assert_eq(out.n, 0);
}

Test(elf, directory_is_an_error)
{
	cr_assert_lt(deps(dir, NULL), 0);
}

Test(elf, truncated_elf_is_an_error)
{
	sh("head -c 100 '%s' > '%s/trunc'", ls_path(), dir);
	cr_assert_lt(deps(at("trunc"), NULL), 0);
	cr_assert_neq(err[0], '\0');
	sh("head -c 2000 '%s' > '%s/trunc2'", ls_path(), dir);
	cr_assert_lt(deps(at("trunc2"), NULL), 0);
	sh("head -c 4 '%s' > '%s/trunc3'", ls_path(), dir);
	cr_assert_eq(deps(at("trunc3"), NULL), -ENOEXEC);
}

static void patch(const char *name, off_t off, const void *p, size_t len)
{
	int fd = open(at(name), O_WRONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, p, len, off), (ssize_t)len);
	cr_assert_eq(close(fd), 0);
}

Test(elf, wrong_class_or_machine)
{
	unsigned char c32 = ELFCLASS32;
	uint16_t arm = EM_AARCH64;

	sh("cp '%s' '%s/c32' && cp '%s' '%s/arm'", ls_path(), dir, ls_path(), dir);
	patch("c32", EI_CLASS, &c32, 1);
	patch("arm", offsetof(Elf64_Ehdr, e_machine), &arm, 2);
	cr_assert_eq(deps(at("c32"), NULL), -ENOEXEC);
	cr_assert(strstr(err, "wrong ELF class/machine") && strstr(err, at("c32")), "err: %s",
		  err);
	cr_assert_eq(deps(at("arm"), NULL), -ENOEXEC);
	cr_assert(strstr(err, "wrong ELF class/machine") && strstr(err, at("arm")), "err: %s",
		  err);
}

Test(elf, origin_runpath_resolves_and_missing_lib_is_enoent)
{
	build_prog(".", "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN'");
	sh("'%s/prog'", dir); /* a positive control: the loader agrees */
	cr_assert_eq(deps(at("prog"), NULL), 0, "%s", err);
	cr_assert(has(at("libfoo.so")), "libfoo.so not resolved in %s", dir);
	assert_has_interp();
	assert_sane();

	lr_strlist_free(&out);
	cr_assert_eq(unlink(at("libfoo.so")), 0);
	cr_assert_eq(deps(at("prog"), NULL), -ENOENT);
	cr_assert(strstr(err, "cannot find shared library libfoo.so"), "err: %s", err);
	cr_assert(strstr(err, "prog"), "err does not name the program: %s", err);
}

Test(elf, origin_braces_lib_and_rpath)
{
	build_prog("lib/x86_64-linux-gnu", "-Wl,--disable-new-dtags -Wl,-rpath,'${ORIGIN}/$LIB'");
	cr_assert_eq(deps(at("prog"), NULL), 0, "%s", err);
	cr_assert(has(at("lib/x86_64-linux-gnu/libfoo.so")));
}

Test(elf, ld_library_path_argument)
{
	build_prog("sub", "");
	cr_assert_eq(deps(at("prog"), NULL), -ENOENT);
	cr_assert(strstr(err, "libfoo.so"), "err: %s", err);
	lr_strlist_free(&out);

	cr_assert_eq(deps(at("prog"), at("sub")), 0, "%s", err);
	cr_assert(has(at("sub/libfoo.so")));
	lr_strlist_free(&out);

	/* other elements, ';' as separator, and a trailing slash are fine */
	char llp[3 * PATH_MAX];

	snprintf(llp, sizeof(llp), "/nonexistent;%s:%s/", dir, at("sub"));
	cr_assert_eq(deps(at("prog"), llp), 0, "%s", err);
	cr_assert(has(at("sub/libfoo.so")));
}

Test(elf, incompatible_candidates_are_skipped)
{
	char llp[2 * PATH_MAX + 2];

	build_prog("good", "");
	sh("mkdir '%s/bad' && echo notelf > '%s/bad/libfoo.so'", dir, dir);
	sh("mkdir '%s/bad32' && cp '%s/good/libfoo.so' '%s/bad32/libfoo.so'", dir, dir, dir);
	unsigned char c32 = ELFCLASS32;
	patch("bad32/libfoo.so", EI_CLASS, &c32, 1);
	sh("mkdir '%s/bad/libfoo.so.d' && mkdir '%s/dirlib' && mkdir '%s/dirlib/libfoo.so'", dir,
	   dir, dir);

	snprintf(llp, sizeof(llp), "%s:%s:%s:%s", at("bad"), at("bad32"), at("dirlib"),
		 at("good"));
	cr_assert_eq(deps(at("prog"), llp), 0, "%s", err);
	cr_assert(has(at("good/libfoo.so")));
	cr_assert(!has(at("bad/libfoo.so")) && !has(at("bad32/libfoo.so")));
}

/* Precedence: DT_RPATH > LD_LIBRARY_PATH > DT_RUNPATH. */
Test(elf, search_order)
{
	build_prog("a", "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/a'");
	sh("mkdir '%s/b' && cp '%s/a/libfoo.so' '%s/b/'", dir, dir, dir);
	cr_assert_eq(deps(at("prog"), at("b")), 0, "%s", err);
	cr_assert(has(at("b/libfoo.so")) && !has(at("a/libfoo.so")),
		  "LD_LIBRARY_PATH must beat DT_RUNPATH");
	lr_strlist_free(&out);

	sh("cc -o '%s/prog' '%s/main.c' -L'%s/a' -lfoo -Wl,--disable-new-dtags "
	   "-Wl,-rpath,'$ORIGIN/a'",
	   dir, dir, dir);
	cr_assert_eq(deps(at("prog"), at("b")), 0, "%s", err);
	cr_assert(has(at("a/libfoo.so")) && !has(at("b/libfoo.so")),
		  "DT_RPATH must beat LD_LIBRARY_PATH");
}

/* A library's own RUNPATH and $ORIGIN apply to its own dependencies. */
Test(elf, transitive_deps_use_their_own_origin)
{
	write_file("qux.c", "int qux(void) { return 42; }\n", 0644);
	write_file("foo.c", "int qux(void);\nint foo(void) { return qux(); }\n", 0644);
	write_file("main.c", "int foo(void);\nint main(void) { return foo() == 42 ? 0 : 1; }\n",
		   0644);
	sh("mkdir -p '%s/lib/deep' && cc -shared -fPIC -o '%s/lib/deep/libqux.so' '%s/qux.c'", dir,
	   dir, dir);
	sh("cc -shared -fPIC -o '%s/lib/libfoo.so' '%s/foo.c' -L'%s/lib/deep' -lqux "
	   "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/deep'",
	   dir, dir, dir);
	sh("cc -o '%s/prog' '%s/main.c' -L'%s/lib' -lfoo -Wl,--enable-new-dtags "
	   "-Wl,-rpath,'$ORIGIN/lib' -Wl,-rpath-link,'%s/lib/deep'",
	   dir, dir, dir, dir);
	sh("'%s/prog'", dir);
	cr_assert_eq(deps(at("prog"), NULL), 0, "%s", err);
	cr_assert(has(at("lib/libfoo.so")));
	cr_assert(has(at("lib/deep/libqux.so")));
	assert_sane();

	/* the RUNPATH of prog does not apply to libfoo's own needs */
	lr_strlist_free(&out);
	sh("cc -shared -fPIC -o '%s/lib/libfoo.so' '%s/foo.c' -L'%s/lib/deep' -lqux", dir, dir,
	   dir);
	cr_assert_eq(deps(at("prog"), NULL), -ENOENT);
	cr_assert(strstr(err, "libfoo.so: cannot find shared library libqux.so"), "err: %s", err);
}

Test(elf, symlinked_program_uses_real_origin_and_target_is_listed)
{
	char real[PATH_MAX];

	build_prog(".", "-Wl,-rpath,'$ORIGIN'");
	sh("mkdir '%s/bin' && ln -s ../prog '%s/bin/link'", dir, dir);
	sh("mv '%s/libfoo.so' '%s/libfoo.so.1' && ln -s libfoo.so.1 '%s/libfoo.so'", dir, dir,
	   dir);
	cr_assert_eq(deps(at("bin/link"), NULL), 0, "%s", err);
	cr_assert(has(at("libfoo.so")));
	cr_assert_not_null(realpath(at("libfoo.so"), real));
	cr_assert_str_eq(real, at("libfoo.so.1"));
	cr_assert(has(real), "symlink target %s missing", real);
}

Test(elf, small_error_buffer_is_respected)
{
	char small[9];

	memset(small, 'X', sizeof(small));
	cr_assert_eq(lr_elf_deps(at("a-rather-long-missing-file-name"), NULL, &out, small, 8),
		     -ENOENT);
	cr_assert_eq(small[7], '\0');
	cr_assert_eq(small[8], 'X');
	cr_assert_eq(lr_elf_deps(at("x"), NULL, &out, NULL, 0), -ENOENT);
}

/* Where the dynamic section and its entries are in a file built here. */
struct dyn_loc {
	off_t dyn_off;
	size_t ndyn;
	Elf64_Ehdr eh;
};

static void read_file(const char *name, void *buf, size_t len, off_t off)
{
	int fd = open(at(name), O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, buf, len, off), (ssize_t)len);
	cr_assert_eq(close(fd), 0);
}

static struct dyn_loc locate(const char *name)
{
	struct dyn_loc d = { 0 };

	read_file(name, &d.eh, sizeof(d.eh), 0);
	for (int i = 0; i < d.eh.e_phnum; i++) {
		Elf64_Phdr ph;

		read_file(name, &ph, sizeof(ph), (off_t)(d.eh.e_phoff + i * sizeof(ph)));
		if (ph.p_type == PT_DYNAMIC) {
			d.dyn_off = (off_t)ph.p_offset;
			d.ndyn = ph.p_filesz / sizeof(Elf64_Dyn);
		}
	}
	cr_assert_neq(d.dyn_off, 0);
	return d;
}

/* Set the value of the first dynamic entry with TAG in a copy of prog. */
static void patch_dyn(const char *name, Elf64_Sxword tag, uint64_t val)
{
	struct dyn_loc d;

	sh("cp '%s/prog' '%s/%s'", dir, dir, name);
	d = locate(name);
	for (size_t i = 0; i < d.ndyn; i++) {
		Elf64_Dyn dy;
		off_t off = d.dyn_off + (off_t)(i * sizeof(dy));

		read_file(name, &dy, sizeof(dy), off);
		if (dy.d_tag == tag) {
			dy.d_un.d_val = val;
			patch(name, off, &dy, sizeof(dy));
			return;
		}
	}
	cr_assert_fail("no dynamic tag %ld in %s", (long)tag, name);
}

Test(elf, hostile_headers_are_rejected)
{
	uint64_t huge = UINT64_MAX - 8;
	uint16_t many = 0xffff, badsize = 17;

	build_prog(".", "-Wl,-rpath,'$ORIGIN'");
	sh("cp '%s/prog' '%s/phoff' && cp '%s/prog' '%s/phnum' && cp '%s/prog' '%s/phsize'", dir,
	   dir, dir, dir, dir, dir);
	patch("phoff", offsetof(Elf64_Ehdr, e_phoff), &huge, sizeof(huge));
	patch("phnum", offsetof(Elf64_Ehdr, e_phnum), &many, sizeof(many));
	patch("phsize", offsetof(Elf64_Ehdr, e_phentsize), &badsize, sizeof(badsize));
	cr_assert_eq(deps(at("phoff"), NULL), -ENOEXEC);
	cr_assert_eq(deps(at("phnum"), NULL), -ENOEXEC);
	cr_assert_eq(deps(at("phsize"), NULL), -ENOEXEC);

	patch_dyn("needed", DT_NEEDED, UINT64_MAX);
	cr_assert_eq(deps(at("needed"), NULL), -ENOEXEC);
	patch_dyn("strsz", DT_STRSZ, UINT64_MAX / 2);
	cr_assert_eq(deps(at("strsz"), NULL), -ENOEXEC);
	patch_dyn("strtab", DT_STRTAB, UINT64_MAX - 100);
	cr_assert_eq(deps(at("strtab"), NULL), -ENOEXEC);
	patch_dyn("rpath", DT_RUNPATH, 0x7fffffff);
	cr_assert_eq(deps(at("rpath"), NULL), -ENOEXEC);
	/* a string table cut so that no string is terminated inside it */
	patch_dyn("strsz1", DT_STRSZ, 1);
	cr_assert_lt(deps(at("strsz1"), NULL), 0);
	cr_assert_neq(err[0], '\0');
}

/* Random corruption of a dynamic executable: any result but a crash. */
Test(elf, random_corruption_does_not_crash)
{
	struct stat st;
	struct dyn_loc d;

	build_prog(".", "-Wl,-rpath,'$ORIGIN'");
	d = locate("prog");
	cr_assert_eq(stat(at("prog"), &st), 0);
	srand(12345);
	for (int round = 0; round < 200; round++) {
		sh("cp '%s/prog' '%s/fuzz'", dir, dir);
		for (int k = 0; k < 1 + round % 8; k++) {
			off_t off;
			unsigned char b = (unsigned char)rand();

			switch (rand() % 3) {
			case 0: /* ELF and program headers */
				off = rand() % (off_t)(d.eh.e_phoff + d.eh.e_phnum * sizeof(Elf64_Phdr));
				break;
			case 1: /* dynamic section */
				off = d.dyn_off + rand() % (off_t)(d.ndyn * sizeof(Elf64_Dyn));
				break;
			default:
				off = rand() % st.st_size;
				break;
			}
			patch("fuzz", off, &b, 1);
		}
		lr_strlist_free(&out);
		int ret = deps(at("fuzz"), NULL);

		cr_assert(ret == 0 || (ret < 0 && err[0]) || ret == -ENOMEM, "round %d: %d", round,
			  ret);
		for (size_t i = 0; i < out.n; i++)
			cr_assert_eq(out.v[i][0], '/');
	}
}

/*
 * A FIFO planted where --ldd looks must not hang landrun at start: an open
 * of it would wait for a writer forever.  The alarm turns a hang into a
 * failure long before Criterion's timeout.  Devices are refused too.
 */
Test(elf, fifo_or_device_interpreter_is_refused_without_hanging)
{
	char line[PATH_MAX + 16];

	alarm(10);
	cr_assert_eq(mkfifo(at("fifo"), 0755), 0);
	snprintf(line, sizeof(line), "#!%s\n", at("fifo"));
	write_file("script", line, 0755);
	cr_assert_eq(deps(at("script"), NULL), -EINVAL);
	cr_assert(strstr(err, at("fifo")) && strstr(err, "not a regular file"), "err: %s", err);

	write_file("dev", "#!/dev/null\n", 0755);
	cr_assert_eq(deps(at("dev"), NULL), -EINVAL);
	cr_assert(strstr(err, "/dev/null: not a regular file"), "err: %s", err);

	/* PT_INTERP naming a FIFO */
	write_file("main.c", "int main(void) { return 0; }\n", 0644);
	sh("cc -o '%s/prog' '%s/main.c' -Wl,--dynamic-linker='%s'", dir, dir, at("fifo"));
	cr_assert_eq(deps(at("prog"), NULL), -EINVAL);
	cr_assert(strstr(err, "not a regular file"), "err: %s", err);

	/* the control: the same script with a regular interpreter */
	cr_assert_eq(unlink(at("fifo")), 0);
	cr_assert_eq(symlink("/bin/sh", at("fifo")), 0);
	lr_strlist_free(&out);
	cr_assert_eq(deps(at("script"), NULL), 0, "%s", err);
	cr_assert(has(at("fifo")));
	assert_has_interp();
}

Test(elf, fifo_libraries_on_the_search_path_are_skipped)
{
	char llp[2 * PATH_MAX + 2];

	alarm(10);
	build_prog("good", "");
	sh("mkdir -p '%s/bad/glibc-hwcaps/x86-64-v3'", dir);
	cr_assert_eq(mkfifo(at("bad/libfoo.so"), 0755), 0);
	cr_assert_eq(mkfifo(at("bad/glibc-hwcaps/x86-64-v3/libfoo.so"), 0755), 0);
	snprintf(llp, sizeof(llp), "%s:%s", at("bad"), at("good"));
	cr_assert_eq(deps(at("prog"), llp), 0, "%s", err);
	cr_assert(has(at("good/libfoo.so")));
	cr_assert(!has(at("bad/libfoo.so")) && !has(at("bad/glibc-hwcaps/x86-64-v3/libfoo.so")));
	/* the control: only the FIFOs in bad/ stood in the way */
	lr_strlist_free(&out);
	cr_assert_eq(unlink(at("bad/libfoo.so")), 0);
	sh("cp '%s/good/libfoo.so' '%s/bad/libfoo.so'", dir, dir);
	cr_assert_eq(deps(at("prog"), llp), 0, "%s", err);
	cr_assert(has(at("bad/libfoo.so")) && !has(at("good/libfoo.so")));
}

/* Set the file size of the PT_LOAD that holds the dynamic string table. */
static void patch_load_filesz(const char *name, uint64_t filesz)
{
	struct dyn_loc d = locate(name);

	for (int i = 0; i < d.eh.e_phnum; i++) {
		off_t off = (off_t)(d.eh.e_phoff + i * sizeof(Elf64_Phdr));
		Elf64_Phdr ph;

		read_file(name, &ph, sizeof(ph), off);
		if (ph.p_type == PT_LOAD && ph.p_offset == 0) {
			ph.p_filesz = filesz;
			patch(name, off, &ph, sizeof(ph));
			return;
		}
	}
	cr_assert_fail("no PT_LOAD at offset 0 in %s", name);
}

/*
 * A DT_STRSZ that its PT_LOAD's (hostile) p_filesz allows but the file does
 * not: refused before anything is allocated.  Under AddressSanitizer
 * (scripts/test.sh runs the unit tests so), an allocation this large aborts.
 */
Test(elf, string_table_larger_than_the_file_is_refused_before_malloc)
{
	static const uint64_t sizes[] = { (uint64_t)1 << 40, (uint64_t)1 << 62 };

	build_prog(".", "-Wl,-rpath,'$ORIGIN'");
	cr_assert_eq(deps(at("prog"), NULL), 0, "the control: %s", err);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		patch_dyn("big", DT_STRSZ, sizes[i]);
		patch_load_filesz("big", UINT64_MAX / 2);
		cr_assert_eq(deps(at("big"), NULL), -ENOEXEC, "DT_STRSZ %#llx",
			     (unsigned long long)sizes[i]);
		cr_assert(strstr(err, "bad dynamic string table"), "err: %s", err);
	}
}

/* A relative LD_LIBRARY_PATH element is taken from the current directory,
 * as ld.so does, and what is found is still listed by its absolute path. */
Test(elf, relative_search_path_gives_absolute_paths)
{
	char cwd[PATH_MAX];

	build_prog("sub", "");
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(deps("prog", "sub"), 0, "%s", err);
	cr_assert_eq(chdir(cwd), 0);
	cr_assert(has(at("sub/libfoo.so")), "libfoo.so not listed by its absolute path");
	assert_sane();
}
