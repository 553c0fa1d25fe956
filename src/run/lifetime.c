/* SPDX-License-Identifier: MIT */
/*
 * A supervised run, the supervisor's side: its start (the fork), what the
 * child hands it (the handshake), and the report after the run
 * (--report-denials, --learn, the private HOME).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landrun/lib/audit-log.h"
#include "landrun/lib/error.h"
#include "landrun/lib/log.h"
#include "landrun/lib/util.h"
#include "landrun/plan/explain.h"
#include "landrun/plan/features.h"
#include "landrun/plan/plan.h"
#include "landrun/policy/policy.h"
#include "landrun/supervisor/audit.h"
#include "landrun/supervisor/broker.h"
#include "landrun/supervisor/learn.h"
#include "landrun/supervisor/supervise.h"
#include "landrun/supervisor/trace.h"
#include "run.h"

extern char **environ;

/* The private HOME's line: what the command looked for there, in vain.
 * Told when the caller's HOME has one of them; else at --log-level info. */
static void report_home(const struct lr_policy *policy, struct lifetime *life)
{
	const struct lr_tracer *t = &life->tracer;
	const char *home = life->learn.home;
	_cleanup_free_ char *line = NULL;
	bool *yours;
	bool any = false;

	if (!t->home_missing.n)
		return;
	yours = calloc(t->home_missing.n, sizeof(*yours));
	if (!yours) {
		lr_warn("--report-denials: out of memory");
		return;
	}
	for (size_t i = 0; home && i < t->home_missing.n; i++) {
		_cleanup_free_ char *mine = NULL;
		struct stat st;

		/* "~/REST": REST in the caller's HOME (the tracer has the command's ids) */
		if (asprintf(&mine, "%s%s", home, t->home_missing.v[i] + 1) >= 0 &&
		    stat(mine, &st) == 0)
			any = yours[i] = true;
	}
	line = lr_learn_home_line(t->home_missing.v, t->home_missing.n, t->n_home_missing, yours,
				  home);
	free(yours);
	if (!line)
		lr_warn("--report-denials: out of memory");
	else if (any || policy->log_level >= LR_LOG_INFO)
		fprintf(stderr, "landrun: %s\n", line);
}

/* What the broker told the supervisor (it is gone, or its calls done:
 * each was queued before the call it tells of returned). */
static void drain_told(struct lifetime *life)
{
	_Alignas(struct lr_broker_told) char buf[sizeof(struct lr_broker_told) + PATH_MAX];
	ssize_t n;
	int r;

	if (life->told[0] < 0)
		return;
	while ((n = recv(life->told[0], buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC)) > 0) {
		if ((size_t)n > sizeof(buf))
			continue; /* none is longer: not the broker's */
		r = lr_trace_told(&life->tracer, buf, (size_t)n);
		if (r == -ENOMEM && !life->tracer.error)
			life->tracer.error = r;
	}
	close(life->told[0]);
	life->told[0] = -1;
}

/* Each denial's line (the real ones, or all at --log-level info), and its
 * audit record; the probes and the lookups summed up.  0, or -ENOMEM. */
static int report_lines(const struct lr_policy *policy, struct lifetime *life,
			const struct lr_advice *advice, const size_t *order, size_t real)
{
	const struct lr_denials *all = &life->tracer.denials;
	struct lr_buf probes = { 0 };
	size_t n_probes = 0;
	unsigned long n_lookups = 0;
	int r = 0;

	for (size_t k = 0; r == 0 && k < all->n; k++) {
		const struct lr_denial *d = &all->v[order[k]];
		const struct lr_advice *a = &advice[order[k]];
		_cleanup_free_ char *line = NULL, *record = NULL, *what = NULL;

		line = lr_learn_report_line(d, a);
		if (life->audit.fd >= 0)
			record = lr_audit_denied(&life->audit, d, a);
		if (!line || (life->audit.fd >= 0 && !record)) {
			r = -ENOMEM;
			break;
		}
		if (k < real || policy->log_level >= LR_LOG_INFO) {
			fprintf(stderr, "landrun: %s\n", line);
		} else if (a->lookup) {
			n_lookups += d->count;
		} else if (n_probes++ < 3) {
			/* the command's paths: escaped */
			what = lr_denial_what(d);
			if (!what || lr_buf_add(&probes, n_probes > 1 ? ", " : "", n_probes > 1 ? 2 : 0) < 0 ||
			    lr_buf_add(&probes, what, strlen(what)) < 0)
				r = -ENOMEM;
		}
		if (record && lr_audit_write(&life->audit, record) < 0)
			lr_warn("--audit-log %s: cannot write a denial", policy->audit_log);
	}
	if (r == 0 && n_probes) {
		_cleanup_free_ char *list = lr_escape_dup(probes.s ? probes.s : "");

		if (!list)
			r = -ENOMEM;
		else
			fprintf(stderr, "landrun: and %zu probe%s that programs do without (%s%s): "
					"not needed; --log-level info shows %s\n",
				n_probes, n_probes == 1 ? "" : "s", list, n_probes > 3 ? ", ..." : "",
				n_probes == 1 ? "it" : "them");
	}
	if (r == 0 && n_lookups)
		fprintf(stderr, "landrun: and %lu denial%s of a host name's lookup (DNS: the "
				"nameservers in /etc/resolv.conf, a UDP socket, nscd's): a lookup "
				"needs the network; --unrestricted-network --ro /etc/resolv.conf "
				"allows it, or --allow-domain NAME (landrun's proxy resolves the "
				"names it allows); --log-level info shows %s\n",
			n_lookups, n_lookups == 1 ? "" : "s", n_lookups == 1 ? "it" : "them");
	free(probes.s);
	return r;
}

/* --report-denials, --learn: what the command was denied, after the run:
 * the likely cause first when it FAILED (with STATUS), the probes that
 * programs do without last, in one line (each at --log-level info). */
static void report_denials(const struct lr_policy *policy, struct lifetime *life, bool failed,
			   int status)
{
	const struct lr_denials *all = &life->tracer.denials;
	struct lr_advice *advice;
	bool *probe;
	size_t *order;
	size_t settings = 0, real = 0, advised = 0;
	int r;

	drain_told(life);
	advice = calloc(all->n + 1, sizeof(*advice));
	probe = calloc(all->n + 1, sizeof(*probe));
	order = calloc(all->n + 1, sizeof(*order));
	r = life->tracer.error;
	if (!advice || !probe || !order)
		r = -ENOMEM;
	for (; r == 0 && advised < all->n; advised++)
		if ((r = lr_learn_advise(&all->v[advised], &life->learn, &advice[advised])) < 0)
			break;
	if (r == 0) {
		lr_learn_mark_lookups(all, advice);
		for (size_t i = 0; i < all->n; i++)
			probe[i] = advice[i].probe;
		real = lr_learn_report_order(all, probe, failed, order);
	}
	if (r == 0 && failed && real > 1)
		fprintf(stderr, "landrun: the command failed (status %d): its last denial first\n",
			status);
	if (r == 0)
		r = report_lines(policy, life, advice, order, real);
	for (size_t i = 0; advice && i < advised; i++)
		lr_advice_free(&advice[i]);
	free(advice);
	free(probe);
	free(order);
	if (r < 0)
		lr_warn("--report-denials: %s: the report is short", strerror(-r));
	if (all->dropped)
		lr_warn("--report-denials: and %lu more denials, not kept", all->dropped);
	report_home(policy, life);
	if (life->learn_fd < 0)
		return;
	r = lr_learn_file_update(life->learn_fd, all, &life->learn, &settings);
	if (r < 0)
		lr_warn("--learn %s: cannot update it: %s", policy->learn, strerror(-r));
	else
		lr_notice("--learn %s: %s; it holds %zu setting%s (review them)", policy->learn,
			  all->n ? "updated" : "nothing denied", settings, settings == 1 ? "" : "s");
}

/* What the supervisor must not keep: landrun's own environment (the
 * caller's secrets) and the values of --env NAME=VALUE. */
static void forget_secrets(struct lr_policy *policy)
{
	for (size_t i = 0; i < policy->n_env; i++)
		if (policy->env[i].value)
			explicit_bzero(policy->env[i].value, strlen(policy->env[i].value));
	for (char **e = environ; e && *e; e++)
		explicit_bzero(*e, strlen(*e));
	clearenv();
}

/* What the child handed over, each by the kind it named: the audit log and
 * the --learn file when asked for, once each; pidfds of landrun's own.
 * 0, or -EPROTO (what was handed over is closed). */
static int take_fds(const struct lr_policy *policy, struct lifetime *life,
		    const struct lr_supervise_fd *fds)
{
	int r = 0;

	life->audit.fd = life->learn_fd = -1;
	for (size_t i = 0; r == 0 && i < LR_SUPERVISE_MAX_FDS && fds[i].fd >= 0; i++) {
		int *slot = NULL;

		if (fds[i].kind == LR_SUPERVISE_FD_AUDIT && policy->audit_log)
			slot = &life->audit.fd;
		else if (fds[i].kind == LR_SUPERVISE_FD_LEARN && policy->learn)
			slot = &life->learn_fd;
		else if (fds[i].kind != LR_SUPERVISE_FD_OWN)
			r = -EPROTO;
		if (slot && *slot >= 0)
			r = -EPROTO;
		else if (slot)
			*slot = fds[i].fd;
	}
	for (size_t i = 0; i < LR_SUPERVISE_MAX_FDS && fds[i].fd >= 0; i++) {
		bool taken = fds[i].fd == life->audit.fd || fds[i].fd == life->learn_fd;

		if (r == 0 && fds[i].kind == LR_SUPERVISE_FD_OWN)
			lr_supervise_own(&life->sv, fds[i].fd);
		else if (r < 0 || !taken)
			close(fds[i].fd);
	}
	if (r < 0)
		life->audit.fd = life->learn_fd = -1;
	return r;
}

/* The supervisor, once forked: the tracer attached, its own confinement,
 * and with a handshake what the child hands over and the word to go.
 * Whether the child got ready (0: it ended before, and said why). */
static int supervisor_ready(struct lr_policy *policy, struct lifetime *life,
			    const struct lr_features *features)
{
	struct lr_supervisor *sv = &life->sv;
	struct lr_supervise_fd fds[LR_SUPERVISE_MAX_FDS];
	char err[LR_ERR_MAX], *started = NULL;
	int ready = 0, r;

	for (size_t i = 0; i < LR_SUPERVISE_MAX_FDS; i++)
		fds[i] = (struct lr_supervise_fd){ .fd = -1 };
	if (policy->report_denials) {
		/* what the denials are judged by, before the environment goes */
		if (lr_learn_context_init(&life->learn, policy, getenv("HOME"),
					  lr_landlock_abi_used(features->landlock_abi)) < 0)
			lr_errf(err, sizeof(err), "out of memory");
		else if (lr_trace_attach(&life->tracer, sv->child, err, sizeof(err)) == 0)
			err[0] = '\0';
		if (err[0]) {
			lr_supervise_abandon(sv);
			lr_die("%s", err);
		}
		sv->trace = lr_trace_stop;
		sv->trace_data = &life->tracer;
	}
	forget_secrets(policy);
	r = lr_supervise_confine(sv, features, &policy->run_as, life->told,
				 life->told[0] >= 0 ? 1 : 0, err, sizeof(err));
	if (r == 0 && !sv->handshake)
		ready = 1;
	else if (r == 0 &&
		 (ready = lr_supervise_accept(sv, &started, fds, LR_SUPERVISE_MAX_FDS)) < 0)
		lr_errf(err, sizeof(err), "supervisor: %s", strerror(-(r = ready)));
	if (ready > 0 && (r = take_fds(policy, life, fds)) < 0)
		lr_errf(err, sizeof(err),
			"supervisor: the child handed over descriptors it "
			"should not have");
	if (ready > 0 && started && (r = lr_audit_write(&life->audit, started)) < 0)
		lr_errf(err, sizeof(err), "--audit-log %s: %s", policy->audit_log, strerror(-r));
	free(started);
	if (ready > 0 && sv->handshake && r == 0 && (r = lr_supervise_go(sv)) < 0)
		lr_errf(err, sizeof(err), "supervisor: cannot start the command: %s", strerror(-r));
	if (r < 0) {
		lr_supervise_abandon(sv);
		lr_die("%s", err);
	}
	return ready;
}

/* The end of a supervised run: the tree ended, the report, the audit log's
 * last record, and the command's status as landrun's own. */
static noreturn void supervisor_end(const struct lr_policy *policy, struct lifetime *life,
				    int ready)
{
	struct lr_outcome out;
	char *ended = NULL;
	int status, r = lr_supervise_wait(&life->sv, &out);

	if (r < 0)
		lr_warn("supervisor: %s", r == -ETIMEDOUT
						  ? "processes of the tree could not be ended"
						  : strerror(-r));
	status = !out.ended		   ? LR_EXIT_FAILURE
		 : out.why == LR_END_TIMEOUT ? 124
		 : WIFEXITED(out.status)   ? WEXITSTATUS(out.status)
					   : 128 + WTERMSIG(out.status);
	if (ready && policy->report_denials)
		report_denials(policy, life, status != 0, status);
	if (ready && life->audit.fd >= 0 &&
	    (!(ended = lr_audit_ended(&life->audit, &out, status)) ||
	     (r = lr_audit_write(&life->audit, ended)) < 0))
		lr_warn("--audit-log %s: cannot write the end of the run: %s", policy->audit_log,
			ended ? strerror(-r) : "out of memory");
	free(ended);
	exit(status);
}

void supervise(struct lr_policy *policy, struct lifetime *life)
{
	struct lr_supervisor *sv = &life->sv;
	bool pty = policy->pty && lr_supervise_has_terminal();
	struct lr_features features;
	struct lr_plan plan;
	char err[LR_ERR_MAX];
	int r;

	if (policy->explain != LR_EXPLAIN_NONE ||
	    (!policy->init && !policy->timeout_ms && !policy->die_with_parent &&
	     !policy->audit_log && !pty && !policy->report_denials && getpid() != 1))
		return;
	sv->pty = pty;
	sv->pty_passthrough = policy->pty_passthrough;
	sv->timeout_ms = policy->timeout_ms;
	sv->grace_ms = policy->timeout_grace_ms;
	sv->die_with_parent = policy->die_with_parent;
	sv->go_on_unconfined = policy->on_unsupported != LR_UNSUPPORTED_ERROR;
	/* the started record comes before the command runs, and the tracer
	 * traces it before it loads its filters */
	lr_audit_init(&life->audit);
	life->learn_fd = -1;
	lr_features_probe(&features);
	/* ...and the broker is handed to it as landrun's own */
	lr_plan_compute(policy, &features, &plan);
	/* (with --allow-domain, a broker may be for the connects: egress()) */
	sv->handshake = policy->audit_log != NULL || policy->report_denials || plan.broker ||
			(policy->n_allow_domains && !policy->unrestricted_net);
	if (policy->report_denials && !features.seccomp_filter)
		lr_die("--report-denials: needs seccomp filters (CONFIG_SECCOMP_FILTER)");
	/* the broker sees calls that never reach the tracer: it tells */
	if (policy->report_denials &&
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, life->told) < 0)
		lr_die_errno("--report-denials: cannot make the broker's socket");
	r = lr_supervise_start(sv, err, sizeof(err));
	if (r < 0)
		lr_die("%s", err);
	if (r == 0) {
		if (life->told[0] >= 0)
			close(life->told[0]);
		life->told[0] = -1;
		return;
	}
	if (life->told[1] >= 0)
		close(life->told[1]);
	life->told[1] = -1;
	supervisor_end(policy, life, supervisor_ready(policy, life, &features));
}

void supervised_open(const struct lr_explain_input *in, struct lifetime *life, char **argv)
{
	char err[LR_ERR_MAX];
	int r;

	life->n_fds = 0;
	if (!life->sv.handshake)
		return;
	if (in->policy->audit_log) {
		if (lr_audit_open(&life->audit, in->policy->audit_log, in->policy, in->plan,
				  in->rules, err, sizeof(err)) < 0)
			lr_die("%s", err);
		life->started = lr_audit_started(&life->audit, in, argv, getppid(), getpid());
		if (!life->started)
			lr_die("out of memory");
		life->fds[life->n_fds++] =
			(struct lr_supervise_fd){ life->audit.fd, LR_SUPERVISE_FD_AUDIT };
	}
	/* where the command cannot rewrite it, as the audit log */
	if (in->policy->learn) {
		r = lr_audit_open_file("--learn", in->policy->learn, O_RDWR, in->policy, in->plan,
				       in->rules, err, sizeof(err));
		if (r < 0)
			lr_die("%s", err);
		life->fds[life->n_fds++] = (struct lr_supervise_fd){ r, LR_SUPERVISE_FD_LEARN };
	}
}

/* A process of landrun's own (the egress helper, the broker), which the
 * supervisor ends but does not count among what the command left behind:
 * its pidfd. */
static void hand_own(struct lifetime *life, pid_t pid, const char *what)
{
	int fd;

	if (pid <= 0 || !life->sv.handshake)
		return;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		lr_die("%s: cannot hand it to the supervisor: %s", what, strerror(errno));
	life->fds[life->n_fds++] = (struct lr_supervise_fd){ fd, LR_SUPERVISE_FD_OWN };
}

void supervised_ready(struct lifetime *life, const struct lr_broker *broker)
{
	int r;

	if (!life->sv.handshake)
		return;
	hand_own(life, life->egress_helper, "--allow-domain: the egress helper");
	hand_own(life, broker->pid, "the broker");
	r = lr_supervise_ready(&life->sv, life->started, life->fds, life->n_fds);
	free(life->started);
	life->started = NULL;
	for (size_t i = 0; i < life->n_fds; i++)
		close(life->fds[i].fd);
	if (r < 0)
		exit(LR_EXIT_FAILURE); /* the supervisor gave up, and said why */
}
