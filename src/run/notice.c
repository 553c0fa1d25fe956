/* SPDX-License-Identifier: MIT */
/*
 * The one-line notices: the project and profile landrun chose, what it kept
 * out of the grants, where the network leads.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landrun/confine/project.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/fsrules.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/policy.h"
#include "run.h"

/* The path as the user will recognise it: relative to the current directory
 * when beneath it. */
static const char *shown(const char *path, const char *cwd)
{
	size_t n = cwd ? strlen(cwd) : 0;

	if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* A list in a notice, "a, b, c, d and 3 more": item N (from 0) of it, TEXT,
 * appended to OUT if it is one of the first four; then, after the last,
 * how many more there were of TOTAL. */
static void list_item(struct lr_buf *out, size_t n, const char *text)
{
	if (n < 4 && ((n && lr_buf_add(out, ", ", 2) < 0) || lr_buf_add(out, text, strlen(text)) < 0))
		lr_die("out of memory");
}

static void list_end(struct lr_buf *out, size_t total)
{
	char more[32];

	if (total <= 4)
		return;
	snprintf(more, sizeof(more), " and %zu more", total - 4);
	if (lr_buf_add(out, more, strlen(more)) < 0)
		lr_die("out of memory");
}

/* Append the carved holes of KIND to OUT ("a, b and 3 more"); false if none. */
static bool list_holes(const struct lr_holes *holes, enum lr_hole_kind kind, const char *cwd,
		       struct lr_buf *out)
{
	size_t n = 0;

	for (size_t i = 0; i < holes->n; i++) {
		const struct lr_hole *h = &holes->v[i];

		if (h->carved && h->kind == kind)
			list_item(out, n++, shown(h->path, cwd));
	}
	list_end(out, n);
	return n > 0;
}

static void add_part(struct lr_buf *line, const char *text)
{
	if ((line->len && lr_buf_add(line, "; ", 2) < 0) || lr_buf_add(line, text, strlen(text)) < 0)
		lr_die("out of memory");
}

static void tell_grants(const struct lr_policy *policy, const struct lr_holes *holes)
{
	static const struct {
		enum lr_hole_kind kind;
		const char *head, *tail;
	} kinds[] = {
		{ LR_HOLE_SECRET, "kept out: ", " (secret files)" },
		{ LR_HOLE_PROTECTED, "read-only: ", " (code there runs outside the sandbox later)" },
	};
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	struct lr_buf line = { 0 };
	bool carved = false;

	_cleanup_free_ char *chosen = lr_project_describe(policy);

	if (chosen)
		add_part(&line, chosen);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++) {
		struct lr_buf list = { 0 };

		if (list_holes(holes, kinds[k].kind, cwd, &list)) {
			if (lr_buf_add(&list, kinds[k].tail, strlen(kinds[k].tail)) < 0)
				lr_die("out of memory");
			add_part(&line, kinds[k].head);
			if (lr_buf_add(&line, list.s, list.len) < 0)
				lr_die("out of memory");
			carved = true;
		}
		free(list.s);
	}
	if (carved)
		add_part(&line, "see --explain");
	if (line.len)
		lr_notice("%s", line.s);
	free(line.s);
}

static void tell_network(const struct lr_policy *policy)
{
	struct lr_buf line = { 0 };
	char text[300];

	if (!policy->n_allow_domains)
		return;
	add_part(&line, "network: only through landrun's proxy, to ");
	for (size_t i = 0; i < policy->n_allow_domains && i < 4; i++)
		list_item(&line, i, lr_egress_dest_text(&policy->allow_domains[i], text, sizeof(text)));
	list_end(&line, policy->n_allow_domains);
	for (size_t i = 0; i < policy->n_connect_tcp; i++) {
		const struct lr_port_range *r = &policy->connect_tcp[i];

		if (r->first == r->last)
			snprintf(text, sizeof(text), "%s%u", i ? "," : ", and the host's 127.0.0.1 port ",
				 r->first);
		else
			snprintf(text, sizeof(text), "%s%u-%u",
				 i ? "," : ", and the host's 127.0.0.1 ports ", r->first, r->last);
		if (lr_buf_add(&line, text, strlen(text)) < 0)
			lr_die("out of memory");
	}
	add_part(&line, "add a host: --allow-domain NAME; a local model: --connect-tcp PORT");
	lr_notice("%s", line.s);
	free(line.s);
}

void tell(const struct lr_explain_input *in)
{
	const struct lr_plan *plan = in->plan;

	if (in->policy->landlock_audit &&
	    !(plan->restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON))
		lr_warn("--landlock-audit: the kernel records nothing: that needs Landlock ABI 7 "
			"(Linux 6.15) and a Landlock domain (here: ABI %d)",
			plan->abi_kernel);
	tell_grants(in->policy, in->holes);
	tell_network(in->policy);
	lr_info("Landlock ABI %d (using %d), %zu rules, seccomp filter %s, %zu variables for %s",
		plan->abi_kernel, plan->abi, in->rules->n, plan->seccomp ? "on" : "unavailable",
		in->env->n, in->command);
}
