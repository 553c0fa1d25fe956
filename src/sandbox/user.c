/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "landrun/lib/error.h"
#include "landrun/lib/util.h"
#include "landrun/sandbox/caps.h"
#include "landrun/sandbox/user.h"

/* A decimal id, not -1 (which set*id calls take as "unchanged"). */
static bool parse_id(const char *s, unsigned *id)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= UINT_MAX)
		return false;
	*id = (unsigned)v;
	return true;
}

/* The entry of PASSWD for NAME, or for UID when NAME is NULL: 0 if found,
 * NOT_FOUND, or -errno if the file cannot be read. */
#define NOT_FOUND 1

static int find_user(const char *passwd, const char *name, uid_t uid, uid_t *out_uid,
		     gid_t *out_gid)
{
	FILE *f = fopen(passwd, "re");
	struct passwd *pw;
	int r = NOT_FOUND;

	if (!f)
		return -errno;
	errno = 0;
	while ((pw = fgetpwent(f))) {
		if (name ? strcmp(pw->pw_name, name) == 0 : pw->pw_uid == uid) {
			*out_uid = pw->pw_uid;
			*out_gid = pw->pw_gid;
			r = 0;
			break;
		}
	}
	/* fgetpwent says ENOENT at the end of the file */
	if (!pw && errno && errno != ENOENT)
		r = -errno;
	fclose(f);
	return r;
}

static int find_group(const char *group, const char *name, gid_t *out)
{
	FILE *f = fopen(group, "re");
	struct group *gr;
	int r = NOT_FOUND;

	if (!f)
		return -errno;
	errno = 0;
	while ((gr = fgetgrent(f))) {
		if (strcmp(gr->gr_name, name) == 0) {
			*out = gr->gr_gid;
			r = 0;
			break;
		}
	}
	if (!gr && errno && errno != ENOENT)
		r = -errno;
	fclose(f);
	return r;
}

int lr_user_resolve(const char *spec, const char *passwd, const char *group, struct lr_run_as *out,
		    char *err, size_t errlen)
{
	_cleanup_free_ char *user = strdup(spec);
	char *grp;
	unsigned id;
	gid_t primary = 0;
	int r;

	if (!user)
		return lr_fail(err, errlen, -ENOMEM, "out of memory");
	grp = strchr(user, ':');
	if (grp)
		*grp++ = '\0';
	if (!*user || (grp && !*grp))
		return lr_fail(err, errlen, -EINVAL, "--user: '%s' is not USER or USER:GROUP",
			       spec);
	memset(out, 0, sizeof(*out));

	if (parse_id(user, &id)) {
		out->uid = id;
		r = find_user(passwd, NULL, out->uid, &out->uid, &primary);
	} else {
		r = find_user(passwd, user, 0, &out->uid, &primary);
	}
	if (r < 0)
		return lr_fail(err, errlen, r, "--user: cannot read %s: %s", passwd, strerror(-r));
	if (r == NOT_FOUND && !parse_id(user, &id))
		return lr_fail(err, errlen, -ENOENT, "--user: no user '%s' in %s", user, passwd);
	if (r == NOT_FOUND && !grp)
		return lr_fail(
			err, errlen, -EINVAL,
			"--user %s: uid %s is not in %s, so it has no group: give one (--user "
			"%s:GID)",
			spec, user, passwd, user);

	out->gid = primary;
	if (grp) {
		out->group_given = true;
		if (parse_id(grp, &id)) {
			out->gid = id;
		} else {
			r = find_group(group, grp, &out->gid);
			if (r == NOT_FOUND)
				return lr_fail(err, errlen, -ENOENT, "--user: no group '%s' in %s",
					       grp, group);
			if (r < 0)
				return lr_fail(err, errlen, r, "--user: cannot read %s: %s", group,
					       strerror(-r));
		}
	}
	out->set = true;
	return 0;
}

/*
 * The kernel forgets the parent-death signal when the ids change, and a
 * supervised command must still die with its supervisor: each change below
 * is made between pdeath_save and pdeath_restore, which sets it again (and
 * delivers it if the parent died meanwhile).
 */
struct pdeath {
	int sig;
	pid_t parent;
};

static struct pdeath pdeath_save(void)
{
	struct pdeath p = { 0, getppid() };

	if (prctl(PR_GET_PDEATHSIG, &p.sig) < 0)
		p.sig = 0;
	return p;
}

static int pdeath_restore(const struct pdeath *p)
{
	if (!p->sig)
		return 0;
	if (prctl(PR_SET_PDEATHSIG, p->sig) < 0)
		return -errno;
	if (getppid() != p->parent)
		raise(p->sig);
	return 0;
}

int lr_user_switch(const struct lr_run_as *u, char *err, size_t errlen)
{
	struct pdeath pdeath = pdeath_save();
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[2];
	int n;

	if (setgroups(1, &u->gid) < 0)
		return lr_fail(err, errlen, -errno, "--user: cannot set the groups to %u: %s",
			       (unsigned)u->gid, strerror(errno));
	if (setresgid(u->gid, u->gid, u->gid) < 0)
		return lr_fail(err, errlen, -errno, "--user: cannot become gid %u: %s",
			       (unsigned)u->gid, strerror(errno));
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return lr_fail(err, errlen, -errno, "--user: cannot become uid %u: %s",
			       (unsigned)u->uid, strerror(errno));
	/* what the kernel now says, not what was asked */
	n = getgroups(2, groups);
	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 || n != 1 ||
	    groups[0] != u->gid || ru != u->uid || eu != u->uid || su != u->uid || rg != u->gid ||
	    eg != u->gid || sg != u->gid)
		return lr_fail(err, errlen, -EPERM, "--user: the ids did not change to %u:%u",
			       (unsigned)u->uid, (unsigned)u->gid);
	if (pdeath_restore(&pdeath) < 0)
		return lr_fail(err, errlen, -errno,
			       "--user: cannot set the parent-death signal again: %s",
			       strerror(errno));
	return 0;
}

int lr_user_drop_privileges(const struct lr_run_as *u, bool do_switch, char *err,
			    size_t errlen)
{
	int r;

	if (!lr_caps_privileged())
		return 0;
	if (do_switch && ((r = lr_caps_drop_bounding(err, errlen)) < 0 ||
			  (r = lr_user_switch(u, err, errlen)) < 0))
		return r;
	return lr_caps_drop(err, errlen);
}

int lr_user_fs_enter(const struct lr_run_as *u)
{
	struct pdeath pdeath;

	if (!u)
		return 0;
	pdeath = pdeath_save();
	setfsgid(u->gid);
	setfsuid(u->uid);
	/* setfs*id return the previous id whatever happens: ask again */
	if ((uid_t)setfsuid((uid_t)-1) != u->uid || (gid_t)setfsgid((gid_t)-1) != u->gid)
		return -EPERM;
	return pdeath_restore(&pdeath);
}

int lr_user_fs_leave(const struct lr_run_as *u)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct pdeath pdeath;

	if (!u)
		return 0;
	pdeath = pdeath_save();
	setfsuid(uid);
	setfsgid(gid);
	if ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != gid)
		return -EPERM;
	return pdeath_restore(&pdeath);
}
