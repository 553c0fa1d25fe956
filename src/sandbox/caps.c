/* SPDX-License-Identifier: MIT */
/*
 * The capability sets, emptied with the system calls themselves: capset(2)
 * for the effective, permitted and inheritable sets, PR_CAP_AMBIENT_CLEAR_ALL
 * for the ambient set and one PR_CAPBSET_DROP per capability of the bounding
 * set.  What the kernel then says is read back from /proc/self/status, whose
 * Cap* lines give all five sets in one read.  libcap-ng did the same with
 * five reads of that file and a PR_CAPBSET_READ per capability around the
 * drops (about 100 system calls at every start as root; 50 now), and its
 * constructor read /proc/sys/kernel/cap_last_cap at every start, root or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/sandbox/caps.h"

/* The kernel's count of capabilities is below 64 for as long as the masks of
 * /proc/self/status are 64 bits wide. */
#define CAP_MAX 64

/*
 * One capget(2) instead of libcap-ng's reads of /proc/self/status: this runs
 * at every start, and most callers hold nothing.  Ambient capabilities are
 * always in both the permitted and inheritable sets, so they are covered.
 */
bool lr_caps_privileged(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (getuid() == 0 || geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return true; /* cannot tell: assume the worst */
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return true;
	return false;
}

/* The five sets as the kernel reports them. */
struct sets {
	uint64_t inh, prm, eff, bnd, amb;
};

/* From the Cap* lines of /proc/self/status: 0, or -errno (no /proc, or a
 * file without them). */
static int read_status(struct sets *s)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "CapInh:", offsetof(struct sets, inh) }, { "CapPrm:", offsetof(struct sets, prm) },
		{ "CapEff:", offsetof(struct sets, eff) }, { "CapBnd:", offsetof(struct sets, bnd) },
		{ "CapAmb:", offsetof(struct sets, amb) },
	};
	char buf[8192];
	size_t len = 0;
	unsigned found = 0;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		char *line = strstr(buf, keys[k].key), *end;
		uint64_t v;

		if (!line || (line != buf && line[-1] != '\n'))
			continue;
		errno = 0;
		v = strtoull(line + strlen(keys[k].key), &end, 16);
		if (errno || end == line + strlen(keys[k].key) || (*end != '\n' && *end != '\0'))
			return -EIO;
		memcpy((char *)s + keys[k].off, &v, sizeof(v));
		found |= 1u << k;
	}
	return found == (1u << (sizeof(keys) / sizeof(*keys))) - 1 ? 0 : -EIO;
}

/* Without /proc: the bounding set one capability at a time (the kernel
 * answers EINVAL past the last capability it knows). */
static int read_bounding(uint64_t *bnd)
{
	*bnd = 0;
	for (int cap = 0; cap < CAP_MAX; cap++) {
		int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (r < 0)
			return errno == EINVAL && cap > 0 ? 0 : -errno;
		if (r > 0)
			*bnd |= UINT64_C(1) << cap;
	}
	return 0;
}

/* The sets now: from /proc/self/status, or else from capget(2) and the
 * bounding set's reads (ambient capabilities are in both the permitted and
 * the inheritable set, so that an empty pair has none). */
static int read_sets(struct sets *s)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int r;

	if (read_status(s) == 0)
		return 0;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	s->eff = data[0].effective | (uint64_t)data[1].effective << 32;
	s->prm = data[0].permitted | (uint64_t)data[1].permitted << 32;
	s->inh = data[0].inheritable | (uint64_t)data[1].inheritable << 32;
	s->amb = s->prm & s->inh;
	r = read_bounding(&s->bnd);
	return r;
}

/* Every capability of BND out of the bounding set (CAP_SETPCAP needed). */
static int drop_bounding(uint64_t bnd, char *err, size_t errlen)
{
	for (int cap = 0; cap < CAP_MAX; cap++) {
		if (!(bnd & (UINT64_C(1) << cap)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			int e = errno;

			lr_errf(err, errlen, "cannot drop capability %d from the bounding set: %s",
				cap, strerror(e));
			return -e;
		}
	}
	return 0;
}

int lr_caps_drop_bounding(char *err, size_t errlen)
{
	struct sets s;
	int r = read_sets(&s);

	if (r < 0) {
		lr_errf(err, errlen, "cannot read the capability bounding set: %s", strerror(-r));
		return r;
	}
	if ((r = drop_bounding(s.bnd, err, errlen)) < 0)
		return r;
	if ((r = read_sets(&s)) < 0 || s.bnd) {
		lr_errf(err, errlen, "cannot empty the capability bounding set%s%s",
			r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");
		return r < 0 ? r : -EPERM;
	}
	return 0;
}

int lr_caps_drop(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { 0 };
	struct sets s;
	int r = read_sets(&s);

	if (r < 0) {
		lr_errf(err, errlen, "cannot read the capability sets: %s", strerror(-r));
		return r;
	}
	/* the bounding set needs CAP_SETPCAP, which --user has given up
	 * (after emptying it: lr_caps_drop_bounding) */
	if ((r = drop_bounding(s.bnd, err, errlen)) < 0)
		return r;
	/* the ambient set first: it is cleared with the permitted set anyway,
	 * but a kernel without it (before 4.3) answers EINVAL */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		r = -errno;
		lr_errf(err, errlen, "cannot empty the ambient capability set: %s", strerror(-r));
		return r;
	}
	if (syscall(SYS_capset, &hdr, none) < 0) {
		r = -errno;
		lr_errf(err, errlen, "cannot empty the capability sets: %s", strerror(-r));
		return r;
	}
	/* check what the kernel now says, not what was asked */
	if ((r = read_sets(&s)) < 0) {
		lr_errf(err, errlen, "cannot read the capability sets back: %s", strerror(-r));
		return r;
	}
	if (s.eff || s.prm || s.inh || s.amb || s.bnd) {
		lr_errf(err, errlen,
			"capabilities remain after dropping them (effective %#" PRIx64
			", permitted %#" PRIx64 ", inheritable %#" PRIx64 ", ambient %#" PRIx64
			", bounding %#" PRIx64 ")",
			s.eff, s.prm, s.inh, s.amb, s.bnd);
		return -EPERM;
	}
	return 0;
}

int lr_caps_no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return -EPERM;
	return 0;
}
