/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "config.h"
#include "landrun/lib/json.h"
#include "landrun/lib/landlock_uapi.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/features.h"
#include "landrun/policy/egress-rules.h"
#include "landrun/policy/options.h"

/*
 * The text and the JSON say the same things: explain_view() works them out
 * once from the input (the protections and their layers, the kept-out
 * holes, the limits...), with the small iterators below for the lists, and
 * the two renderers only format them.
 */

static const char *const fs_right_names[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
	"make_sym", "refer", "truncate", "ioctl_dev", "resolve_unix",
};

/* One protection as both renderers show it. */
struct explain_prot {
	const char *id, *what;
	bool requested;
	const char *layer;	/* the layer enforcing it: NULL when not requested, or lost */
	const char *needs;	/* what it lacks when lost, else NULL */
};

/* What is shown, worked out once from the input. */
struct explain_view {
	const struct lr_explain_input *in;
	const struct lr_policy *p;
	const struct lr_plan *plan;
	char release[sizeof(((struct utsname *)0)->release)];
	struct explain_prot prot[LR_PROT_COUNT];
	bool supervised;	/* a supervisor stays: --init, --timeout, --audit-log... */
	bool audited;		/* the kernel's audit records Landlock's denials */
	uint16_t proxy_port;	/* mode netns: the proxy's port, 0 for a free one */
};

static void explain_view(const struct lr_explain_input *in, struct explain_view *v)
{
	const struct lr_policy *p = in->policy;
	struct utsname u;

	v->in = in;
	v->p = p;
	v->plan = in->plan;
	if (uname(&u) < 0)
		strcpy(u.release, "?");
	memcpy(v->release, u.release, sizeof(v->release));
	for (int i = 0; i < LR_PROT_COUNT; i++) {
		const struct lr_prot_info *info = lr_prot_info(i);
		const struct lr_plan_row *row = &in->plan->rows[i];
		bool enforced = row->requested && row->layer != LR_LAYER_NONE;

		v->prot[i] = (struct explain_prot){
			.id = info->id,
			.what = info->what,
			.requested = row->requested,
			.layer = enforced ? lr_layer_name(row->layer) : NULL,
			.needs = lr_plan_is_lost(in->plan, i) ? info->needs : NULL,
		};
	}
	v->supervised = p->init || p->timeout_ms || p->die_with_parent || p->audit_log ||
			p->report_denials;
	v->audited = in->plan->restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;
	v->proxy_port = in->plan->egress == LR_EGRESS_NETNS ? lr_egress_netns_port(p) : 0;
}

/* The name of the next right in mask from *bit on, or NULL after the last. */
static const char *next_right(uint64_t mask, size_t *bit)
{
	for (; *bit < sizeof(fs_right_names) / sizeof(*fs_right_names); (*bit)++)
		if (mask & (1ULL << *bit))
			return fs_right_names[(*bit)++];
	return NULL;
}

/* The next hole from *i on that the grants were carved around, or NULL. */
static const struct lr_hole *next_kept_out(const struct lr_holes *holes, size_t *i)
{
	for (; *i < holes->n; (*i)++)
		if (holes->v[*i].carved)
			return &holes->v[(*i)++];
	return NULL;
}

enum limit_state { LIMIT_UNSET, LIMIT_UNLIMITED, LIMIT_VALUE };

/* A limit as set for the command: RLIMIT_CORE is 0 unless set. */
static enum limit_state limit_state(const struct lr_limit_setting *l, int limit,
				    unsigned long long *value)
{
	*value = l->set ? l->value : 0;
	if (!l->set && limit != LR_LIMIT_CORE)
		return LIMIT_UNSET;
	return l->set && l->value == RLIM_INFINITY ? LIMIT_UNLIMITED : LIMIT_VALUE;
}

/* "as", "core", ...: the --rlimit-* option's name without its prefix */
static const char *limit_name(int limit)
{
	return lr_option_get(LR_OPT_RLIMIT_AS + limit)->name + strlen("rlimit-");
}

/* --secret-header: the variables its value is made of; false when none is set. */
static bool site_vars(const struct lr_http_site *s, struct lr_strlist *vars)
{
	return s->header_name && lr_egress_secret_vars(s->header_value, vars) == 0;
}

/* --allow-request: "METHOD PATH", "*" ending a prefix (the JSON's; the text
 * prints it whole, however long) */
static const char *request_text(const struct lr_http_allow *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s%s", a->method, a->path, a->prefix ? "*" : "");
	return buf;
}

static const char *fs_rights_text(uint64_t mask, char *buf, size_t len)
{
	size_t used = 0;
	const char *name;

	buf[0] = '\0';
	for (size_t b = 0; (name = next_right(mask, &b));) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", name);

		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

static void print_ports(FILE *out, const struct lr_port_range *r, size_t n, bool json)
{
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", out);
		if (json)
			fputc('"', out);
		if (r[i].first == r[i].last)
			fprintf(out, "%u", r[i].first);
		else
			fprintf(out, "%u-%u", r[i].first, r[i].last);
		if (json)
			fputc('"', out);
	}
	if (!n && !json)
		fputs("none", out);
}

static void print_limit(FILE *out, const struct lr_limit_setting *l, int limit, bool json)
{
	unsigned long long value;

	switch (limit_state(l, limit, &value)) {
	case LIMIT_UNSET:
		fputs(json ? "null" : "not set", out);
		break;
	case LIMIT_UNLIMITED:
		fputs(json ? "\"unlimited\"" : "unlimited", out);
		break;
	case LIMIT_VALUE:
		fprintf(out, "%llu", value);
		break;
	}
}

static const char *mode_name(enum lr_on_unsupported m)
{
	switch (m) {
	case LR_UNSUPPORTED_ERROR:
		return "error";
	case LR_UNSUPPORTED_IGNORE:
		return "ignore";
	case LR_UNSUPPORTED_WARN:
		break;
	}
	return "warn";
}

static const char *landlock_state(const struct lr_plan *plan, char *buf, size_t len)
{
	if (plan->abi_kernel > 0) {
		snprintf(buf, len, "ABI %d%s", plan->abi_kernel,
			 plan->abi_kernel > plan->abi ? " (landrun uses what it knows, up to 10)" : "");
	} else {
		lr_plan_landlock_cause(plan, buf, len);
	}
	return buf;
}

static const char *egress_mode_name(enum lr_egress_mode m)
{
	return m == LR_EGRESS_NETNS ? "netns" : m == LR_EGRESS_LOOPBACK ? "loopback" : NULL;
}

static size_t env_name_len(const char *name_value)
{
	return strcspn(name_value, "=");
}

/* ---- the text ---- */

/* --secret-header, --allow-request: the hosts whose TLS the proxy ends.
 * The secret's value is never shown: the header's name, and the variables. */
static void text_intercepted(FILE *out, const struct lr_policy *p)
{
	for (size_t i = 0; i < p->n_egress_sites; i++) {
		const struct lr_http_site *s = &p->egress_sites[i];
		struct lr_strlist vars = { 0 };

		fprintf(out, "  intercepted %s:%u: the proxy ends its TLS (a CA made for the run, "
			     "in SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, ...)", s->host, s->port);
		if (site_vars(s, &vars)) {
			fprintf(out, "; sets %s from", s->header_name);
			for (size_t j = 0; j < vars.n; j++)
				fprintf(out, "%s $%s", j ? "," : "", vars.v[j]);
			fprintf(out, "%s (the command gets %s), refusing another credential",
				vars.n ? "" : " a literal value", LR_EGRESS_PLACEHOLDER);
		}
		lr_strlist_free(&vars);
		if (!s->n_allow)
			fprintf(out, "; any request");
		for (size_t j = 0; j < s->n_allow; j++)
			fprintf(out, "%s%s %s%s", j ? ", " : "; only ", s->allow[j].method, s->allow[j].path,
				s->allow[j].prefix ? "*" : "");
		fprintf(out, "\n");
	}
}

/* --allow-domain: which mode runs, and what it lets out. */
static void text_egress(FILE *out, const struct explain_view *v)
{
	const struct lr_policy *p = v->p;
	const struct lr_plan *plan = v->plan;
	char buf[300];

	if (plan->egress == LR_EGRESS_OFF)
		return;
	fprintf(out, "egress: --allow-domain");
	for (size_t i = 0; i < p->n_allow_domains; i++)
		fprintf(out, "%s%s", i ? ", " : " ",
			lr_egress_dest_text(&p->allow_domains[i], buf, sizeof(buf)));
	fprintf(out, "\n");
	if (plan->egress == LR_EGRESS_NETNS) {
		if (v->proxy_port)
			fprintf(out, "  mode netns: a network namespace of its own with only lo; the proxy "
				     "at 127.0.0.1:%u is its only way out", v->proxy_port);
		else
			fprintf(out, "  mode netns: a network namespace of its own with only lo; the proxy "
				     "on a free port of 127.0.0.1 is its only way out");
		if (p->n_connect_tcp) {
			fprintf(out, "; the host's 127.0.0.1 on ");
			print_ports(out, p->connect_tcp, p->n_connect_tcp, false);
			fprintf(out, " forwarded");
		}
		fprintf(out, "\n");
	} else if (plan->broker_connect) {
		fprintf(out, "  mode loopback, brokered: no network namespace (%s): the proxy listens "
			     "on the host's 127.0.0.1, landrun's broker makes the command's connects "
			     "to it, and its port is not the command's: no other address on it is "
			     "reachable%s\n",
			strerror(plan->netns_errno),
			plan->broker_connect_own
				? " (pidfd_getfd is refused here: a socket of the broker's, connected, "
				  "takes the place of the command's, without the options set on it "
				  "before the connect)"
				: "");
	} else {
		fprintf(out, "  mode loopback: NO network namespace (%s): the proxy listens on the "
			     "host's 127.0.0.1 and TCP connects are allowed to its port only, on ANY "
			     "address: a server elsewhere on that port is reachable too\n",
			strerror(plan->netns_errno));
	}
	fprintf(out, "  HTTPS_PROXY, HTTP_PROXY, ALL_PROXY (and lower case) point the command at "
		     "it; NO_PROXY: localhost, 127.0.0.1, ::1\n");
	text_intercepted(out, p);
}

/* What the drop-in default chose (project.c), and a private HOME. */
static void text_defaults(FILE *out, const struct lr_policy *p)
{
	if (p->outright)
		fprintf(out, "defaults: none (%s names the system: the command line says the whole "
			     "policy, as the Go landrun's do)\n",
			p->outright);
	if (p->profile)
		fprintf(out, "profile: %s (the default for this command: no --profile or --config "
			     "given; --profile none: no profile)\n",
			p->profile);
	if (p->project_note)
		fprintf(out, "%s%s\n", p->project_note,
			p->project && !strstr(p->project_note, " not granted") ? "; --no-project: none" : "");
	if (p->home_private)
		fprintf(out, "HOME: a new, empty directory, not yours (private-home: the command is "
			     "given no HOME): nothing of ~/.config, ~/.cache... is there; --env HOME "
			     "gives it yours (grant what it needs of it: --ro ~/.gitconfig), --env "
			     "HOME=DIR --rw DIR one of its own that stays; --report-denials tells "
			     "what it looked for there\n");
}

static void text_head(FILE *out, const struct explain_view *v)
{
	const struct lr_plan *plan = v->plan;
	char buf[512];

	fprintf(out, "kernel %s, Landlock %s, errata 0x%x, seccomp %s\n", v->release,
		landlock_state(plan, buf, sizeof(buf)), plan->landlock_errata,
		!plan->seccomp		 ? "unavailable"
		: plan->seccomp_by_prctl ? "filters (by prctl: the caller's filter refuses seccomp(2))"
					 : "filters");
	fprintf(out, "on-unsupported: %s\n", mode_name(v->p->on_unsupported));
	text_defaults(out, v->p);
	fprintf(out, "\nprotections:\n");
	for (int i = 0; i < LR_PROT_COUNT; i++) {
		const struct explain_prot *pr = &v->prot[i];

		if (!pr->requested)
			fprintf(out, "  %-20s off       (not requested) %s\n", pr->id, pr->what);
		else if (!pr->layer)
			fprintf(out, "  %-20s LOST      %s; needs %s\n", pr->id, pr->what, pr->needs);
		else
			fprintf(out, "  %-20s %-9s %s\n", pr->id, pr->layer, pr->what);
	}
}

/* The grants, what they were carved around, what the broker serves. */
static void text_files(FILE *out, const struct explain_view *v)
{
	const struct lr_explain_input *in = v->in;
	const struct lr_hole *h;
	char buf[512];

	fprintf(out, "\ngrants:\n");
	if (!in->rules->n)
		fprintf(out, "  (none)\n");
	for (size_t i = 0; i < in->rules->n; i++) {
		const struct lr_fs_rule *r = &in->rules->v[i];

		fprintf(out, "  %-6s %s%s -> %s%s: %s (%s)\n", r->grant->flag, r->grant->path,
			r->carved ? " (carved)" : "", r->realpath,
			r->fd < 0 ? " (made at start by --mkdir)" : "",
			r->rights ? fs_rights_text(r->rights, buf, sizeof(buf))
				  : "nothing (no Landlock)",
			r->grant->origin ? r->grant->origin : "the command line");
	}
	for (size_t i = 0, n = 0; (h = next_kept_out(in->holes, &i));) {
		if (n++ == 0)
			fprintf(out, "\nkept out of the grants (each granted directory above them is "
				     "carved: its entries are granted one by one):\n");
		fprintf(out, "  %-9s %s: %s\n", h->kind == LR_HOLE_SECRET ? "no access" : "read-only",
			h->path, h->why);
	}
	for (size_t i = 0; in->brokered && i < in->brokered->n; i++)
		fprintf(out, "%s  %s\n",
			i ? "" : "\nbrokered (names made, removed and renamed by landrun's broker, "
				 "which refuses the protected and secret ones):\n",
			in->brokered->v[i]);
	if (v->p->private_tmp || v->p->private_home)
		fprintf(out, "\nprivate directories: %s%s%s (made under /tmp at start when the command "
			     "would get none)\n",
			v->p->private_tmp ? "TMPDIR" : "",
			v->p->private_tmp && v->p->private_home ? " and " : "",
			v->p->private_home ? "HOME" : "");
}

static void text_network(FILE *out, const struct explain_view *v)
{
	const struct lr_policy *p = v->p;

	fprintf(out, "\nnetwork: %s; TCP connect: ", p->unrestricted_net ? "unrestricted" : "restricted");
	print_ports(out, p->connect_tcp, p->n_connect_tcp, false);
	fprintf(out, "; TCP bind: ");
	print_ports(out, p->bind_tcp, p->n_bind_tcp, false);
	fprintf(out, "\n");
	text_egress(out, v);
}

/* The supervisor, what is done with the denials, the limits. */
static void text_lifetime(FILE *out, const struct explain_view *v)
{
	const struct lr_policy *p = v->p;

	fprintf(out, "lifetime: ");
	if (v->supervised)
		fprintf(out, "supervised (asked for by%s%s%s%s%s), grace %llu ms%s%s\n",
			p->init ? " --init" : "", p->timeout_ms ? " --timeout" : "",
			p->die_with_parent ? " --die-with-parent" : "",
			p->audit_log ? " --audit-log" : "", p->report_denials ? " --report-denials" : "",
			p->timeout_grace_ms, p->audit_log ? "; audit log " : "",
			p->audit_log ? p->audit_log : "");
	else
		fprintf(out, "exec in place (supervised only as PID 1)\n");
	if (p->report_denials || p->landlock_audit) {
		fprintf(out, "denials:");
		if (p->report_denials)
			fprintf(out, " traced, and listed when the command ends%s%s%s",
				p->learn ? ", and learned into " : "", p->learn ? p->learn : "",
				p->landlock_audit ? ";" : "");
		if (p->landlock_audit)
			fprintf(out, " %s",
				v->audited ? "recorded by the kernel's audit, if enabled (Landlock)"
					   : "not recorded by the kernel's audit: needs Landlock "
					     "ABI 7");
		fputc('\n', out);
	}
	if (p->timeout_ms)
		fprintf(out, "timeout: %llu ms\n", p->timeout_ms);
	fprintf(out, "limits:");
	for (int i = 0; i < LR_LIMIT_COUNT; i++) {
		fprintf(out, "%s %s ", i ? ";" : "", limit_name(i));
		print_limit(out, &p->limits[i], i, false);
	}
	fprintf(out, "\n");
}

static void text_command(FILE *out, const struct explain_view *v)
{
	const struct lr_explain_input *in = v->in;

	fprintf(out, "\nenvironment (%zu variables, values not shown):", in->env->n);
	for (size_t i = 0; i < in->env->n; i++)
		fprintf(out, " %.*s", (int)env_name_len(in->env->v[i]), in->env->v[i]);
	fprintf(out, "\n");
	fprintf(out, "runs as: uid %u, gid %u%s\n", (unsigned)v->plan->uid, (unsigned)v->plan->gid,
		v->plan->switch_user ? " (--user: landrun switches to them, with no other group)" : "");
	if (in->command)
		fprintf(out, "command: %s\n", in->command);
}

static void explain_text(FILE *out, const struct lr_explain_input *in)
{
	struct explain_view v;

	explain_view(in, &v);
	text_head(out, &v);
	text_files(out, &v);
	text_network(out, &v);
	text_lifetime(out, &v);
	text_command(out, &v);
}

/* The text, each line escaped: paths expanded from the environment, names
 * found in the grants and the command's words are shown, not acted on. */
void lr_explain_text(FILE *out, const struct lr_explain_input *in)
{
	char *text = NULL, *line, *end;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		fprintf(out, "landrun: --explain: out of memory\n");
		return;
	}
	explain_text(mem, in);
	if (fclose(mem) != 0 || !text) {
		free(text);
		fprintf(out, "landrun: --explain: out of memory\n");
		return;
	}
	for (line = text; line < text + len; line = end + 1) {
		size_t n, need;
		char *esc;

		end = memchr(line, '\n', (size_t)(text + len - line));
		if (!end)
			end = text + len;
		n = (size_t)(end - line);
		need = lr_escape(NULL, 0, line, n, false);
		esc = malloc(need + 1);
		if (esc)
			lr_escape(esc, need + 1, line, n, false);
		fprintf(out, "%s\n", esc ? esc : "(out of memory)");
		free(esc);
	}
	free(text);
}

/* ---- the JSON ---- */

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

static void json_intercepted(FILE *out, const struct lr_policy *p)
{
	char rule[600];

	if (!p->n_egress_sites)
		return;
	fprintf(out, ",\"intercepted\":[");
	for (size_t i = 0; i < p->n_egress_sites; i++) {
		const struct lr_http_site *s = &p->egress_sites[i];
		struct lr_strlist vars = { 0 };

		fprintf(out, "%s{\"host\":", i ? "," : "");
		lr_json_str(out, s->host);
		fprintf(out, ",\"port\":%u,\"header\":", s->port);
		lr_json_str(out, s->header_name);
		fprintf(out, ",\"variables\":[");
		if (site_vars(s, &vars))
			for (size_t j = 0; j < vars.n; j++) {
				fputs(j ? "," : "", out);
				lr_json_str(out, vars.v[j]);
			}
		lr_strlist_free(&vars);
		fprintf(out, "],\"requests\":[");
		for (size_t j = 0; j < s->n_allow; j++) {
			fputs(j ? "," : "", out);
			lr_json_str(out, request_text(&s->allow[j], rule, sizeof(rule)));
		}
		fprintf(out, "]}");
	}
	fputc(']', out);
}

static void json_head(FILE *out, const struct explain_view *v)
{
	const struct lr_plan *plan = v->plan;

	fprintf(out, "{\"schema\":1,\"landrun_version\":");
	lr_json_str(out, LR_VERSION);
	fprintf(out, ",\"kernel\":{\"release\":");
	lr_json_str(out, v->release);
	fprintf(out, ",\"landlock_abi\":%d,\"landlock_abi_used\":%d,\"landlock_abi_known\":%d,"
		     "\"landlock_errno\":",
		plan->abi_kernel, plan->abi, LR_LANDLOCK_ABI_KNOWN);
	lr_json_str(out, plan->landlock_errno ? strerrorname_np(plan->landlock_errno) : NULL);
	fprintf(out, ",\"landlock_errata\":%u,\"seccomp\":%s},\"on_unsupported\":",
		plan->landlock_errata, json_bool(plan->seccomp));
	lr_json_str(out, mode_name(v->p->on_unsupported));
	fprintf(out, ",\"profile\":");
	lr_json_str(out, v->p->profile);
	fprintf(out, ",\"project\":");
	lr_json_str(out, v->p->project);
	fprintf(out, ",\"protections\":[");
	for (int i = 0; i < LR_PROT_COUNT; i++) {
		const struct explain_prot *pr = &v->prot[i];

		fprintf(out, "%s{\"id\":", i ? "," : "");
		lr_json_str(out, pr->id);
		fprintf(out, ",\"requested\":%s,\"enforced\":%s,\"layer\":", json_bool(pr->requested),
			json_bool(pr->layer != NULL));
		lr_json_str(out, pr->layer);
		fprintf(out, ",\"what\":");
		lr_json_str(out, pr->what);
		fprintf(out, ",\"needs\":");
		lr_json_str(out, pr->needs);
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_grant(FILE *out, const struct lr_fs_rule *r)
{
	const char *name;

	fprintf(out, "{\"flag\":");
	lr_json_str(out, r->grant->flag);
	fprintf(out, ",\"path\":");
	lr_json_str(out, r->grant->path);
	fprintf(out, ",\"resolved\":");
	lr_json_str(out, r->realpath);
	fprintf(out, ",\"rights\":[");
	for (size_t b = 0, n = 0; (name = next_right(r->rights, &b));) {
		fputs(n++ ? "," : "", out);
		lr_json_str(out, name);
	}
	fprintf(out, "],\"optional\":%s,\"carved\":%s,\"made_at_start\":%s,\"origin\":",
		json_bool(r->grant->optional), json_bool(r->carved), json_bool(r->fd < 0));
	lr_json_str(out, r->grant->origin);
	fputc('}', out);
}

/* The grants, what they were carved around, what the broker serves. */
static void json_files(FILE *out, const struct explain_view *v)
{
	const struct lr_explain_input *in = v->in;
	const struct lr_hole *h;

	fprintf(out, ",\"grants\":[");
	for (size_t i = 0; i < in->rules->n; i++) {
		fputs(i ? "," : "", out);
		json_grant(out, &in->rules->v[i]);
	}
	fprintf(out, "],\"kept_out\":[");
	for (size_t i = 0, n = 0; (h = next_kept_out(in->holes, &i));) {
		fprintf(out, "%s{\"path\":", n++ ? "," : "");
		lr_json_str(out, h->path);
		fprintf(out, ",\"access\":");
		lr_json_str(out, h->kind == LR_HOLE_SECRET ? "none" : "read");
		fprintf(out, ",\"why\":");
		lr_json_str(out, h->why);
		fputc('}', out);
	}
	fprintf(out, "],\"brokered\":[");
	for (size_t i = 0; in->brokered && i < in->brokered->n; i++) {
		fputs(i ? "," : "", out);
		lr_json_str(out, in->brokered->v[i]);
	}
	fprintf(out, "],\"filesystem\":{\"unrestricted\":%s,\"private_tmp\":%s,\"private_home\":%s}",
		json_bool(v->p->unrestricted_fs), json_bool(v->p->private_tmp),
		json_bool(v->p->private_home));
}

static void json_process(FILE *out, const struct explain_view *v)
{
	const struct lr_policy *p = v->p;

	fprintf(out, ",\"process\":{\"deny_subprocess\":%s,\"allow_sysv_ipc\":%s,\"keep_fds\":[",
		json_bool(p->deny_subprocess), json_bool(p->allow_sysv_ipc));
	for (size_t i = 0; i < p->n_keep_fds; i++)
		fprintf(out, "%s%d", i ? "," : "", p->keep_fds[i]);
	fprintf(out, "],\"uid\":%u,\"gid\":%u,\"switch_user\":%s}", (unsigned)v->plan->uid,
		(unsigned)v->plan->gid, json_bool(v->plan->switch_user));
}

static void json_network(FILE *out, const struct explain_view *v)
{
	const struct lr_policy *p = v->p;
	const struct lr_plan *plan = v->plan;
	char buf[300];

	fprintf(out, ",\"network\":{\"unrestricted\":%s,\"unrestricted_scoped\":%s,\"connect_tcp\":[",
		json_bool(p->unrestricted_net), json_bool(p->unrestricted_scoped));
	print_ports(out, p->connect_tcp, p->n_connect_tcp, true);
	fprintf(out, "],\"bind_tcp\":[");
	print_ports(out, p->bind_tcp, p->n_bind_tcp, true);
	fprintf(out, "],\"allow_domain\":[");
	for (size_t i = 0; i < p->n_allow_domains; i++) {
		fputs(i ? "," : "", out);
		lr_json_str(out, lr_egress_dest_text(&p->allow_domains[i], buf, sizeof(buf)));
	}
	fprintf(out, "],\"egress\":");
	if (plan->egress == LR_EGRESS_OFF) {
		fputs("null", out);
	} else {
		fprintf(out, "{\"mode\":");
		lr_json_str(out, egress_mode_name(plan->egress));
		if (v->proxy_port)
			fprintf(out, ",\"proxy\":\"127.0.0.1:%u\"", v->proxy_port);
		else
			fprintf(out, ",\"proxy\":null");
		fprintf(out, ",\"netns_errno\":");
		lr_json_str(out, plan->netns_errno ? strerrorname_np(plan->netns_errno) : NULL);
		fprintf(out, ",\"brokered\":%s", json_bool(plan->broker_connect));
		json_intercepted(out, p);
		fputc('}', out);
	}
	fputc('}', out);
}

/* The supervisor, what is done with the denials, the limits. */
static void json_lifetime(FILE *out, const struct explain_view *v)
{
	const struct lr_policy *p = v->p;

	fprintf(out, ",\"lifetime\":{\"init\":%s,\"timeout_ms\":%llu,\"timeout_grace_ms\":%llu,"
		     "\"die_with_parent\":%s,\"audit_log\":",
		json_bool(p->init), p->timeout_ms, p->timeout_grace_ms,
		json_bool(p->die_with_parent));
	lr_json_str(out, p->audit_log);
	fprintf(out, "},\"denials\":{\"report\":%s,\"learn\":", json_bool(p->report_denials));
	lr_json_str(out, p->learn);
	fprintf(out, ",\"landlock_audit\":%s},\"limits\":{", json_bool(v->audited));
	for (int i = 0; i < LR_LIMIT_COUNT; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", limit_name(i));
		print_limit(out, &p->limits[i], i, true);
	}
	fputc('}', out);
}

static void json_command(FILE *out, const struct explain_view *v)
{
	const struct lr_explain_input *in = v->in;

	fprintf(out, ",\"environment\":[");
	for (size_t i = 0; i < in->env->n; i++) {
		fputs(i ? "," : "", out);
		lr_json_strn(out, in->env->v[i], env_name_len(in->env->v[i]));
	}
	fprintf(out, "],\"command\":");
	lr_json_str(out, in->command);
	fputc('}', out);
}

void lr_explain_json_object(FILE *out, const struct lr_explain_input *in)
{
	struct explain_view v;

	explain_view(in, &v);
	json_head(out, &v);
	json_files(out, &v);
	json_process(out, &v);
	json_network(out, &v);
	json_lifetime(out, &v);
	json_command(out, &v);
}

void lr_explain_json(FILE *out, const struct lr_explain_input *in)
{
	lr_explain_json_object(out, in);
	fputc('\n', out);
}
