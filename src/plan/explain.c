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

static const char *const fs_right_names[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
	"make_sym", "refer", "truncate", "ioctl_dev", "resolve_unix",
};

static const char *fs_rights_text(uint64_t mask, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(fs_right_names) / sizeof(*fs_right_names); i++) {
		int n;

		if (!(mask & (1ULL << i)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", fs_right_names[i]);
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

/* "as", "core", ...: the --rlimit-* option's name without its prefix */
static const char *limit_name(int limit)
{
	return lr_option_get(LR_OPT_RLIMIT_AS + limit)->name + strlen("rlimit-");
}

/* A limit as set for the command: RLIMIT_CORE is 0 unless set. */
static void print_limit(FILE *out, const struct lr_limit_setting *l, int limit, bool json)
{
	if (!l->set && limit != LR_LIMIT_CORE)
		fputs(json ? "null" : "not set", out);
	else if (l->set && l->value == RLIM_INFINITY)
		fputs(json ? "\"unlimited\"" : "unlimited", out);
	else
		fprintf(out, "%llu", l->set ? l->value : 0);
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

/* --secret-header, --allow-request: the hosts whose TLS the proxy ends.
 * The secret's value is never shown: the header's name, and the variables. */
static void explain_intercepted_text(FILE *out, const struct lr_policy *p)
{
	for (size_t i = 0; i < p->n_egress_sites; i++) {
		const struct lr_http_site *s = &p->egress_sites[i];
		struct lr_strlist vars = { 0 };

		fprintf(out, "  intercepted %s:%u: the proxy ends its TLS (a CA made for the run, "
			     "in SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, ...)", s->host, s->port);
		if (s->header_name && lr_egress_secret_vars(s->header_value, &vars) == 0) {
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

static void explain_intercepted_json(FILE *out, const struct lr_policy *p)
{
	if (!p->n_egress_sites)
		return;
	fprintf(out, ",\"intercepted\":[");
	for (size_t i = 0; i < p->n_egress_sites; i++) {
		const struct lr_http_site *s = &p->egress_sites[i];
		struct lr_strlist vars = { 0 };
		char rule[600];

		fprintf(out, "%s{\"host\":", i ? "," : "");
		lr_json_str(out, s->host);
		fprintf(out, ",\"port\":%u,\"header\":", s->port);
		lr_json_str(out, s->header_name);
		fprintf(out, ",\"variables\":[");
		if (s->header_name && lr_egress_secret_vars(s->header_value, &vars) == 0)
			for (size_t j = 0; j < vars.n; j++) {
				fputs(j ? "," : "", out);
				lr_json_str(out, vars.v[j]);
			}
		lr_strlist_free(&vars);
		fprintf(out, "],\"requests\":[");
		for (size_t j = 0; j < s->n_allow; j++) {
			snprintf(rule, sizeof(rule), "%s %s%s", s->allow[j].method, s->allow[j].path,
				 s->allow[j].prefix ? "*" : "");
			fputs(j ? "," : "", out);
			lr_json_str(out, rule);
		}
		fprintf(out, "]}");
	}
	fputc(']', out);
}

/* --allow-domain: which mode runs, and what it lets out. */
static void explain_egress_text(FILE *out, const struct lr_explain_input *in)
{
	const struct lr_policy *p = in->policy;
	const struct lr_plan *plan = in->plan;
	uint16_t port = lr_egress_netns_port(p);
	char buf[300];

	if (plan->egress == LR_EGRESS_OFF)
		return;
	fprintf(out, "egress: --allow-domain");
	for (size_t i = 0; i < p->n_allow_domains; i++)
		fprintf(out, "%s%s", i ? ", " : " ",
			lr_egress_dest_text(&p->allow_domains[i], buf, sizeof(buf)));
	fprintf(out, "\n");
	if (plan->egress == LR_EGRESS_NETNS) {
		if (port)
			fprintf(out, "  mode netns: a network namespace of its own with only lo; the proxy "
				     "at 127.0.0.1:%u is its only way out", port);
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
	explain_intercepted_text(out, p);
}

/* What the drop-in default chose (project.c), and a private HOME. */
static void explain_defaults(FILE *out, const struct lr_policy *p)
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

static void explain_text(FILE *out, const struct lr_explain_input *in)
{
	const struct lr_plan *plan = in->plan;
	struct utsname u;
	char buf[512];

	if (uname(&u) < 0)
		strcpy(u.release, "?");
	fprintf(out, "kernel %s, Landlock %s, errata 0x%x, seccomp %s\n", u.release,
		landlock_state(plan, buf, sizeof(buf)), plan->landlock_errata,
		!plan->seccomp		 ? "unavailable"
		: plan->seccomp_by_prctl ? "filters (by prctl: the caller's filter refuses seccomp(2))"
					 : "filters");
	fprintf(out, "on-unsupported: %s\n", mode_name(in->policy->on_unsupported));
	explain_defaults(out, in->policy);
	fprintf(out, "\nprotections:\n");
	for (int p = 0; p < LR_PROT_COUNT; p++) {
		const struct lr_prot_info *info = lr_prot_info(p);
		const struct lr_plan_row *row = &plan->rows[p];

		if (!row->requested) {
			fprintf(out, "  %-20s off       (not requested) %s\n", info->id, info->what);
			continue;
		}
		if (row->layer == LR_LAYER_NONE)
			fprintf(out, "  %-20s LOST      %s; needs %s\n", info->id, info->what, info->needs);
		else
			fprintf(out, "  %-20s %-9s %s\n", info->id, lr_layer_name(row->layer), info->what);
	}
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
	for (size_t i = 0, n = 0; i < in->holes->n; i++) {
		const struct lr_hole *h = &in->holes->v[i];

		if (!h->carved)
			continue;
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
	if (in->policy->private_tmp || in->policy->private_home)
		fprintf(out, "\nprivate directories: %s%s%s (made under /tmp at start when the command "
			     "would get none)\n",
			in->policy->private_tmp ? "TMPDIR" : "",
			in->policy->private_tmp && in->policy->private_home ? " and " : "",
			in->policy->private_home ? "HOME" : "");
	fprintf(out, "\nnetwork: %s; TCP connect: ",
		in->policy->unrestricted_net ? "unrestricted" : "restricted");
	print_ports(out, in->policy->connect_tcp, in->policy->n_connect_tcp, false);
	fprintf(out, "; TCP bind: ");
	print_ports(out, in->policy->bind_tcp, in->policy->n_bind_tcp, false);
	fprintf(out, "\n");
	explain_egress_text(out, in);
	fprintf(out, "lifetime: ");
	if (in->policy->init || in->policy->timeout_ms || in->policy->die_with_parent ||
	    in->policy->audit_log || in->policy->report_denials)
		fprintf(out, "supervised (asked for by%s%s%s%s%s), grace %llu ms%s%s\n",
			in->policy->init ? " --init" : "",
			in->policy->timeout_ms ? " --timeout" : "",
			in->policy->die_with_parent ? " --die-with-parent" : "",
			in->policy->audit_log ? " --audit-log" : "",
			in->policy->report_denials ? " --report-denials" : "",
			in->policy->timeout_grace_ms, in->policy->audit_log ? "; audit log " : "",
			in->policy->audit_log ? in->policy->audit_log : "");
	else
		fprintf(out, "exec in place (supervised only as PID 1)\n");
	if (in->policy->report_denials || in->policy->landlock_audit) {
		bool audited = in->plan->restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;

		fprintf(out, "denials:");
		if (in->policy->report_denials)
			fprintf(out, " traced, and listed when the command ends%s%s%s",
				in->policy->learn ? ", and learned into " : "",
				in->policy->learn ? in->policy->learn : "",
				in->policy->landlock_audit ? ";" : "");
		if (in->policy->landlock_audit)
			fprintf(out, " %s",
				audited ? "recorded by the kernel's audit, if enabled (Landlock)"
					: "not recorded by the kernel's audit: needs Landlock "
					  "ABI 7");
		fputc('\n', out);
	}
	if (in->policy->timeout_ms)
		fprintf(out, "timeout: %llu ms\n", in->policy->timeout_ms);
	fprintf(out, "limits:");
	for (int i = 0; i < LR_LIMIT_COUNT; i++) {
		fprintf(out, "%s %s ", i ? ";" : "", limit_name(i));
		print_limit(out, &in->policy->limits[i], i, false);
	}
	fprintf(out, "\n");
	fprintf(out, "\nenvironment (%zu variables, values not shown):", in->env->n);
	for (size_t i = 0; i < in->env->n; i++)
		fprintf(out, " %.*s", (int)strcspn(in->env->v[i], "="), in->env->v[i]);
	fprintf(out, "\n");
	fprintf(out, "runs as: uid %u, gid %u%s\n", (unsigned)plan->uid, (unsigned)plan->gid,
		plan->switch_user ? " (--user: landrun switches to them, with no other group)" : "");
	if (in->command)
		fprintf(out, "command: %s\n", in->command);
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

void lr_explain_json_object(FILE *out, const struct lr_explain_input *in)
{
	const struct lr_plan *plan = in->plan;
	struct utsname u;

	if (uname(&u) < 0)
		strcpy(u.release, "?");
	fprintf(out, "{\"schema\":1,\"landrun_version\":");
	lr_json_str(out, LR_VERSION);
	fprintf(out, ",\"kernel\":{\"release\":");
	lr_json_str(out, u.release);
	fprintf(out, ",\"landlock_abi\":%d,\"landlock_abi_used\":%d,\"landlock_abi_known\":%d,"
		     "\"landlock_errno\":",
		plan->abi_kernel, plan->abi, LR_LANDLOCK_ABI_KNOWN);
	lr_json_str(out, plan->landlock_errno ? strerrorname_np(plan->landlock_errno) : NULL);
	fprintf(out, ",\"landlock_errata\":%u,\"seccomp\":%s},\"on_unsupported\":",
		plan->landlock_errata, plan->seccomp ? "true" : "false");
	lr_json_str(out, mode_name(in->policy->on_unsupported));
	fprintf(out, ",\"profile\":");
	lr_json_str(out, in->policy->profile);
	fprintf(out, ",\"project\":");
	lr_json_str(out, in->policy->project);
	fprintf(out, ",\"protections\":[");
	for (int p = 0; p < LR_PROT_COUNT; p++) {
		const struct lr_prot_info *info = lr_prot_info(p);
		const struct lr_plan_row *row = &plan->rows[p];

		fprintf(out, "%s{\"id\":", p ? "," : "");
		lr_json_str(out, info->id);
		fprintf(out, ",\"requested\":%s,\"enforced\":%s,\"layer\":",
			row->requested ? "true" : "false",
			row->requested && row->layer != LR_LAYER_NONE ? "true" : "false");
		lr_json_str(out, row->requested && row->layer != LR_LAYER_NONE
					 ? lr_layer_name(row->layer)
					 : NULL);
		fprintf(out, ",\"what\":");
		lr_json_str(out, info->what);
		fprintf(out, ",\"needs\":");
		lr_json_str(out, lr_plan_is_lost(plan, p) ? info->needs : NULL);
		fputc('}', out);
	}
	fprintf(out, "],\"grants\":[");
	for (size_t i = 0; i < in->rules->n; i++) {
		const struct lr_fs_rule *r = &in->rules->v[i];

		fprintf(out, "%s{\"flag\":", i ? "," : "");
		lr_json_str(out, r->grant->flag);
		fprintf(out, ",\"path\":");
		lr_json_str(out, r->grant->path);
		fprintf(out, ",\"resolved\":");
		lr_json_str(out, r->realpath);
		fprintf(out, ",\"rights\":[");
		for (size_t b = 0, n = 0; b < sizeof(fs_right_names) / sizeof(*fs_right_names); b++) {
			if (!(r->rights & (1ULL << b)))
				continue;
			fputs(n++ ? "," : "", out);
			lr_json_str(out, fs_right_names[b]);
		}
		fprintf(out, "],\"optional\":%s,\"carved\":%s,\"made_at_start\":%s,\"origin\":",
			r->grant->optional ? "true" : "false", r->carved ? "true" : "false",
			r->fd < 0 ? "true" : "false");
		lr_json_str(out, r->grant->origin);
		fputc('}', out);
	}
	fprintf(out, "],\"kept_out\":[");
	for (size_t i = 0, n = 0; i < in->holes->n; i++) {
		const struct lr_hole *h = &in->holes->v[i];

		if (!h->carved)
			continue;
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
	fprintf(out, "],\"filesystem\":{\"unrestricted\":%s,\"private_tmp\":%s,\"private_home\":%s},"
		     "\"process\":{\"deny_subprocess\":%s,\"allow_sysv_ipc\":%s,\"keep_fds\":[",
		in->policy->unrestricted_fs ? "true" : "false",
		in->policy->private_tmp ? "true" : "false",
		in->policy->private_home ? "true" : "false",
		in->policy->deny_subprocess ? "true" : "false",
		in->policy->allow_sysv_ipc ? "true" : "false");
	for (size_t i = 0; i < in->policy->n_keep_fds; i++)
		fprintf(out, "%s%d", i ? "," : "", in->policy->keep_fds[i]);
	fprintf(out, "],\"uid\":%u,\"gid\":%u,\"switch_user\":%s},\"network\":",
		(unsigned)plan->uid, (unsigned)plan->gid, plan->switch_user ? "true" : "false");
	fprintf(out, "{\"unrestricted\":%s,\"unrestricted_scoped\":%s,"
		     "\"connect_tcp\":[",
		in->policy->unrestricted_net ? "true" : "false",
		in->policy->unrestricted_scoped ? "true" : "false");
	print_ports(out, in->policy->connect_tcp, in->policy->n_connect_tcp, true);
	fprintf(out, "],\"bind_tcp\":[");
	print_ports(out, in->policy->bind_tcp, in->policy->n_bind_tcp, true);
	fprintf(out, "],\"allow_domain\":[");
	for (size_t i = 0; i < in->policy->n_allow_domains; i++) {
		char buf[300];

		fputs(i ? "," : "", out);
		lr_json_str(out, lr_egress_dest_text(&in->policy->allow_domains[i], buf, sizeof(buf)));
	}
	fprintf(out, "],\"egress\":");
	if (plan->egress == LR_EGRESS_OFF) {
		fputs("null", out);
	} else {
		uint16_t port = lr_egress_netns_port(in->policy);

		fprintf(out, "{\"mode\":");
		lr_json_str(out, egress_mode_name(plan->egress));
		if (plan->egress == LR_EGRESS_NETNS && port)
			fprintf(out, ",\"proxy\":\"127.0.0.1:%u\"", port);
		else
			fprintf(out, ",\"proxy\":null");
		fprintf(out, ",\"netns_errno\":");
		lr_json_str(out, plan->netns_errno ? strerrorname_np(plan->netns_errno) : NULL);
		fprintf(out, ",\"brokered\":%s", plan->broker_connect ? "true" : "false");
		explain_intercepted_json(out, in->policy);
		fputc('}', out);
	}
	fprintf(out, "},\"lifetime\":{\"init\":%s,\"timeout_ms\":%llu,\"timeout_grace_ms\":%llu,"
		     "\"die_with_parent\":%s,\"audit_log\":",
		in->policy->init ? "true" : "false", in->policy->timeout_ms,
		in->policy->timeout_grace_ms, in->policy->die_with_parent ? "true" : "false");
	lr_json_str(out, in->policy->audit_log);
	fprintf(out, "},\"denials\":{\"report\":%s,\"learn\":",
		in->policy->report_denials ? "true" : "false");
	lr_json_str(out, in->policy->learn);
	fprintf(out, ",\"landlock_audit\":%s},\"limits\":{",
		in->plan->restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON ? "true"
										  : "false");
	for (int i = 0; i < LR_LIMIT_COUNT; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", limit_name(i));
		print_limit(out, &in->policy->limits[i], i, true);
	}
	fprintf(out, "},\"environment\":[");
	for (size_t i = 0; i < in->env->n; i++) {
		fputs(i ? "," : "", out);
		lr_json_strn(out, in->env->v[i], strcspn(in->env->v[i], "="));
	}
	fprintf(out, "],\"command\":");
	lr_json_str(out, in->command);
	fputc('}', out);
}

void lr_explain_json(FILE *out, const struct lr_explain_input *in)
{
	lr_explain_json_object(out, in);
	fputc('\n', out);
}
