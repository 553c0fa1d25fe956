/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/config.h"
#include "landrun/project.h"
#include "landrun/scan.h"

/* Directories that are not a project, besides the system trees, the shared
 * ones and the home: the trees beneath them, and then the single ones. */
static const char *const not_project_trees[] = {
	"/etc", "/dev", "/run", "/var/lib", "/var/cache", "/var/log", "/var/spool",
};
static const char *const not_project_dirs[] = {
	"/var", "/home", "/opt", "/srv", "/mnt", "/media", "/root", "/usr/src", "/usr/local/src",
};

static const char *not_a_project(const char *cwd, const char *home)
{
	const char *why = lr_policy_shared_dir(cwd, home);

	if (why)
		return why;
	if (lr_scan_system_tree(cwd))
		return "is a system directory";
	for (size_t i = 0; i < sizeof(not_project_trees) / sizeof(*not_project_trees); i++)
		if (lr_path_beneath(cwd, not_project_trees[i]))
			return "is a system directory";
	for (size_t i = 0; i < sizeof(not_project_dirs) / sizeof(*not_project_dirs); i++)
		if (strcmp(cwd, not_project_dirs[i]) == 0)
			return "holds the projects or homes of others, not one project";
	return NULL;
}

/* Commands whose profile has another name. */
static const struct {
	const char *command, *profile;
} aliases[] = {
	{ "claude", "claude-code" },
};

/* Is there a profile NAME in the profile directories? */
static bool profile_exists(const char *name)
{
	struct lr_strlist dirs = { 0 };
	bool found = false;

	if (lr_config_profile_dirs(&dirs) < 0)
		return false;
	for (size_t i = 0; i < dirs.n && !found; i++) {
		_cleanup_free_ char *path = NULL;

		found = asprintf(&path, "%s/%s.conf", dirs.v[i], name) >= 0 &&
			access(path, F_OK) == 0;
	}
	lr_strlist_free(&dirs);
	return found;
}

static const char *profile_for(const char *command)
{
	_cleanup_free_ char *copy = command ? strdup(command) : NULL;
	const char *name;

	if (!copy)
		return "base";
	name = basename(copy);
	for (size_t i = 0; i < sizeof(aliases) / sizeof(*aliases); i++)
		if (strcmp(name, aliases[i].command) == 0)
			return aliases[i].profile;
	/* a profile of the command's own name (a valid profile name only) */
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") ==
		    strlen(name) &&
	    *name && profile_exists(name)) {
		static char found[256];

		snprintf(found, sizeof(found), "%s", name);
		return found;
	}
	return "base";
}

enum lr_opt_result lr_project_defaults(struct lr_policy *p, const char *command, const char *cwd,
				       const char *home, struct lr_opt_error *err)
{
	const char *why, *profile;
	int r;

	if (p->cli_grants)
		return LR_OPT_RUN;
	if (!p->cli_files) {
		profile = profile_for(command);
		p->profile = strdup(profile);
		if (!p->profile)
			return lr_opt_fail(err, "out of memory");
		r = lr_config_load_profile(profile, NULL, p, 1, err);
		if (r < 0)
			return LR_OPT_ERROR;
	}
	if (!cwd)
		return lr_opt_fail(err, "no --ro, --rox, --rw or --rwx given, and the current "
					"directory cannot be found to grant as the project: %s",
				   strerror(errno));
	why = not_a_project(cwd, home);
	if (why)
		return lr_opt_fail(err,
				   "no --ro, --rox, --rw or --rwx given, so the current directory "
				   "would be the project, but %s %s: cd into a project, or name "
				   "what to grant (--rw DIR, --ro DIR)",
				   cwd, why);
	p->origin = LR_PROJECT_ORIGIN;
	r = lr_policy_add_grant(p, cwd, LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X, "--rwx");
	p->origin = NULL;
	p->project = strdup(cwd);
	if (r < 0 || !p->project)
		return lr_opt_fail(err, "out of memory");
	return LR_OPT_RUN;
}
