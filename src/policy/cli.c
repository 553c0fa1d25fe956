/* SPDX-License-Identifier: MIT */
/*
 * The command line: argv -> struct lr_policy, through the option table of
 * options.c; --config and --profile are read with config.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "landrun/policy/cli.h"
#include "landrun/policy/config.h"
#include "landrun/policy/egress-rules.h"

const char lr_cli_usage[] =
	"Usage: landrun [OPTIONS] [--] COMMAND [ARGS...]\n"
	"\n"
	"Run COMMAND confined by Landlock and seccomp, with an empty environment.\n"
	"Options stop at the first word that is not an option.\n"
	"\n"
	"By default (no options needed: cd ~/src/webapp && landrun -- opencode), COMMAND\n"
	"gets the profile named after it (opencode, codex, claude-code for claude; else\n"
	"base, which gives a new, empty HOME) and the project: the top of the git\n"
	"repository holding the current directory, or the current directory, read,\n"
	"write and execute, its .env kept out, its .git read-only.  What the options\n"
	"below grant is added to both.  Instead: --profile NAME or --config FILE (no\n"
	"default profile), --profile none, --no-project; a grant in /usr, /bin, /lib*\n"
	"or / turns both off (the command line says everything, as the Go landrun's do).\n"
	"The first line landrun prints says what it chose; --explain shows it all.\n"
	"\n"
	"Filesystem (repeatable; each takes a comma-separated list of paths):\n"
	"  --ro PATHS                 read files and list directories\n"
	"  --rox PATHS                also execute\n"
	"  --rw PATHS                 read, write, create, remove, rename, link, truncate, ioctl\n"
	"  --rwx PATHS                also execute\n"
	"  --add-exec                 grant execute on the resolved COMMAND\n"
	"  --ldd                      grant COMMAND's ELF interpreter and shared libraries\n"
	"  --ignore-missing           skip granted paths that do not exist (in a policy\n"
	"                             file: that file's own grants)\n"
	"  --mkdir PATHS              create these directories (0700) if missing, first\n"
	"                             (a carved project root takes no new entries: make\n"
	"                             node_modules, build... this way)\n"
	"  --private-tmp              when the command gets no TMPDIR: a new empty one\n"
	"                             (read-write) under /tmp, removed by a later run\n"
	"  --private-home             when the command gets no HOME: a new empty one, the same way\n"
	"  --allow-dotenv PATH        accept that the command may read this secret file\n"
	"                             (or the secret files beneath this directory)\n"
	"  --secret GLOB              keep out files with this name too, like .env (*.key,\n"
	"                             config/*.json, /srv/keys/*; any case)\n"
	"  --allow-protected PATH     accept that the command may write PATH, although code\n"
	"                             in it runs later outside the sandbox (.git, ...)\n"
	"  --unrestricted-filesystem  no filesystem restrictions\n"
	"\n"
	"Environment (the command starts with none):\n"
	"  --env NAME                 pass NAME from the caller or from --env-file\n"
	"  --env NAME=VALUE           set NAME to VALUE\n"
	"  --env-prefix PREFIX        pass every variable whose name starts with PREFIX\n"
	"  --env-file FILE            read a dotenv file as a source for --env and --env-prefix\n"
	"\n"
	"Network (default: no sockets but AF_UNIX pairs):\n"
	"  --allow-domain LIST        reach only these names (api.openai.com, *.example.com,\n"
	"                             host:8443; port 443 if none), through a proxy landrun\n"
	"                             runs in the caller's network: the command gets a network\n"
	"                             namespace of its own and HTTPS_PROXY, HTTP_PROXY,\n"
	"                             ALL_PROXY; an IP address, or a name resolving to a\n"
	"                             loopback or private one, only if listed as an address\n"
	"  --secret-header HOST=HEADER\n"
	"                             the proxy ends HOST's TLS (with a CA made for the run,\n"
	"                             which the command trusts through SSL_CERT_FILE,\n"
	"                             NODE_EXTRA_CA_CERTS, ...) and sets HEADER ('NAME: VALUE',\n"
	"                             quoted) on each request, refusing one that carries\n"
	"                             another credential; ${VAR} in VALUE is landrun's own\n"
	"                             VAR, and the command gets VAR=landrun-placeholder\n"
	"  --secret-header-if-set HOST=HEADER\n"
	"                             the same when every ${VAR} in HEADER is set (not empty);\n"
	"                             else nothing, and the command's own credential passes\n"
	"                             (the profiles' provider keys); --secret-header wins\n"
	"  --allow-request HOST=RULE  HOST's requests must match a RULE, 'METHOD /PATH'\n"
	"                             (METHOD * any, WEBSOCKET a WebSocket's opening,\n"
	"                             /PATH* a prefix); others get 403\n"
	"  --connect-tcp PORTS        allow TCP connections to these ports (80,443,8000-8100);\n"
	"                             with --allow-domain: the host's 127.0.0.1 on these ports\n"
	"  --bind-tcp PORTS           allow binding (and listening on) these TCP ports\n"
	"  --unix PATH                allow connecting to this UNIX socket (Landlock ABI 9+)\n"
	"  --unrestricted-network     no network restrictions\n"
	"  --unrestricted-scoped      may signal, and reach abstract UNIX sockets, outside\n"
	"\n"
	"Process:\n"
	"  --keep-fd N                keep file descriptor N open (0, 1, 2 always are)\n"
	"  --deny-subprocess          the command can create no new process (threads work)\n"
	"  --allow-sysv-ipc           allow SysV shared memory, message queues and\n"
	"                             semaphores: the system's, not the sandbox's own\n"
	"  --user USER[:GROUP]        started as root: run the command as USER (a name in\n"
	"                             /etc/passwd, or a number) and GROUP (default: USER's),\n"
	"                             with no other group; as uid 0 it may not chmod or chown\n"
	"\n"
	"Lifetime (with these, or as PID 1, landrun stays as a supervisor: it forwards\n"
	"SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGWINCH, reaps orphans,\n"
	"and when the command exits, ends whatever it left behind, daemons included):\n"
	"  --init                     supervise also when not PID 1\n"
	"  --timeout DURATION         end the whole tree after DURATION (30, 1.5m, 2h; 0: never)\n"
	"                             with SIGTERM, then SIGKILL after the grace; exit 124\n"
	"  --timeout-grace DURATION   from SIGTERM to SIGKILL when the tree is ended, or\n"
	"                             after a SIGTERM to landrun (a stop) (5s)\n"
	"  --die-with-parent          end the whole tree when landrun's parent dies\n"
	"  --pty                      from a terminal: the command gets a new pseudo-terminal\n"
	"                             that landrun relays, not yours; it may then use sessions\n"
	"                             and job control, and nothing it leaves reads your input;\n"
	"                             what would act beyond the screen (the clipboard, title\n"
	"                             reports, tmux passthrough) is dropped, and the modes it\n"
	"                             leaves on (mouse, alternate screen) are turned off\n"
	"  --pty-passthrough          --pty drops nothing of what the command writes\n"
	"  --audit-log FILE           append one JSON line when the command starts and one\n"
	"                             when it ends; FILE must be outside the writable grants\n"
	"\n"
	"Limits (soft and hard, set for the command, supervised or not):\n"
	"  --rlimit-as SIZE           address space, in bytes (k, m, g, t: 4g)\n"
	"  --rlimit-cpu SECONDS       CPU time\n"
	"  --rlimit-fsize SIZE        size of any file written\n"
	"  --rlimit-nofile N          open files\n"
	"  --rlimit-nproc N           processes of the user (all of the user's, not only\n"
	"                             the command's; not enforced for root)\n"
	"  --rlimit-core SIZE         core dumps (default 0: none); each also takes unlimited\n"
	"\n"
	"Finding what to grant:\n"
	"  --report-denials           when the command ends, list what it was denied, one\n"
	"                             line each, with the flag that would allow it (landrun\n"
	"                             stays as a supervisor, and traces the command)\n"
	"  --learn FILE               also add those flags to FILE, a policy file for\n"
	"                             --config (made if missing; review it before using it)\n"
	"  --landlock-audit           let the kernel audit the command's Landlock denials\n"
	"                             (Landlock ABI 7+, audit enabled; read as root with\n"
	"                             ausearch -m 1423, or journalctl -k --grep type=1423)\n"
	"\n"
	"Kernel support:\n"
	"  --on-unsupported=MODE      error: refuse if a protection cannot be enforced;\n"
	"                             warn (default): say what is lost, then run; ignore\n"
	"  --best-effort              same as --on-unsupported=warn\n"
	"  --explain[=json]           print what will be enforced on this kernel; run nothing\n"
	"\n"
	"Policy files:\n"
	"  --config FILE              read settings from FILE (keys are these long options)\n"
	"  --profile NAME             load a shipped or user profile instead of the default\n"
	"                             one (none: no profile; see landrun.conf(5))\n"
	"  --no-project               grant no project (only what the options name)\n"
	"\n"
	"Other:\n"
	"  --log-level LEVEL          error, notice (default: also what landrun kept out of\n"
	"                             the grants), info or debug\n"
	"  --help                     show this help\n"
	"  --version                  show the version\n"
	"\n"
	"Environment of landrun: LANDRUN_ON_UNSUPPORTED sets the default --on-unsupported,\n"
	"LANDRUN_LOG_LEVEL the default --log-level.\n"
	"\n"
	"Exit status: 125 landrun failed (bad flag, bad file, refused policy: nothing\n"
	"was run), 126 COMMAND could not be executed, 127 COMMAND not found, 124\n"
	"--timeout ended it; otherwise COMMAND's own status (128+N when a supervised\n"
	"COMMAND died of signal N).\n";

/* getopt's view of the option table (filled in once). */
static struct option longopts[LR_OPT_VERSION - LR_OPT_ADD_EXEC + 2];

static void init_longopts(void)
{
	size_t i = 0;

	if (longopts[0].name)
		return;
	for (const struct lr_option *o = lr_options; o->name; o++, i++) {
		longopts[i].name = o->name;
		longopts[i].has_arg = o->arg == LR_ARG_NONE	  ? no_argument
				      : o->arg == LR_ARG_REQUIRED ? required_argument
								  : optional_argument;
		longopts[i].val = o->id;
	}
}

static const char *option_name(int id)
{
	const struct lr_option *o = lr_option_get(id);

	return o ? o->name : "?";
}

/* One option from argv: a list is split here, and each item applied. */
static enum lr_opt_result apply_arg(struct lr_policy *p, const struct lr_option *o,
				    const char *arg, struct lr_opt_source *src,
				    struct lr_opt_error *err)
{
	struct lr_strlist items = { 0 };
	enum lr_opt_result r = LR_OPT_RUN;
	int e;

	if (!(o->flags & LR_OPTF_LIST))
		return lr_option_apply(p, o, arg, src, err);
	e = lr_option_split(arg, &items);
	if (e == -ENOMEM)
		r = lr_opt_fail(err, "out of memory");
	else if (e < 0)
		r = lr_opt_fail(err, "--%s: '%s' is not a valid value (an empty item)", o->name, arg);
	for (size_t i = 0; r == LR_OPT_RUN && i < items.n; i++)
		r = lr_option_apply(p, o, items.v[i], src, err);
	lr_strlist_free(&items);
	return r;
}

/* --config FILE, --profile NAME */
static enum lr_opt_result read_file(struct lr_policy *p, int id, const char *arg,
				    struct lr_opt_error *err)
{
	char msg[sizeof(err->msg)];
	int r;

	if (id == LR_OPT_PROFILE && strcmp(arg, "none") == 0)
		return LR_OPT_RUN; /* no profile, not even the default one */
	if (id == LR_OPT_CONFIG)
		r = lr_config_load_file(arg, p, 1, err);
	else
		r = lr_config_load_profile(arg, NULL, p, 1, err);
	if (r == LR_CONFIG_ERR_OPEN) {
		snprintf(msg, sizeof(msg), "%s", err->msg);
		return lr_opt_fail(err, id == LR_OPT_CONFIG ? "--config %s" : "--profile: %s", msg);
	}
	return r < 0 ? LR_OPT_ERROR : LR_OPT_RUN;
}

static enum lr_opt_result check_conflicts(const struct lr_policy *p, struct lr_opt_error *err)
{
	if (p->unrestricted_net && p->n_egress_sites)
		return lr_opt_fail(err, "--secret-header and --allow-request conflict with "
					"--unrestricted-network (they need the proxy)");
	if (p->unrestricted_net &&
	    (p->n_connect_tcp || p->n_bind_tcp || p->n_unix_paths || p->n_allow_domains))
		return lr_opt_fail(err, "--%s conflicts with --unrestricted-network",
				   p->n_connect_tcp    ? "connect-tcp"
				   : p->n_bind_tcp     ? "bind-tcp"
				   : p->n_allow_domains ? "allow-domain"
							: "unix");
	/* each is a listener in the command's network namespace */
	if (p->n_allow_domains && lr_egress_count_ports(p) > LR_EGRESS_MAX_FORWARDS)
		return lr_opt_fail(err, "--connect-tcp with --allow-domain: %zu ports to forward from "
					"the host's loopback, more than %d",
				   lr_egress_count_ports(p), LR_EGRESS_MAX_FORWARDS);
	if (p->unrestricted_fs) {
		for (size_t i = 0; i < p->n_grants; i++)
			if (p->grants[i].access != LR_ACCESS_UNIX)
				return lr_opt_fail(err, "%s conflicts with --unrestricted-filesystem",
						   p->grants[i].name);
		if (p->add_exec || p->ldd)
			return lr_opt_fail(err, "--%s conflicts with --unrestricted-filesystem",
					   p->add_exec ? "add-exec" : "ldd");
	}
	if (!p->argv[0] && p->explain == LR_EXPLAIN_NONE)
		return lr_opt_fail(err, "missing COMMAND (see --help)");
	return LR_OPT_RUN;
}

/*
 * getopt_long takes any unambiguous prefix of a long option.  A security
 * tool should not guess what "--ign" meant: every long option must be
 * spelled out.  Walks argv the way getopt will, up to the first non-option.
 */
static enum lr_opt_result check_spelling(int argc, char **argv, struct lr_opt_error *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct lr_option *o;
		size_t len;

		if (strcmp(a, "--") == 0 || a[0] != '-' || a[1] == '\0')
			return LR_OPT_RUN;
		if (a[1] != '-')
			continue; /* short options: getopt reports them itself */
		len = strcspn(a + 2, "=");
		o = lr_option_find(a + 2, len);
		if (!o)
			return lr_opt_fail(err, "%.*s: unknown option (see --help)", (int)len + 2, a);
		if (o->arg == LR_ARG_REQUIRED && !a[2 + len])
			i++; /* its value is the next word */
	}
	return LR_OPT_RUN;
}

enum lr_opt_result lr_cli_parse(int argc, char **argv, struct lr_policy *p,
				struct lr_opt_error *err)
{
	struct lr_opt_source src = { 0 };
	enum lr_opt_result r;
	int opt;

	err->msg[0] = '\0';
	init_longopts();
	r = check_spelling(argc, argv, err);
	if (r != LR_OPT_RUN)
		return r;
	opterr = 0;
	/*
	 * Two passes: policy files first, so that the command line adds to
	 * them and its settings win.  optind = 0 resets getopt fully.
	 */
	for (int pass = 0; pass < 2; pass++) {
		optind = 0;
		while ((opt = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
			const struct lr_option *o;
			bool file;

			if (opt == ':')
				return lr_opt_fail(err, "%s: missing value (see --help)", argv[optind - 1]);
			if (opt == '?') {
				if (optopt >= LR_OPT_ADD_EXEC)
					return lr_opt_fail(err, "--%s: takes no value (see --help)",
							   option_name(optopt));
				if (optopt)
					return lr_opt_fail(err, "-%c: unknown option (see --help)", optopt);
				return lr_opt_fail(err, "%s: unknown option (see --help)",
						   argv[optind - 1]);
			}
			o = lr_option_get(opt == 'h' ? LR_OPT_HELP : opt);
			file = o->flags & LR_OPTF_FILE;
			p->cli_files |= file;
			p->cli_grants |= o->id == LR_OPT_RO || o->id == LR_OPT_ROX || o->id == LR_OPT_RW ||
					 o->id == LR_OPT_RWX || o->id == LR_OPT_UNRESTRICTED_FS;
			if (pass == 0 ? !file && o->id != LR_OPT_HELP && o->id != LR_OPT_VERSION : file)
				continue;
			r = file ? read_file(p, o->id, optarg, err) : apply_arg(p, o, optarg, &src, err);
			if (r != LR_OPT_RUN)
				return r;
		}
		/* the files' own on-unsupported does not conflict with the command line's */
		src.mode_given = src.best_effort = false;
	}
	if (src.ignore_missing)
		lr_policy_grants_optional(p, 0);
	p->argv = argv + optind;
	return check_conflicts(p, err);
}
