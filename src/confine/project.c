/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/confine/project.h"
#include "landrun/confine/scan.h"
#include "landrun/policy/config.h"
#include "landrun/sandbox/exec.h"

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

/* The system's own programs and libraries: a command-line grant there (or of
 * /) says the whole policy outright, as the Go landrun's command lines do. */
static const char *const system_trees[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};

static bool names_system(const char *path)
{
	char clean[PATH_MAX];
	size_t n;

	snprintf(clean, sizeof(clean), "%s", path);
	for (n = strlen(clean); n > 1 && clean[n - 1] == '/'; n--)
		clean[n - 1] = '\0';
	if (strcmp(clean, "/") == 0)
		return true;
	for (size_t i = 0; i < sizeof(system_trees) / sizeof(*system_trees); i++)
		if (lr_path_beneath(clean, system_trees[i]) && !lr_path_beneath(clean, "/usr/src") &&
		    !lr_path_beneath(clean, "/usr/local/src"))
			return true;
	return false;
}

/* A grant of the command line itself: --ro, --rox, --rw, --rwx (not a
 * policy file's, not --unix, not one derived from the command). */
static bool from_command_line(const struct lr_grant *g)
{
	return !g->origin && g->source == 0 && g->flag && strncmp(g->flag, "--r", 3) == 0;
}

/* The command line's grant that names the system, or NULL. */
static const struct lr_grant *outright_grant(const struct lr_policy *p)
{
	for (size_t i = 0; i < p->n_grants; i++)
		if (from_command_line(&p->grants[i]) && names_system(p->grants[i].path))
			return &p->grants[i];
	return NULL;
}

/* The top of the git work tree holding CWD (the nearest directory upwards
 * with a .git, a directory or a linked worktree's file), or NULL. */
static char *repository_top(const char *cwd)
{
	_cleanup_free_ char *dir = strdup(cwd);

	if (!dir)
		return NULL;
	for (;;) {
		_cleanup_free_ char *dotgit = NULL;
		char *slash;

		if (asprintf(&dotgit, "%s/.git", strcmp(dir, "/") ? dir : "") < 0)
			return NULL;
		if (access(dotgit, F_OK) == 0)
			return strdup(dir);
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return NULL;
		*slash = '\0';
	}
}

/* A command-line grant at or above the current directory or the project
 * says how the project is granted: it is not widened to read-write. */
static const struct lr_grant *grant_holding(const struct lr_policy *p, const char *cwd,
					    const char *project)
{
	for (size_t i = 0; i < p->n_grants; i++) {
		_cleanup_free_ char *real = NULL;

		if (!from_command_line(&p->grants[i]))
			continue;
		real = realpath(p->grants[i].path, NULL);
		if (real && (lr_path_beneath(cwd, real) || lr_path_beneath(project, real)))
			return &p->grants[i];
	}
	return NULL;
}

static enum lr_opt_result load_default_profile(struct lr_policy *p, const char *command,
					       struct lr_opt_error *err)
{
	const char *profile = profile_for(command);

	p->profile = strdup(profile);
	if (!p->profile)
		return lr_opt_fail(err, "out of memory");
	return lr_config_load_profile(profile, NULL, p, 1, err) < 0 ? LR_OPT_ERROR : LR_OPT_RUN;
}

/* The project: the repository's top when CWD is in one that may be a
 * project, else CWD; NULL with ERR when CWD may not be one. */
static char *find_project(const char *cwd, const char *home, bool *repo, const char **why)
{
	_cleanup_free_ char *top = repository_top(cwd);

	*repo = false;
	*why = not_a_project(cwd, home);
	if (*why)
		return NULL;
	if (top && strcmp(top, cwd) != 0 && !not_a_project(top, home)) {
		*repo = true;
		return strdup(top);
	}
	*repo = top && strcmp(top, cwd) == 0;
	return strdup(cwd);
}

enum lr_opt_result lr_project_defaults(struct lr_policy *p, const char *command, const char *cwd,
				       const char *home, struct lr_opt_error *err)
{
	const struct lr_grant *g;
	const char *why;
	char *project;
	bool repo;
	int r;

	if (p->unrestricted_fs)
		return LR_OPT_RUN;
	g = outright_grant(p);
	if (g) {
		p->outright = strdup(g->name);
		return p->outright ? LR_OPT_RUN : lr_opt_fail(err, "out of memory");
	}
	if (!p->cli_files && load_default_profile(p, command, err) != LR_OPT_RUN)
		return LR_OPT_ERROR;
	if (p->no_project)
		return LR_OPT_RUN;
	if (!cwd)
		return lr_opt_fail(err, "the current directory cannot be found to grant as the "
					"project: %s (--no-project: none)",
				   strerror(errno));
	project = find_project(cwd, home, &repo, &why);
	if (!project && why && p->cli_grants) {
		/* the command line grants what the command works on */
		if (asprintf(&p->project_note, "no project: %s %s", cwd, why) < 0)
			return lr_opt_fail(err, "out of memory");
		return LR_OPT_RUN;
	}
	if (!project && why)
		return lr_opt_fail(err,
				   "the current directory would be the project, but %s %s: cd into "
				   "a project, or name what to grant (--rw DIR, --ro DIR; "
				   "--no-project: no project)",
				   cwd, why);
	p->project = project;
	if (!project)
		return lr_opt_fail(err, "out of memory");
	g = grant_holding(p, cwd, project);
	if (g)
		r = asprintf(&p->project_note, "project %s not granted: %s holds the current "
					       "directory, and says how",
			     project, g->name);
	else
		r = asprintf(&p->project_note, "project %s (%s: read, write, execute)", project,
			     repo ? "the git repository holding the current directory"
				  : "the current directory");
	if (r < 0)
		return lr_opt_fail(err, "out of memory");
	if (g)
		return LR_OPT_RUN;
	p->origin = repo ? LR_PROJECT_ORIGIN_REPO : LR_PROJECT_ORIGIN;
	r = lr_policy_add_grant(p, project, LR_ACCESS_RO | LR_ACCESS_RW | LR_ACCESS_X, "--rwx");
	p->origin = NULL;
	return r < 0 ? lr_opt_fail(err, "out of memory") : LR_OPT_RUN;
}

static int add_text(struct lr_buf *b, const char *sep, const char *text)
{
	if (b->len && lr_buf_add(b, sep, strlen(sep)) < 0)
		return -ENOMEM;
	return lr_buf_add(b, text, strlen(text));
}

/* "added on the command line: --ro a, --rw b" (at most four, then "and N more") */
static int add_command_line(const struct lr_policy *p, struct lr_buf *b)
{
	struct lr_buf list = { 0 };
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; r == 0 && i < p->n_grants; i++) {
		if (!from_command_line(&p->grants[i]))
			continue;
		if (n++ < 4)
			r = add_text(&list, ", ", p->grants[i].name);
	}
	if (r == 0 && n > 4) {
		char more[32];

		snprintf(more, sizeof(more), " and %zu more", n - 4);
		r = lr_buf_add(&list, more, strlen(more));
	}
	if (r == 0 && n && (r = add_text(b, "; ", "added on the command line: ")) == 0)
		r = lr_buf_add(b, list.s, list.len);
	free(list.s);
	return r;
}

char *lr_project_describe(const struct lr_policy *p)
{
	struct lr_buf b = { 0 };
	char *s = NULL;
	int r = 0;

	if (p->outright)
		return NULL; /* --explain and --log-level info say it */
	if (p->profile &&
	    asprintf(&s, "profile %s (the default for this command%s)", p->profile,
		     p->home_private ? "; a new, empty HOME, not yours" : "") < 0)
		return NULL;
	if (!p->profile && p->home_private && !(s = strdup("a new, empty HOME, not yours")))
		return NULL;
	if (s)
		r = add_text(&b, "; ", s);
	free(s);
	if (r == 0 && p->project_note)
		r = add_text(&b, ", ", p->project_note);
	if (r == 0 && b.len)
		r = add_command_line(p, &b);
	if (r < 0) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* The npm (or bun) package holding the real path REAL: the directory after
 * its first node_modules/ (NAME, or @SCOPE/NAME), or NULL. */
static char *package_of(const char *real)
{
	const char *nm = strstr(real, "/node_modules/"), *name, *end;

	if (!nm)
		return NULL;
	name = nm + strlen("/node_modules/");
	end = strchr(name, '/');
	if (end && name[0] == '@')
		end = strchr(end + 1, '/');
	if (!end || end == name)
		return NULL;
	return strndup(real, (size_t)(end - real));
}

/* The interpreter a script at PATH names (#!/path/x, or #!/usr/bin/env x
 * looked up in SEARCH_PATH), really, or NULL. */
static char *interpreter_of(const char *path, const char *search_path)
{
	char line[256], *p, *word, *found = NULL, *real;
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	line[strcspn(line, "\n")] = '\0';
	p = line + 2 + strspn(line + 2, " \t");
	word = strsep(&p, " \t");
	if (word && strcmp(word, "/usr/bin/env") == 0 && p) {
		while (p && (word = strsep(&p, " \t")) && (!*word || word[0] == '-'))
			;
		if (!word || !*word || strchr(word, '=') || lr_exec_resolve(word, search_path, &found) < 0)
			return NULL;
		word = found;
	}
	real = word && *word == '/' ? realpath(word, NULL) : NULL;
	free(found);
	return real;
}

int lr_project_installation(const char *command, const char *search_path,
			    struct lr_strlist *out)
{
	_cleanup_free_ char *real = realpath(command, NULL);
	_cleanup_free_ char *package = NULL, *interp = NULL;
	int r = 0;

	if (!real)
		return 0; /* landrun's exec reports it */
	if (!names_system(real) && (package = package_of(real)))
		r = lr_strlist_add(out, package);
	interp = interpreter_of(real, search_path);
	if (r == 0 && interp && !names_system(interp) && !lr_strlist_contains(out, interp))
		r = lr_strlist_add(out, interp);
	return r;
}
