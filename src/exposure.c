/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/exposure.h"
#include "landrun/util.h"

bool lr_exposure_is_dotenv_name(const char *name)
{
	return strcmp(name, ".env") == 0 || strncmp(name, ".env.", 5) == 0;
}

static int refuse(char *err, size_t errlen, const struct lr_fs_rule *rule, const char *shown,
		  const char *why)
{
	snprintf(err, errlen,
		 "%s %s: %s %s to the command; grant the directories beside it instead, "
		 "or accept it with --allow-dotenv %s",
		 rule->grant->flag, rule->grant->path, why, shown, shown);
	return -EACCES;
}

/* Is the file at REAL (canonical) accepted by --allow-dotenv? */
static bool accepted(const struct lr_strlist *allowed, const char *real)
{
	return lr_strlist_contains(allowed, real);
}

static int check_dir(const struct lr_fs_rule *rule, const struct lr_strlist *allowed, char *err,
		     size_t errlen)
{
	int fd = openat(rule->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (fd < 0)
		return 0; /* not listable by us, so not by the command either */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (r == 0 && (errno = 0, de = readdir(d))) {
		_cleanup_free_ char *real = NULL, *shown = NULL;

		if (!lr_exposure_is_dotenv_name(de->d_name))
			continue;
		if (asprintf(&real, "%s/%s", strcmp(rule->realpath, "/") ? rule->realpath : "",
			     de->d_name) < 0 ||
		    asprintf(&shown, "%s/%s", rule->grant->path, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		if (!accepted(allowed, real))
			r = refuse(err, errlen, rule, shown, "exposes");
	}
	closedir(d);
	return r;
}

int lr_exposure_check(const struct lr_policy *policy, const struct lr_fs_rules *rules, char *err,
		      size_t errlen)
{
	struct lr_strlist allowed = { 0 };
	_cleanup_free_ char *env_file = NULL;
	int r = 0;

	for (size_t i = 0; i < policy->n_allow_dotenv && r == 0; i++) {
		char *real = realpath(policy->allow_dotenv[i], NULL);

		if (!real) {
			r = -errno;
			snprintf(err, errlen, "--allow-dotenv %s: %s", policy->allow_dotenv[i],
				 strerror(-r));
		} else {
			r = lr_strlist_take(&allowed, real);
		}
	}
	if (r == 0 && policy->env_file)
		env_file = realpath(policy->env_file, NULL);

	for (size_t i = 0; i < rules->n && r == 0; i++) {
		const struct lr_fs_rule *rule = &rules->v[i];
		_cleanup_free_ char *base = NULL;

		/* what was asked for counts, not what this kernel can enforce:
		 * the same command line must not pass on one kernel only */
		if (env_file && lr_path_beneath(env_file, rule->realpath) && !accepted(&allowed, env_file)) {
			r = refuse(err, errlen, rule, policy->env_file, "exposes the --env-file");
			break;
		}
		/* system trees hold no project's secrets, and listing /usr/bin and
		 * /usr/lib at every start would cost more than the rest of landrun */
		if (rule->is_dir) {
			if (!lr_path_beneath(rule->realpath, "/usr"))
				r = check_dir(rule, &allowed, err, errlen);
			continue;
		}
		base = strdup(rule->realpath);
		if (!base)
			r = -ENOMEM;
		else if (lr_exposure_is_dotenv_name(basename(base)) && !accepted(&allowed, rule->realpath))
			r = refuse(err, errlen, rule, rule->grant->path, "exposes");
	}
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	lr_strlist_free(&allowed);
	return r;
}
