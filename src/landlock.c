/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/landlock.h"
#include "landrun/landlock_uapi.h"
#include "landrun/log.h"
#include "landrun/util.h"

int lr_landlock_open_rules(const struct lr_policy *policy, const struct lr_plan *plan,
			   struct lr_fs_rules *rules, char *err, size_t errlen)
{
	for (size_t i = 0; i < policy->n_grants; i++) {
		const struct lr_grant *g = &policy->grants[i];
		struct lr_fs_rule *rule;
		struct stat st;
		char *real;
		int fd;

		fd = open(g->path, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			if (e == ENOENT && g->optional) {
				lr_debug("%s %s: does not exist, skipped (ignore-missing)", g->flag,
					 g->path);
				continue;
			}
			snprintf(err, errlen, "%s %s: %s%s", g->flag, g->path, strerror(e),
				 e == ENOENT ? " (--ignore-missing skips it)" : "");
			return -e;
		}
		if (fstat(fd, &st) < 0 || !(real = realpath(g->path, NULL))) {
			int e = errno;

			snprintf(err, errlen, "%s %s: %s", g->flag, g->path, strerror(e));
			close(fd);
			return -e;
		}
		rule = lr_array_push(&rules->v, &rules->n, sizeof(*rule));
		if (!rule) {
			close(fd);
			free(real);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		rule->fd = fd;
		rule->is_dir = S_ISDIR(st.st_mode);
		rule->rights = lr_plan_fs_rights(plan, g->access, rule->is_dir);
		rule->realpath = real;
		rule->grant = g;
	}
	return 0;
}

/* mkdir -p, with 0700 for what it creates: 0 or -errno. */
static int make_dir(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	for (char *slash = copy + 1;; slash++) {
		char saved = *slash;

		if (saved != '/' && saved != '\0')
			continue;
		*slash = '\0';
		if (mkdir(copy, 0700) < 0 && errno != EEXIST)
			return -errno;
		*slash = saved;
		if (!saved)
			break;
	}
	return 0;
}

int lr_landlock_make_dirs(const struct lr_policy *policy, char *err, size_t errlen)
{
	for (size_t i = 0; i < policy->n_mkdirs; i++) {
		struct stat st;
		int r = make_dir(policy->mkdirs[i]);

		if (r == 0 && (stat(policy->mkdirs[i], &st) < 0 || !S_ISDIR(st.st_mode)))
			r = -ENOTDIR;
		if (r < 0) {
			snprintf(err, errlen, "--mkdir %s: %s", policy->mkdirs[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

void lr_landlock_rules_free(struct lr_fs_rules *rules)
{
	for (size_t i = 0; i < rules->n; i++) {
		if (rules->v[i].fd >= 0)
			close(rules->v[i].fd);
		free(rules->v[i].realpath);
	}
	free(rules->v);
	rules->v = NULL;
	rules->n = 0;
}

static int add_port_rules(int ruleset, uint64_t rights, const struct lr_port_range *ranges,
			  size_t n, const char *flag, char *err, size_t errlen)
{
	if (!rights)
		return 0;
	for (size_t i = 0; i < n; i++) {
		for (unsigned port = ranges[i].first; port <= ranges[i].last; port++) {
			struct lr_ll_net_port_attr np = { .allowed_access = rights, .port = port };

			if (lr_ll_add_rule(ruleset, LANDLOCK_RULE_NET_PORT, &np, 0) < 0) {
				int e = errno;

				snprintf(err, errlen, "%s %u: cannot add the Landlock rule: %s", flag,
					 port, strerror(e));
				return -e;
			}
		}
	}
	return 0;
}

int lr_landlock_enforce(const struct lr_plan *plan, const struct lr_policy *policy,
			const struct lr_fs_rules *rules, char *err, size_t errlen)
{
	int r;

	struct lr_ll_ruleset_attr attr = {
		.handled_access_fs = plan->handled_fs,
		.handled_access_net = plan->handled_net,
		.scoped = plan->scoped,
	};
	_cleanup_close_ int ruleset = -1;

	ruleset = lr_ll_create_ruleset(&attr, lr_landlock_attr_size(plan->abi), 0);
	if (ruleset < 0) {
		int e = errno;

		snprintf(err, errlen, "landlock_create_ruleset: %s", strerror(e));
		return -e;
	}
	for (size_t i = 0; i < rules->n; i++) {
		const struct lr_fs_rule *rule = &rules->v[i];
		struct lr_ll_path_beneath_attr pb = {
			.allowed_access = rule->rights,
			.parent_fd = rule->fd,
		};

		if (!pb.allowed_access)
			continue;
		if (lr_ll_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			int e = errno;

			snprintf(err, errlen, "%s %s: cannot add the Landlock rule: %s",
				 rule->grant->flag, rule->grant->path, strerror(e));
			return -e;
		}
	}
	r = add_port_rules(ruleset, lr_plan_net_connect_rights(plan), policy->connect_tcp,
			   policy->n_connect_tcp, "--connect-tcp", err, errlen);
	if (r == 0)
		r = add_port_rules(ruleset, lr_plan_net_bind_rights(plan), policy->bind_tcp,
				   policy->n_bind_tcp, "--bind-tcp", err, errlen);
	if (r < 0)
		return r;
	if (lr_ll_restrict_self(ruleset, plan->restrict_flags) < 0) {
		int e = errno;

		snprintf(err, errlen, "landlock_restrict_self: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* Directories everybody can list, whose listing the policy should deny. */
static const char *const witness_candidates[] = {
	"/", "/etc", "/usr", "/var", "/tmp", "/home", "/opt", "/srv", "/dev", "/proc",
};

void lr_landlock_witness_pick(const struct lr_plan *plan, const struct lr_fs_rules *rules,
			      struct lr_witness *w)
{
	w->path = NULL;
	if (!(plan->handled_fs & LANDLOCK_ACCESS_FS_READ_DIR))
		return;
	for (size_t c = 0; c < sizeof(witness_candidates) / sizeof(*witness_candidates); c++) {
		const char *cand = witness_candidates[c];
		bool granted = false;
		int fd;

		for (size_t i = 0; i < rules->n && !granted; i++)
			granted = (rules->v[i].rights & LANDLOCK_ACCESS_FS_READ_DIR) &&
				  lr_path_beneath(cand, rules->v[i].realpath);
		if (granted)
			continue;
		/* it must be listable now, so that a denial later is Landlock's */
		fd = open(cand, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		close(fd);
		w->path = cand;
		return;
	}
}

int lr_landlock_witness_check(const struct lr_witness *w)
{
	int fd = open(w->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return -EPERM;
	}
	return errno == EACCES ? 0 : -errno;
}
