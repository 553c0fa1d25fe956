/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "landrun/lib/error.h"
#include "landrun/lib/json.h"
#include "landrun/lib/util.h"
#include "landrun/plan/explain.h"
#include "landrun/sandbox/landlock.h"
#include "landrun/supervisor/audit.h"
#include "landrun/supervisor/learn.h"
#include "landrun/supervisor/supervise.h"

/* Which writable grant holds the canonical PATH, or NULL. */
static const struct lr_grant *writable_grant(const char *path, const struct lr_fs_rules *rules)
{
	for (size_t i = 0; i < rules->n; i++) {
		const struct lr_fs_rule *r = &rules->v[i];

		if (!(r->grant->access & LR_ACCESS_RW) || !r->realpath)
			continue;
		if (r->is_dir ? lr_path_beneath(path, r->realpath) : strcmp(path, r->realpath) == 0)
			return r->grant;
	}
	return NULL;
}

/* Which writable file grant is the file ST itself (its device and inode), or NULL. */
static const struct lr_grant *granted_inode(const struct stat *st, const struct lr_fs_rules *rules)
{
	for (size_t i = 0; i < rules->n; i++) {
		const struct lr_fs_rule *r = &rules->v[i];
		struct stat g;

		if ((r->grant->access & LR_ACCESS_RW) && !r->is_dir && fstat(r->fd, &g) == 0 &&
		    g.st_dev == st->st_dev && g.st_ino == st->st_ino)
			return r->grant;
	}
	return NULL;
}

/* A mountinfo path, its octal escapes (\040...) undone, in place. */
static char *unescape(char *p)
{
	char *w = p;

	for (const char *r = p; *r; w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
	return p;
}

struct mount_entry {
	int id;
	char dev[32];		/* major:minor, the filesystem */
	char *root;		/* what of the filesystem it shows */
	char *point;		/* where */
};

/* One line of /proc/self/mountinfo into M (pointing into LINE).  False if it is
 * not one. */
static bool parse_mount(char *line, struct mount_entry *m)
{
	char *save = NULL, *f[5];

	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return false;
	m->id = atoi(f[0]);
	snprintf(m->dev, sizeof(m->dev), "%s", f[2]);
	m->root = unescape(f[3]);
	m->point = unescape(f[4]);
	return true;
}

/* PATH, beneath FROM, moved beneath TO, into OUT; false if not beneath. */
static bool rebase(const char *path, const char *from, const char *to, char *out, size_t len)
{
	size_t n = strlen(from);
	const char *rest;

	if (strcmp(from, "/") == 0)
		rest = path;
	else if (strncmp(path, from, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		rest = path + n;
	else
		return false;
	if (*rest == '/' && strcmp(to, "/") == 0)
		to = "";
	return (size_t)snprintf(out, len, "%s%s", to, *rest || *to ? rest : "/") < len;
}

/*
 * The writable grant through which the file FD (at REAL, canonical) can be
 * reached by some other name: every mount of its filesystem that shows it
 * (bind mounts) gives it a path, and each is checked.  *G the grant, or NULL;
 * 0, or -errno (the mounts could not be read: the caller refuses).
 */
static int grant_by_mounts(int fd, const char *real, const struct lr_fs_rules *rules,
			   const struct lr_grant **g)
{
	char path[64], *line = NULL, fsrel[PATH_MAX], other[PATH_MAX];
	struct mount_entry own = { .id = -1 }, m;
	size_t cap = 0;
	int mnt_id = -1, r = -ENOENT;
	FILE *f;

	*g = NULL;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "mnt_id: %d", &mnt_id) == 1)
			break;
	fclose(f);
	if (mnt_id < 0 || !(f = fopen("/proc/self/mountinfo", "re"))) {
		r = mnt_id < 0 ? -ENOENT : -errno;
		free(line);
		return r;
	}
	/* first its own mount: where the file is in its filesystem */
	while (getline(&line, &cap, f) > 0) {
		if (parse_mount(line, &m) && m.id == mnt_id &&
		    rebase(real, m.point, m.root, fsrel, sizeof(fsrel))) {
			snprintf(own.dev, sizeof(own.dev), "%s", m.dev);
			own.id = m.id;
			break;
		}
	}
	if (own.id >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		r = 0;
		while (!*g && getline(&line, &cap, f) > 0)
			if (parse_mount(line, &m) && strcmp(m.dev, own.dev) == 0 &&
			    rebase(fsrel, m.root, m.point, other, sizeof(other)))
				*g = writable_grant(other, rules);
	}
	fclose(f);
	free(line);
	return r;
}

int lr_audit_open_file(const char *flag, const char *path, int flags,
		       const struct lr_policy *policy, const struct lr_plan *plan,
		       const struct lr_fs_rules *rules, char *err, size_t errlen)
{
	char link[64], real[PATH_MAX];
	const struct lr_grant *g;
	struct stat st;
	ssize_t n;
	int fd, e, r;

	/* never a FIFO, whose open would wait for a reader */
	fd = lr_open_regular_as(path, flags | O_CREAT, 0600, &st);
	if (fd < 0) {
		lr_errf(err, errlen, "%s %s: %s", flag, path, lr_open_strerror(fd));
		return fd;
	}
	/* what was opened, not what the name says */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, real, sizeof(real) - 1)) < 0) {
		e = errno;
		close(fd);
		lr_errf(err, errlen, "%s %s: %s", flag, path, strerror(e));
		return -e;
	}
	real[n] = '\0';
	e = EACCES;
	if (st.st_nlink > 1)
		lr_errf(err, errlen,
			"%s %s: has %ju hard links, and one may lie where the command can write",
			flag, path, (uintmax_t)st.st_nlink);
	else if (policy->unrestricted_fs)
		lr_errf(err, errlen,
			"%s %s: with --unrestricted-filesystem the command could "
			"rewrite it",
			flag, path);
	else if (lr_plan_is_lost(plan, LR_PROT_FS_WRITE))
		lr_errf(err, errlen,
			"%s %s: writes are not confined on this kernel (fs.write is "
			"lost), so the command could rewrite it",
			flag, path);
	else if ((g = writable_grant(real, rules)) || (g = granted_inode(&st, rules)))
		lr_errf(err, errlen,
			"%s %s: inside the writable grant %s, where the command "
			"could rewrite it: put it outside the grants",
			flag, path, g->name);
	else if ((r = grant_by_mounts(fd, real, rules, &g)) < 0)
		lr_errf(err, errlen,
			"%s %s: cannot tell where else it is mounted (%s), so it is "
			"refused",
			flag, path, strerror(-r));
	else if (g)
		lr_errf(err, errlen,
			"%s %s: a mount shows it inside the writable grant %s, where "
			"the command could rewrite it: put it outside the grants",
			flag, path, g->name);
	else
		e = 0;
	if (e) {
		close(fd);
		return -e;
	}
	return fd;
}

int lr_audit_open(struct lr_audit *a, const char *path, const struct lr_policy *policy,
		  const struct lr_plan *plan, const struct lr_fs_rules *rules, char *err,
		  size_t errlen)
{
	int fd = lr_audit_open_file("--audit-log", path, O_WRONLY | O_APPEND, policy, plan, rules,
				    err, errlen);

	if (fd < 0)
		return fd;
	a->fd = fd;
	return 0;
}

char *lr_audit_started(const struct lr_audit *a, const struct lr_explain_input *in,
		       char *const *argv, pid_t supervisor, pid_t command)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	lr_audit_head(out, a, "started", supervisor);
	fprintf(out, ",\"command_pid\":%d,\"uid\":%u,\"gid\":%u,\"landrun_version\":",
		(int)command, (unsigned)getuid(), (unsigned)getgid());
	lr_json_str(out, LR_VERSION);
	fputs(",\"cwd\":", out);
	lr_json_str(out, cwd);
	fputs(",\"argv\":[", out);
	lr_json_strv(out, argv);
	fputs("],\"command\":", out);
	lr_json_str(out, in->command);
	fputs(",\"policy\":", out);
	lr_explain_json_object(out, in);
	return lr_audit_finish(out, &buf);
}

static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "%d", sig);
	return buf;
}

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

char *lr_audit_ended(const struct lr_audit *a, const struct lr_outcome *o, int status)
{
	static const char *const reasons[] = {
		[LR_END_TIMEOUT] = "timeout",
		[LR_END_SIGNAL] = "signal",
		[LR_END_PARENT_DIED] = "parent-died",
	};
	char *buf = NULL, name[32];
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	lr_audit_head(out, a, o->why == LR_END_EXITED ? "completed" : "cancelled", getpid());
	if (o->why != LR_END_EXITED) {
		fputs(",\"reason\":", out);
		lr_json_str(out, reasons[o->why]);
	}
	if (o->why == LR_END_SIGNAL) {
		fputs(",\"signal\":", out);
		lr_json_str(out, signal_name(o->signal, name, sizeof(name)));
	}
	if (WIFEXITED(o->status))
		fprintf(out, ",\"exit_code\":%d,\"exit_signal\":null,\"core_dumped\":false",
			WEXITSTATUS(o->status));
	else
		fprintf(out, ",\"exit_code\":null,\"exit_signal\":\"%s\",\"core_dumped\":%s",
			signal_name(WTERMSIG(o->status), name, sizeof(name)),
			WCOREDUMP(o->status) ? "true" : "false");
	fprintf(out, ",\"status\":%d,\"duration_s\":%.3f,\"user_s\":%.3f,\"system_s\":%.3f,"
		     "\"max_rss_kb\":%ld,\"left_behind\":%u,\"killed\":%s",
		status, (double)o->duration_ms / 1000, seconds(&o->rusage.ru_utime),
		seconds(&o->rusage.ru_stime), o->rusage.ru_maxrss, o->left_behind,
		o->killed ? "true" : "false");
	return lr_audit_finish(out, &buf);
}

char *lr_audit_denied(const struct lr_audit *a, const struct lr_denial *d,
		      const struct lr_advice *advice)
{
	/* (freed by hand: the analyzer loses cleanup attributes on this path) */
	char *what = lr_denial_what(d), *allowed_by = NULL, *buf = NULL, *record = NULL;
	FILE *out = NULL;
	size_t len;

	if (what && (advice->kind != LR_ADVICE_GRANT ||
		     asprintf(&allowed_by, "--%s %s", advice->key, advice->value) >= 0))
		out = open_memstream(&buf, &len);
	else
		allowed_by = NULL; /* asprintf leaves it undefined */
	if (out) {
		lr_audit_head(out, a, "denied", getpid());
		fprintf(out, ",\"command_pid\":%d,\"comm\":", (int)d->pid);
		lr_json_str(out, d->comm);
		fputs(",\"what\":", out);
		lr_json_str(out, what);
		fputs(",\"path\":", out);
		lr_json_str(out, d->path);
		fprintf(out, ",\"count\":%lu,\"errno\":", d->count);
		lr_json_str(out, strerrorname_np(d->err));
		fputs(",\"allowed_by\":", out);
		lr_json_str(out, allowed_by);
		fputs(",\"note\":", out);
		lr_json_str(out, advice->note);
		record = lr_audit_finish(out, &buf);
	}
	free(allowed_by);
	free(what);
	return record;
}
