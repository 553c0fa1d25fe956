/* SPDX-License-Identifier: MIT */
/*
 * Find what an executable needs to start by reading files only: the "#!"
 * interpreter chain, PT_INTERP and the DT_NEEDED closure, resolved with
 * glibc ld.so's search order.  Nothing is ever executed.  Every offset and
 * size read from a file is checked against the file before it is used.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/lib/elf.h"
#include "landrun/lib/error.h"
#include "landrun/lib/util.h"

/* the kernel's BINPRM_MAX_RECURSION, also used for PT_INTERP */
#define LR_ELF_MAX_DEPTH 4
/* the kernel's BINPRM_BUF_SIZE: how much of a "#!" line it reads */
#define LR_ELF_SHEBANG_MAX 256
/* bounds on what a (possibly hostile) file can make us allocate */
#define LR_ELF_MAX_OBJS 4096
#define LR_ELF_MAX_PHNUM 4096
#define LR_ELF_MAX_TABLE ((uint64_t)256 << 20)

#define LR_LD_SO_CACHE "/etc/ld.so.cache"
#define LR_CACHE_MAGIC_OLD "ld.so-1.7.0"
#define LR_CACHE_MAGIC_NEW "glibc-ld.so.cache1.1"
/* struct cache_file: 11-byte magic, padding, uint32_t nlibs */
#define LR_CACHE_OLD_HDR 16
/* struct file_entry: int32_t flags; uint32_t key, value */
#define LR_CACHE_OLD_ENTRY 12
/* struct cache_file_new: magic+version, nlibs, len_strings, flags, ... */
#define LR_CACHE_NEW_HDR 48
/* struct file_entry_new: flags, key, value, osversion, uint64_t hwcap */
#define LR_CACHE_NEW_ENTRY 24
/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#define LR_CACHE_FLAGS_X8664 0x0303
/* ld.so's $LIB and $PLATFORM on Debian x86_64 */
#define LR_DST_LIB "lib/x86_64-linux-gnu"
#define LR_DST_PLATFORM "x86_64"

#define LR_NO_LOADER SIZE_MAX

static const char *const default_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
	"/usr/lib",
};

/* glibc >= 2.33 tries these below every search directory first */
static const char *const hwcaps_dirs[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2" };

struct elf_ctx {
	const char *ld_library_path;
	struct lr_strlist *out;
	char *err;
	size_t errlen;
	bool cache_tried;
	char *cache; /* all of /etc/ld.so.cache, NULL if absent or unusable */
	size_t cache_size;
	size_t cache_hdr; /* offset of the new-format header */
	uint32_t cache_nlibs;
	bool interps_only; /* lr_elf_interpreters: no libraries */
};

struct elf_info {
	char *interp;
	char *rpath; /* NULL when DT_RUNPATH is present, as in ld.so */
	char *runpath;
	char *soname;
	struct lr_strlist needed;
	bool nodeflib;
};

struct elf_obj {
	char *path; /* absolute, as found */
	char *origin; /* what $ORIGIN expands to */
	struct elf_info info;
	size_t loader; /* index of the object that needed it */
};

__attribute__((format(printf, 3, 4))) static int fail(struct elf_ctx *c, int ret,
						      const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen > 0) {
		va_start(ap, fmt);
		lr_verrf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int fail_errno(struct elf_ctx *c, int ret, const char *path)
{
	return fail(c, ret, "%s: %s", path, lr_open_strerror(ret));
}

static void info_free(struct elf_info *info)
{
	free(info->interp);
	free(info->rpath);
	free(info->runpath);
	free(info->soname);
	lr_strlist_free(&info->needed);
	memset(info, 0, sizeof(*info));
}

static bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Read exactly LEN bytes at OFF; the caller has bounds-checked the range. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	if (off > (uint64_t)INT64_MAX)
		return -EINVAL;
	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO; /* the file shrank under us */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int open_file(const char *path, int *fdp, uint64_t *sizep)
{
	struct stat st;
	int fd = lr_open_regular(path, &st);

	if (fd < 0)
		return fd;
	*fdp = fd;
	*sizep = (uint64_t)st.st_size;
	return 0;
}

static bool is_elf(const unsigned char *buf, size_t n)
{
	return n >= SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0;
}

/* An ELF header of the host's kind: 64-bit, little-endian, x86_64. */
static bool is_host_elf(const unsigned char *buf, size_t n)
{
	Elf64_Ehdr eh;

	if (n < sizeof(eh) || !is_elf(buf, n))
		return false;
	memcpy(&eh, buf, sizeof(eh));
	return eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh.e_ident[EI_VERSION] == EV_CURRENT && eh.e_machine == EM_X86_64;
}

static char *make_abs(const char *p)
{
	_cleanup_free_ char *cwd = NULL;
	char *res;

	if (p[0] == '/')
		return strdup(p);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	if (asprintf(&res, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, p) < 0)
		return NULL;
	return res;
}

/* The directory part of the absolute path P ("/" for "/x"). */
static char *dir_of(const char *p)
{
	char *d = strdup(p);
	char *slash;

	if (!d)
		return NULL;
	slash = strrchr(d, '/');
	if (slash == d)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return d;
}

/* Add P and, if it is a symlink, the file it resolves to. */
static int add_path(struct elf_ctx *c, const char *p)
{
	_cleanup_free_ char *real = NULL;
	int ret;

	if (!lr_strlist_contains(c->out, p)) {
		ret = lr_strlist_add(c->out, p);
		if (ret < 0)
			return ret;
	}
	real = realpath(p, NULL);
	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (strcmp(real, p) != 0 && !lr_strlist_contains(c->out, real)) {
		ret = lr_strlist_add(c->out, real);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Would ld.so accept PATH as a library: a regular file, an ELF of our kind? */
static bool is_candidate(const char *path)
{
	unsigned char buf[sizeof(Elf64_Ehdr)];
	_cleanup_close_ int fd = -1;
	uint64_t size;

	if (open_file(path, &fd, &size) < 0)
		return false;
	if (size < sizeof(buf) || read_at(fd, buf, sizeof(buf), 0) < 0)
		return false;
	return is_host_elf(buf, sizeof(buf));
}

/* The NUL-terminated string at IDX of a string table, or NULL. */
static const char *strtab_get(const char *tab, uint64_t size, uint64_t idx)
{
	if (!tab || idx >= size || !memchr(tab + idx, '\0', size - idx))
		return NULL;
	return tab + idx;
}

static int dup_str(const char *tab, uint64_t size, uint64_t idx, char **res)
{
	const char *s = strtab_get(tab, size, idx);

	if (!s)
		return -ENOEXEC;
	*res = strdup(s);
	return *res ? 0 : -ENOMEM;
}

/* The ELF header of the file open as FD, in *EH: of our kind, an executable
 * or a shared object. */
static int read_ehdr(struct elf_ctx *c, const char *path, int fd, uint64_t size, Elf64_Ehdr *eh)
{
	int ret;

	if (size < sizeof(*eh))
		return fail(c, -ENOEXEC, "%s: truncated ELF header", path);
	ret = read_at(fd, eh, sizeof(*eh), 0);
	if (ret < 0)
		return fail_errno(c, ret, path);
	if (!is_host_elf((const unsigned char *)eh, sizeof(*eh)))
		return fail(c, -ENOEXEC, "%s: wrong ELF class/machine", path);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return fail(c, -ENOEXEC, "%s: not an ELF executable or shared object", path);
	return 0;
}

/* The program headers EH announces (e_phnum of them), in *PHP, the
 * caller's to free. */
static int read_phdrs(struct elf_ctx *c, const char *path, int fd, uint64_t size,
		      const Elf64_Ehdr *eh, Elf64_Phdr **php)
{
	int ret;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum > LR_ELF_MAX_PHNUM ||
	    !range_ok(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size))
		return fail(c, -ENOEXEC, "%s: bad ELF program headers", path);
	*php = calloc(eh->e_phnum, sizeof(**php));
	if (!*php)
		return -ENOMEM;
	ret = read_at(fd, *php, eh->e_phnum * sizeof(**php), eh->e_phoff);
	return ret < 0 ? fail_errno(c, ret, path) : 0;
}

/* The interpreter PT (a PT_INTERP) names, in INFO->interp. */
static int read_interp(struct elf_ctx *c, const char *path, int fd, uint64_t size,
		       const Elf64_Phdr *pt, struct elf_info *info)
{
	uint64_t len = pt->p_filesz;
	int ret;

	if (len < 2 || len > PATH_MAX || !range_ok(pt->p_offset, len, size))
		return fail(c, -ENOEXEC, "%s: bad PT_INTERP", path);
	info->interp = calloc(1, len + 1);
	if (!info->interp)
		return -ENOMEM;
	ret = read_at(fd, info->interp, len, pt->p_offset);
	if (ret < 0)
		return fail_errno(c, ret, path);
	if (info->interp[0] == '\0' || !memchr(info->interp, '\0', len))
		return fail(c, -ENOEXEC, "%s: bad PT_INTERP", path);
	return 0;
}

/* The entries of the dynamic section PT (a PT_DYNAMIC), in *DYNP (the
 * caller's to free), *NDYN of them. */
static int read_dynamic(struct elf_ctx *c, const char *path, int fd, uint64_t size,
			const Elf64_Phdr *pt, Elf64_Dyn **dynp, size_t *ndyn)
{
	int ret;

	if (pt->p_filesz > LR_ELF_MAX_TABLE || !range_ok(pt->p_offset, pt->p_filesz, size))
		return fail(c, -ENOEXEC, "%s: bad PT_DYNAMIC", path);
	*ndyn = pt->p_filesz / sizeof(**dynp);
	if (*ndyn == 0)
		return 0;
	*dynp = calloc(*ndyn, sizeof(**dynp));
	if (!*dynp)
		return -ENOMEM;
	ret = read_at(fd, *dynp, *ndyn * sizeof(**dynp), pt->p_offset);
	return ret < 0 ? fail_errno(c, ret, path) : 0;
}

/* What a dynamic section says, before its strings are read. */
struct dyn_tags {
	uint64_t strtab_addr, strsz, rpath, runpath, soname;
	bool has_strtab, has_strsz, has_rpath, has_runpath, has_soname;
	size_t nneeded;
};

/* The entries of DYN (NDYN) up to DT_NULL, in *T; DT_FLAGS_1 in INFO. */
static void scan_dynamic(const Elf64_Dyn *dyn, size_t ndyn, struct dyn_tags *t,
			 struct elf_info *info)
{
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		uint64_t v = dyn[i].d_un.d_val;

		switch (dyn[i].d_tag) {
		case DT_NEEDED:
			t->nneeded++;
			break;
		case DT_STRTAB:
			t->strtab_addr = v;
			t->has_strtab = true;
			break;
		case DT_STRSZ:
			t->strsz = v;
			t->has_strsz = true;
			break;
		case DT_RPATH:
			t->rpath = v;
			t->has_rpath = true;
			break;
		case DT_RUNPATH:
			t->runpath = v;
			t->has_runpath = true;
			break;
		case DT_SONAME:
			t->soname = v;
			t->has_soname = true;
			break;
		case DT_FLAGS_1:
			info->nodeflib = v & DF_1_NODEFLIB;
			break;
		default:
			break;
		}
	}
}

/* Where in the file the dynamic string table of T is, in *OFF: DT_STRTAB is
 * a virtual address, inside the PT_LOAD (of PH, PHNUM) that holds it. */
static int find_strtab(struct elf_ctx *c, const char *path, uint64_t size, const Elf64_Phdr *ph,
		       size_t phnum, const struct dyn_tags *t, uint64_t *off)
{
	uint64_t strtab_off = 0;
	bool strtab_ok = false;

	for (size_t i = 0; i < phnum; i++) {
		if (ph[i].p_type != PT_LOAD || t->strtab_addr < ph[i].p_vaddr ||
		    t->strtab_addr - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		strtab_off = ph[i].p_offset + (t->strtab_addr - ph[i].p_vaddr);
		strtab_ok = strtab_off >= ph[i].p_offset &&
			    t->strsz <= ph[i].p_filesz - (t->strtab_addr - ph[i].p_vaddr);
		break;
	}
	/* p_filesz comes from the file too: only the file's size bounds STRSZ */
	if (!strtab_ok || t->strsz == 0 || t->strsz > LR_ELF_MAX_TABLE ||
	    !range_ok(strtab_off, t->strsz, size))
		return fail(c, -ENOEXEC, "%s: bad dynamic string table", path);
	*off = strtab_off;
	return 0;
}

/* The strings DYN (NDYN) names in STRTAB (T->strsz bytes), in INFO: the
 * DT_NEEDED, then DT_RUNPATH or DT_RPATH, and DT_SONAME. */
static int take_strings(struct elf_ctx *c, const char *path, const Elf64_Dyn *dyn, size_t ndyn,
			const char *strtab, const struct dyn_tags *t, struct elf_info *info)
{
	int ret = 0;

	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		const char *s;

		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		s = strtab_get(strtab, t->strsz, dyn[i].d_un.d_val);
		if (!s || !*s)
			return fail(c, -ENOEXEC, "%s: bad DT_NEEDED entry", path);
		if (lr_strlist_contains(&info->needed, s))
			continue;
		ret = lr_strlist_add(&info->needed, s);
		if (ret < 0)
			return ret;
	}
	/* as ld.so: when both are present, DT_RPATH is ignored */
	if (t->has_runpath)
		ret = dup_str(strtab, t->strsz, t->runpath, &info->runpath);
	else if (t->has_rpath)
		ret = dup_str(strtab, t->strsz, t->rpath, &info->rpath);
	if (ret == 0 && t->has_soname)
		ret = dup_str(strtab, t->strsz, t->soname, &info->soname);
	if (ret == -ENOEXEC)
		return fail(c, ret, "%s: bad dynamic string table index", path);
	return ret;
}

/* Parse the program headers and dynamic section of the ELF file open as FD. */
static int parse_elf(struct elf_ctx *c, const char *path, int fd, uint64_t size,
		     struct elf_info *info)
{
	_cleanup_free_ Elf64_Phdr *ph = NULL;
	_cleanup_free_ Elf64_Dyn *dyn = NULL;
	_cleanup_free_ char *strtab = NULL;
	const Elf64_Phdr *pt_interp = NULL, *pt_dynamic = NULL;
	struct dyn_tags t = { 0 };
	uint64_t strtab_off = 0;
	size_t ndyn = 0;
	Elf64_Ehdr eh;
	int ret;

	ret = read_ehdr(c, path, fd, size, &eh);
	if (ret < 0 || eh.e_phnum == 0)
		return ret;
	ret = read_phdrs(c, path, fd, size, &eh, &ph);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP && !pt_interp)
			pt_interp = &ph[i];
		else if (ph[i].p_type == PT_DYNAMIC && !pt_dynamic)
			pt_dynamic = &ph[i];
	}
	if (pt_interp) {
		ret = read_interp(c, path, fd, size, pt_interp, info);
		if (ret < 0)
			return ret;
	}
	if (!pt_dynamic)
		return 0;
	ret = read_dynamic(c, path, fd, size, pt_dynamic, &dyn, &ndyn);
	if (ret < 0 || ndyn == 0)
		return ret;
	scan_dynamic(dyn, ndyn, &t, info);
	if (!t.nneeded && !t.has_rpath && !t.has_runpath && !t.has_soname)
		return 0;
	if (!t.has_strtab || !t.has_strsz)
		return fail(c, -ENOEXEC, "%s: dynamic section without a string table", path);
	ret = find_strtab(c, path, size, ph, eh.e_phnum, &t, &strtab_off);
	if (ret < 0)
		return ret;
	strtab = malloc(t.strsz);
	if (!strtab)
		return -ENOMEM;
	ret = read_at(fd, strtab, t.strsz, strtab_off);
	if (ret < 0)
		return fail_errno(c, ret, path);
	return take_strings(c, path, dyn, ndyn, strtab, &t, info);
}

static int load_info(struct elf_ctx *c, const char *path, struct elf_info *info)
{
	_cleanup_close_ int fd = -1;
	uint64_t size;
	int ret;

	ret = open_file(path, &fd, &size);
	if (ret < 0)
		return fail_errno(c, ret, path);
	ret = parse_elf(c, path, fd, size, info);
	if (ret < 0)
		info_free(info);
	return ret;
}

/*
 * Expand $ORIGIN, $LIB, $PLATFORM (also in ${} form) in the search path
 * element S[0..LEN).  *RES is NULL when the element must be dropped ($ORIGIN
 * unknown).  An empty element means the current directory, as in ld.so.
 */
static int expand_dst(const char *s, size_t len, const char *origin, char **res)
{
	struct lr_buf b = { 0 };
	size_t i = 0;
	int ret = 0;

	*res = NULL;
	if (len == 0) {
		*res = getcwd(NULL, 0);
		return *res ? 0 : (errno == ENOMEM ? -ENOMEM : 0);
	}
	while (i < len && ret == 0) {
		const char *name, *rep = NULL;
		size_t nlen = 0, skip;

		if (s[i] != '$') {
			size_t j = i;

			while (j < len && s[j] != '$')
				j++;
			ret = lr_buf_add(&b, s + i, j - i);
			i = j;
			continue;
		}
		if (i + 1 < len && s[i + 1] == '{') {
			const char *close = memchr(s + i + 2, '}', len - i - 2);

			name = s + i + 2;
			nlen = close ? (size_t)(close - name) : 0;
			skip = close ? nlen + 3 : 0;
		} else {
			name = s + i + 1;
			while (i + 1 + nlen < len &&
			       (name[nlen] == '_' || (name[nlen] >= 'a' && name[nlen] <= 'z') ||
				(name[nlen] >= 'A' && name[nlen] <= 'Z') ||
				(name[nlen] >= '0' && name[nlen] <= '9')))
				nlen++;
			skip = nlen + 1;
		}
		if (skip && nlen == 6 && memcmp(name, "ORIGIN", 6) == 0) {
			if (!origin) {
				free(b.s);
				return 0;
			}
			rep = origin;
		} else if (skip && nlen == 3 && memcmp(name, "LIB", 3) == 0) {
			rep = LR_DST_LIB;
		} else if (skip && nlen == 8 && memcmp(name, "PLATFORM", 8) == 0) {
			rep = LR_DST_PLATFORM;
		}
		if (rep) {
			ret = lr_buf_add(&b, rep, strlen(rep));
			i += skip;
		} else {
			ret = lr_buf_add(&b, "$", 1);
			i++;
		}
	}
	if (ret < 0) {
		free(b.s);
		return ret;
	}
	*res = b.s;
	return 0;
}

/*
 * Look for NAME in DIR as ld.so does: DIR/glibc-hwcaps/<level>/NAME first,
 * then DIR/NAME.  Returns 1 and sets *FOUND, 0 if absent, or -errno.  Every
 * hwcaps variant present is granted too, since which one ld.so picks depends
 * on the CPU; the plain one is preferred as the resolved path.
 */
static int search_dir(struct elf_ctx *c, const char *dir, const char *name, char **found)
{
	const char *sep = (dir[0] && dir[strlen(dir) - 1] == '/') ? "" : "/";
	char *variant = NULL;
	char *cand;
	int ret;

	for (size_t i = 0; i < sizeof(hwcaps_dirs) / sizeof(hwcaps_dirs[0]); i++) {
		if (asprintf(&cand, "%s%sglibc-hwcaps/%s/%s", dir, sep, hwcaps_dirs[i], name) < 0) {
			free(variant);
			return -ENOMEM;
		}
		if (!is_candidate(cand)) {
			free(cand);
			continue;
		}
		ret = add_path(c, cand);
		if (ret < 0 || variant) {
			free(cand);
			if (ret < 0) {
				free(variant);
				return ret;
			}
			continue;
		}
		variant = cand;
	}
	if (asprintf(&cand, "%s%s%s", dir, sep, name) < 0) {
		free(variant);
		return -ENOMEM;
	}
	if (is_candidate(cand)) {
		free(variant);
		*found = cand;
		return 1;
	}
	free(cand);
	*found = variant;
	return variant ? 1 : 0;
}

/* Search the ld.so-style path list LIST (split at any of SEPS). */
static int search_list(struct elf_ctx *c, const char *list, const char *seps, const char *origin,
		       const char *name, char **found)
{
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, seps);
		_cleanup_free_ char *dir = NULL;
		int ret;

		ret = expand_dst(p, len, origin, &dir);
		if (ret < 0)
			return ret;
		/* ld.so takes a relative element from the current directory */
		if (dir && dir[0] != '/') {
			char *abs = make_abs(dir);

			if (!abs)
				return -ENOMEM;
			free(dir);
			dir = abs;
		}
		if (dir) {
			ret = search_dir(c, dir, name, found);
			if (ret != 0)
				return ret;
		}
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

static void cache_load(struct elf_ctx *c)
{
	_cleanup_close_ int fd = -1;
	uint64_t size, hdr = 0;
	uint32_t nlibs;
	char *buf;

	c->cache_tried = true;
	if (open_file(LR_LD_SO_CACHE, &fd, &size) < 0)
		return;
	if (size < LR_CACHE_NEW_HDR || size > LR_ELF_MAX_TABLE)
		return;
	buf = malloc(size);
	if (!buf)
		return;
	if (read_at(fd, buf, size, 0) < 0)
		goto bad;
	if (memcmp(buf, LR_CACHE_MAGIC_OLD, strlen(LR_CACHE_MAGIC_OLD)) == 0) {
		/* the old format, with the new one after its entries */
		memcpy(&nlibs, buf + 12, sizeof(nlibs));
		hdr = LR_CACHE_OLD_HDR + (uint64_t)nlibs * LR_CACHE_OLD_ENTRY;
		hdr = (hdr + 7) & ~(uint64_t)7; /* __alignof__(struct cache_file_new) */
	}
	if (!range_ok(hdr, LR_CACHE_NEW_HDR, size) ||
	    memcmp(buf + hdr, LR_CACHE_MAGIC_NEW, strlen(LR_CACHE_MAGIC_NEW)) != 0)
		goto bad;
	memcpy(&nlibs, buf + hdr + 20, sizeof(nlibs));
	/* flags: 0 = endianness unknown, 2 = little-endian */
	if ((buf[hdr + 28] & 3) != 0 && (buf[hdr + 28] & 3) != 2)
		goto bad;
	if (!range_ok(hdr + LR_CACHE_NEW_HDR, (uint64_t)nlibs * LR_CACHE_NEW_ENTRY, size))
		goto bad;
	c->cache = buf;
	c->cache_size = size;
	c->cache_hdr = hdr;
	c->cache_nlibs = nlibs;
	return;
bad:
	free(buf);
}

/* String offsets of the new format are relative to its header. */
static const char *cache_str(struct elf_ctx *c, uint32_t off)
{
	return strtab_get(c->cache + c->cache_hdr, c->cache_size - c->cache_hdr, off);
}

/* Look NAME up in /etc/ld.so.cache.  Returns 1 and sets *FOUND, 0, or -errno. */
static int search_cache(struct elf_ctx *c, const char *name, char **found)
{
	const char *variant = NULL;
	int ret;

	if (!c->cache_tried)
		cache_load(c);
	if (!c->cache)
		return 0;
	for (uint32_t i = 0; i < c->cache_nlibs; i++) {
		const char *e = c->cache + c->cache_hdr + LR_CACHE_NEW_HDR +
				(size_t)i * LR_CACHE_NEW_ENTRY;
		uint32_t flags, key, value;
		const char *k, *v;
		uint64_t hwcap;

		memcpy(&flags, e, 4);
		memcpy(&key, e + 4, 4);
		memcpy(&value, e + 8, 4);
		memcpy(&hwcap, e + 16, 8);
		if (flags != LR_CACHE_FLAGS_X8664)
			continue;
		k = cache_str(c, key);
		v = cache_str(c, value);
		if (!k || !v || strcmp(k, name) != 0 || v[0] != '/' || !is_candidate(v))
			continue;
		if (hwcap == 0) {
			*found = strdup(v);
			return *found ? 1 : -ENOMEM;
		}
		/* a glibc-hwcaps variant: ld.so may pick it, depending on the CPU */
		ret = add_path(c, v);
		if (ret < 0)
			return ret;
		if (!variant)
			variant = v;
	}
	if (!variant)
		return 0;
	*found = strdup(variant);
	return *found ? 1 : -ENOMEM;
}

/* Resolve NAME needed by OBJS[WHO] as ld.so's _dl_map_object does. */
static int resolve(struct elf_ctx *c, const struct elf_obj *objs, size_t who, const char *name,
		   char **found)
{
	const struct elf_obj *o = &objs[who];
	int ret;

	*found = NULL;
	if (strchr(name, '/')) {
		char *p = make_abs(name);

		if (!p)
			return -ENOMEM;
		if (is_candidate(p)) {
			*found = p;
			return 0;
		}
		free(p);
		return 0;
	}
	/* DT_RPATH of the object and of its loaders, unless it has DT_RUNPATH */
	if (!o->info.runpath) {
		for (size_t l = who; l != LR_NO_LOADER; l = objs[l].loader) {
			if (!objs[l].info.rpath)
				continue;
			ret = search_list(c, objs[l].info.rpath, ":", objs[l].origin, name, found);
			if (ret != 0)
				return ret < 0 ? ret : 0;
		}
	}
	if (c->ld_library_path && c->ld_library_path[0]) {
		ret = search_list(c, c->ld_library_path, ":;", objs[0].origin, name, found);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
	if (o->info.runpath) {
		ret = search_list(c, o->info.runpath, ":", o->origin, name, found);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
	if (o->info.nodeflib)
		return 0;
	ret = search_cache(c, name, found);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++) {
		ret = search_dir(c, default_dirs[i], name, found);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
	return 0;
}

static bool is_vdso(const char *name)
{
	return strcmp(name, "linux-vdso.so.1") == 0 || strcmp(name, "linux-gate.so.1") == 0;
}

static char *realpath_or_dup(const char *p)
{
	char *r = realpath(p, NULL);

	return r ? r : strdup(p);
}

static void objs_free(struct elf_obj *objs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(objs[i].path);
		free(objs[i].origin);
		info_free(&objs[i].info);
	}
	free(objs);
}

/* The objects of a DT_NEEDED closure, as it is loaded. */
struct tree {
	struct elf_obj *objs;
	size_t nobjs;
	struct lr_strlist names;	/* the names and sonames loaded */
	struct lr_strlist reals;	/* the files loaded, symlinks resolved */
};

/* The executable PATH (whose parsed headers are MAIN, taken over) as T's
 * first object; RTLD, its PT_INTERP, counted as loaded under its soname. */
static int load_root(struct elf_ctx *c, struct tree *t, const char *path, struct elf_info *main,
		     const char *rtld)
{
	struct elf_info ri = { 0 };
	struct elf_obj *o;
	char *real;
	int ret;

	o = lr_array_push(&t->objs, &t->nobjs, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->loader = LR_NO_LOADER;
	o->info = *main;
	memset(main, 0, sizeof(*main));
	o->path = make_abs(path);
	/* the executable's $ORIGIN comes from /proc/self/exe: symlinks resolved */
	real = o->path ? realpath_or_dup(o->path) : NULL;
	o->origin = real ? dir_of(real) : NULL;
	if (!o->origin) {
		free(real);
		return -ENOMEM;
	}
	ret = lr_strlist_take(&t->reals, real);
	if (ret < 0 || !rtld)
		return ret;
	ret = lr_strlist_take(&t->reals, realpath_or_dup(rtld));
	if (ret < 0)
		return ret;
	if (load_info(c, rtld, &ri) == 0 && ri.soname)
		ret = lr_strlist_add(&t->names, ri.soname);
	info_free(&ri);
	return ret;
}

/* NAME, needed by T's object WHO (of the executable PATH): resolved,
 * granted, and (a file not loaded yet) read and queued as T's next object. */
static int load_needed(struct elf_ctx *c, struct tree *t, const char *path, size_t who,
		       const char *name)
{
	_cleanup_free_ char *found = NULL;
	struct elf_info info = { 0 };
	struct elf_obj *o;
	char *real;
	int ret;

	if (is_vdso(name) || lr_strlist_contains(&t->names, name))
		return 0;
	ret = resolve(c, t->objs, who, name, &found);
	if (ret < 0)
		return ret;
	if (!found)
		return fail(c, -ENOENT, "%s: cannot find shared library %s",
			    who == 0 ? path : t->objs[who].path, name);
	ret = lr_strlist_add(&t->names, name);
	if (ret < 0)
		return ret;
	real = realpath_or_dup(found);
	if (!real)
		return -ENOMEM;
	if (lr_strlist_contains(&t->reals, real)) {
		free(real);
		return 0;
	}
	ret = lr_strlist_take(&t->reals, real);
	ret = ret ?: add_path(c, found);
	if (ret < 0)
		return ret;
	if (t->nobjs >= LR_ELF_MAX_OBJS)
		return fail(c, -E2BIG, "%s: too many shared libraries", path);
	ret = load_info(c, found, &info);
	if (ret < 0)
		return ret;
	if (info.soname && !lr_strlist_contains(&t->names, info.soname))
		ret = lr_strlist_add(&t->names, info.soname);
	o = ret < 0 ? NULL : lr_array_push(&t->objs, &t->nobjs, sizeof(*o));
	if (!o) {
		info_free(&info);
		return ret < 0 ? ret : -ENOMEM;
	}
	o->info = info;
	o->loader = who;
	o->path = found;
	found = NULL;
	/* a library's $ORIGIN is the directory it was found in */
	o->origin = dir_of(o->path);
	return o->origin ? 0 : -ENOMEM;
}

/*
 * Load the DT_NEEDED closure of the executable PATH (whose parsed headers are
 * MAIN, taken over), breadth-first like ld.so.  RTLD is its PT_INTERP, which
 * ld.so counts as loaded under its soname.
 */
static int load_tree(struct elf_ctx *c, const char *path, struct elf_info *main,
		     const char *rtld)
{
	struct tree t = { 0 };
	int ret = load_root(c, &t, path, main, rtld);

	/* T's objects grow as their needs are loaded: each is read in turn */
	for (size_t i = 0; ret == 0 && i < t.nobjs; i++)
		for (size_t j = 0; ret == 0 && j < t.objs[i].info.needed.n; j++)
			ret = load_needed(c, &t, path, i, t.objs[i].info.needed.v[j]);
	objs_free(t.objs, t.nobjs);
	lr_strlist_free(&t.names);
	lr_strlist_free(&t.reals);
	return ret;
}

static int deps_of(struct elf_ctx *c, const char *path, int depth);

/* Add the interpreter INTERP of PATH (taken over) and what it needs. */
static int add_interp(struct elf_ctx *c, const char *path, char *interp, int depth)
{
	int ret;

	if (!interp)
		return -ENOMEM;
	if (depth + 1 > LR_ELF_MAX_DEPTH) {
		free(interp);
		return fail(c, -ELOOP, "%s: too many levels of interpreters", path);
	}
	ret = add_path(c, interp);
	if (ret == 0)
		ret = deps_of(c, interp, depth + 1);
	free(interp);
	return ret;
}

static int script_deps(struct elf_ctx *c, const char *path, const unsigned char *buf, size_t n,
		       int depth)
{
	_cleanup_free_ char *word = NULL;
	size_t start = 2, end;

	while (start < n && (buf[start] == ' ' || buf[start] == '\t'))
		start++;
	end = start;
	while (end < n && buf[end] != ' ' && buf[end] != '\t' && buf[end] != '\n' &&
	       buf[end] != '\0')
		end++;
	if (end == start)
		return fail(c, -ENOEXEC, "%s: no interpreter on the \"#!\" line", path);
	if (end == n && n == LR_ELF_SHEBANG_MAX)
		return fail(c, -ENOEXEC, "%s: \"#!\" interpreter path too long", path);
	word = strndup((const char *)buf + start, end - start);
	if (!word)
		return -ENOMEM;
	return add_interp(c, path, make_abs(word), depth);
}

static int deps_of(struct elf_ctx *c, const char *path, int depth)
{
	unsigned char buf[LR_ELF_SHEBANG_MAX];
	struct elf_info info = { 0 };
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *rtld = NULL;
	uint64_t size;
	size_t n;
	int ret;

	ret = open_file(path, &fd, &size);
	if (ret < 0)
		return fail_errno(c, ret, path);
	n = size < sizeof(buf) ? (size_t)size : sizeof(buf);
	ret = read_at(fd, buf, n, 0);
	if (ret < 0)
		return fail_errno(c, ret, path);
	if (n >= 2 && buf[0] == '#' && buf[1] == '!')
		return script_deps(c, path, buf, n, depth);
	if (!is_elf(buf, n))
		return fail(c, -ENOEXEC, "%s: neither an ELF file nor a \"#!\" script", path);

	ret = parse_elf(c, path, fd, size, &info);
	if (ret < 0)
		goto out;
	if (info.interp) {
		rtld = make_abs(info.interp);
		if (!rtld) {
			ret = -ENOMEM;
			goto out;
		}
		ret = add_interp(c, path, strdup(rtld), depth);
		if (ret < 0)
			goto out;
	}
	if (!c->interps_only)
		ret = load_tree(c, path, &info, rtld);
out:
	info_free(&info);
	return ret;
}

int lr_elf_deps(const char *path, const char *ld_library_path, struct lr_strlist *out,
		char *err, size_t errlen)
{
	struct elf_ctx c = {
		.ld_library_path = ld_library_path,
		.out = out,
		.err = err,
		.errlen = errlen,
	};
	int ret;

	if (err && errlen > 0)
		err[0] = '\0';
	ret = deps_of(&c, path, 0);
	free(c.cache);
	return ret;
}

int lr_elf_interpreters(const char *path, struct lr_strlist *out)
{
	struct elf_ctx c = { .out = out, .interps_only = true };
	int ret = deps_of(&c, path, 0);

	free(c.cache);
	return ret;
}
