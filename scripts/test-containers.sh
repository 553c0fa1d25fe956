#!/bin/bash
# test-containers.sh - examples/Dockerfile under a real container engine
# (Debian's docker.io, with runc), as root on Debian 12: builds the image and
# runs every command of docs/containers.md ("As a container entrypoint") as
# it is written there, then checks from outside what an operator relies on: the
# command confined (a read denied even to root, a socket and a connect
# denied, landrun's seccomp filter on top of the engine's), exit statuses,
# --timeout, `docker stop` (time, status, the audit log's end record),
# zombies, the audit log on a volume, --read-only, another --user, and an
# interactive shell with -it (in tmux, its screen read with capture-pane);
# --allow-domain through its proxy under Docker's and podman's default
# seccomp profiles (and one without user namespaces), against servers of the
# container's own.  Every check that shows a protection has a control beside
# it: the same thing done without landrun succeeds.
#
# No registry is reachable: the base image is made from Debian's archive
# (the one apt uses) with mmdebstrap and imported as debian:12 and
# debian:12-slim, the names the Dockerfile uses.  The engine is a dockerd
# of its own (its data, its socket and its pid in $WORK, so that it touches
# no other), started here and stopped at the end.
#
#   bash scripts/test-containers.sh          # FRESH=1: remake the base image and
#                                            # the engine's store from nothing
# A step that cannot run here (no engine can start, the archive cannot be
# reached) says which and why, and the rest still runs.  The last line says
# "N passed, N failed, N skipped"; exit 1 if any failed.
# (all of it in one block: bash reads it whole before running any, so that
# an edit of this file during a run does not change what the run does)
{
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
set +e

[ "$(id -u)" = 0 ] || { echo "test-containers: run as root (it runs dockerd)" >&2; exit 1; }
WORK=${WORK:-/var/tmp/landrun-containers}
IMG=landrun-example
T0=$(date +%s)
pass=0 fail=0 skipped=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
skip() { skipped=$((skipped + 1)); echo "ok - # SKIP $*"; }
check() { # check DESC COMMAND...: ok if COMMAND succeeds
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
oneline() { tr '\r\n' '  ' | sed 's/  */ /g' | cut -c1-300; }
finish() {
	echo "test-containers: $(($(date +%s) - T0)) s"
	echo "test-containers: $pass passed, $fail failed, $skipped skipped"
	[ $fail = 0 ]
	exit
}

if [ "${FRESH:-0}" = 1 ]; then
	[ ! -s "$WORK/dockerd.pid" ] || ! kill -0 "$(cat "$WORK/dockerd.pid")" 2>/dev/null ||
		{ echo "test-containers: FRESH=1, but a dockerd of $WORK runs" >&2; exit 1; }
	rm -rf "$WORK"
fi
mkdir -p "$WORK"
echo "test-containers: in $WORK"
# golang-github-containers-common: podman's seccomp profile, the engines' default
# in a file, to take calls out of
lr_install_deps docker.io mmdebstrap tmux golang-github-containers-common

# --- the engine: a dockerd of our own -----------------------------------------
# Debian's CLI, of the daemon's version (another one may come first in PATH)
docker() { DOCKER_HOST=unix://$WORK/docker.sock /usr/bin/docker "$@"; }
STARTED_DOCKERD=
stop_dockerd() {
	local pid
	[ -n "$STARTED_DOCKERD" ] || return 0
	pid=$STARTED_DOCKERD
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	echo "test-containers: dockerd $pid did not stop" >&2
}
TMUX_STARTED=
cleanup() {
	[ -z "$TMUX_STARTED" ] || tmux -L landrun-containers kill-server 2>/dev/null
	docker rm -f lr-stop lr-zomb >/dev/null 2>&1
	stop_dockerd
}
trap cleanup EXIT

# (not in a subshell: STARTED_DOCKERD is for the cleanup; WHY says what failed)
WHY=
start_dockerd() {
	docker info >/dev/null 2>&1 && return 0
	setsid /usr/sbin/dockerd --data-root "$WORK/docker" --exec-root "$WORK/run" \
		-H "unix://$WORK/docker.sock" --pidfile "$WORK/dockerd.pid" \
		>"$WORK/dockerd.log" 2>&1 </dev/null &
	STARTED_DOCKERD=$!
	for _ in $(seq 600); do
		docker info >/dev/null 2>&1 && return 0
		kill -0 "$STARTED_DOCKERD" 2>/dev/null || break
		sleep 0.1
	done
	WHY="dockerd did not start: $(tail -3 "$WORK/dockerd.log" | oneline)"
	return 1
}
if ! start_dockerd; then
	skip "every container step: $WHY"
	finish
fi
echo "test-containers: dockerd $(docker version --format '{{.Server.Version}}' 2>/dev/null), runtime $(docker info --format '{{.DefaultRuntime}}' 2>/dev/null), $(docker info --format 'cgroups v{{.CgroupVersion}}' 2>/dev/null)"

# --- the base image, from Debian's archive ------------------------------------
apt_uri() { grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E "$1" | head -1; }
MIRROR=${MIRROR:-$(apt_uri '/debian/?$')}
SECMIRROR=${SECMIRROR:-$(apt_uri 'security')}
base_image() {
	local t
	docker image inspect debian:12 >/dev/null 2>&1 && docker image inspect debian:12-slim >/dev/null 2>&1 &&
		return 0
	[ -n "$MIRROR" ] && [ -n "$SECMIRROR" ] || { echo "no Debian archive in apt's sources"; return 1; }
	if [ ! -s "$WORK/bookworm.tar" ]; then
		t=$(now_ms)
		rm -rf "$WORK/bookworm.tar.part"
		mmdebstrap --variant=minbase --format=tar bookworm "$WORK/bookworm.tar.part" \
			"deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" \
			"deb $SECMIRROR bookworm-security main" >"$WORK/mmdebstrap.log" 2>&1 ||
			{ echo "mmdebstrap failed: $(tail -2 "$WORK/mmdebstrap.log" | oneline)"; return 1; }
		mv "$WORK/bookworm.tar.part" "$WORK/bookworm.tar"
		echo "test-containers: mmdebstrap: $((($(now_ms) - t) / 1000)) s" >&2
	fi
}
# the archive unreachable: a skip; an image that cannot be imported: a failure
if ! why=$(base_image); then
	skip "every container step: the base image: $why"
	finish
fi
if ! docker image inspect debian:12 >/dev/null 2>&1 &&
	! why=$(docker import --change 'CMD ["bash"]' "$WORK/bookworm.tar" debian:12 2>&1 >/dev/null); then
	not_ok "docker import of the base image: $(oneline <<<"$why")"
	finish
fi
docker tag debian:12 debian:12-slim

# --- the documented commands, as written -----------------------------------------
# Each `docker ...` line of docs/containers.md, comments off, is run by
# `documented` below, by its text: a line that no step ran fails.
DOC_LINES=$(awk '/^    docker / { sub(/^    /, ""); sub(/ +# .*/, ""); print }' docs/containers.md)
RAN=$WORK/documented-ran
: >"$RAN"
# documented LINE: run LINE (a line of docs/containers.md) with bash, as a
# user would; OUT, RC
documented() {
	echo "$1" >>"$RAN"
	OUT=$(bash -c "$1" 2>&1)
	RC=$?
}
# expect_rc DESC WANT: the last command's status
expect_rc() {
	if [ "$RC" = "$2" ]; then ok "$1 -> $RC"; else not_ok "$1 -> $RC, not $2: $(printf '%s' "$OUT" | oneline)"; fi
}
# expect_out DESC WANT_RC REGEX: status and output
expect_out() {
	if [ "$RC" = "$2" ] && grep -Eq "$3" <<<"$OUT"; then ok "$1 -> $RC: $(printf '%s' "$OUT" | oneline | cut -c1-120)"
	else not_ok "$1 -> $RC, not $2 /$3/: $(printf '%s' "$OUT" | oneline)"; fi
}
export -f docker
export WORK

t=$(now_ms)
documented "docker build -f examples/Dockerfile -t landrun-example ."
printf '%s\n' "$OUT" >"$WORK/build.log"
if [ "$RC" != 0 ]; then
	not_ok "docker build -f examples/Dockerfile: $(tail -3 "$WORK/build.log" | oneline)"
	finish
fi
ok "docker build -f examples/Dockerfile -t landrun-example . ($((($(now_ms) - t) / 1000)) s)"

documented "docker run --rm landrun-example"
expect_out "its CMD writes /work/hello" 0 '^hello from the sandbox$'

# --- confined: Landlock and seccomp in force, under the engine's profile ------------
documented "docker run --rm --user 0 landrun-example sh -c 'cat /etc/shadow'"
expect_out "Landlock: even root cannot read /etc/shadow" 1 'Permission denied'
OUT=$(docker run --rm --user 0 --entrypoint cat $IMG /etc/shadow 2>&1); RC=$?
expect_out "control: root reads /etc/shadow without landrun" 0 '^root:'
documented "docker run --rm landrun-example sh -c 'cat /etc/shadow'"
expect_out "uid 65534 cannot read /etc/shadow" 1 'Permission denied'
SOCK='use Socket; socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n"; print "made\n"'
OUT=$(docker run --rm $IMG perl -e "$SOCK" 2>&1); RC=$?
expect_out "seccomp: socket(AF_UNIX) is denied (EAFNOSUPPORT, landrun's; the engine's is EPERM)" 97 'Address family not supported'
OUT=$(docker run --rm --entrypoint perl $IMG -e "$SOCK" 2>&1); RC=$?
expect_out "control: socket(AF_UNIX) without landrun" 0 '^made$'
OUT=$(docker run --rm $IMG bash -c 'exec 3<>/dev/tcp/127.0.0.1/9' 2>&1); RC=$?
expect_out "seccomp: no TCP socket without --connect-tcp (EAFNOSUPPORT)" 1 'socket: Address family not supported'
TCP9='exec 3<>/dev/tcp/127.0.0.1/9'
OUT=$(docker run --rm --entrypoint landrun $IMG --profile base --connect-tcp 443 -- bash -c "$TCP9" 2>&1); RC=$?
expect_out "Landlock: --connect-tcp 443, a connect to port 9 is denied (EACCES)" 1 'connect: Permission denied'
OUT=$(docker run --rm --entrypoint landrun $IMG --profile base --connect-tcp 9 -- bash -c "$TCP9" 2>&1); RC=$?
expect_out "control: --connect-tcp 9, the connect reaches the kernel" 1 'connect: Connection refused'
OUT=$(docker run --rm --entrypoint bash $IMG -c "$TCP9" 2>&1); RC=$?
expect_out "control: the same connect without landrun" 1 'connect: Connection refused'
FILTERS=(grep -E '^(NoNewPrivs|Seccomp_filters):' /proc/self/status)
OUT=$(docker run --rm --entrypoint landrun $IMG --profile base --ro /proc/self/status -- "${FILTERS[@]}" 2>&1); RC=$?
inside=$(sed -n 's/^Seccomp_filters:[[:space:]]*//p' <<<"$OUT")
OUT2=$(docker run --rm --entrypoint grep $IMG "${FILTERS[@]:1}" 2>&1)
outside=$(sed -n 's/^Seccomp_filters:[[:space:]]*//p' <<<"$OUT2")
if [ -n "$inside" ] && [ -n "$outside" ] && [ "$inside" -gt "$outside" ] && grep -q 'NoNewPrivs:[[:space:]]*1' <<<"$OUT"; then
	ok "seccomp: landrun's filter on top of the engine's ($outside filter(s) without landrun, $inside with), no_new_privs"
else
	not_ok "seccomp filters: with landrun: $(oneline <<<"$OUT"); without: $(oneline <<<"$OUT2")"
fi
OUT=$(docker run --rm --entrypoint landrun $IMG --profile base --rw /work --explain 2>&1); RC=$?
printf '%s\n' "$OUT" >"$WORK/explain.txt"
lost=$(awk '$2 == "lost" { printf "%s ", $1 }' <<<"$OUT")
if [ "$RC" = 0 ] && [ -z "$lost" ]; then ok "--explain under the engine's seccomp profile: nothing lost ($(head -1 <<<"$OUT" | cut -c1-100))"
else not_ok "--explain: $RC, lost: ${lost:-none} ($(head -3 <<<"$OUT" | oneline))"; fi

# --- exit statuses -------------------------------------------------------------------
OUT=$(docker run --rm $IMG sh -c 'exit 7' 2>&1); RC=$?
expect_rc "the command's exit status passes through" 7
OUT=$(docker run --rm $IMG sh -c 'kill -SEGV $$' 2>&1); RC=$?
expect_rc "a command killed by SIGSEGV: 128+11" 139
OUT=$(docker run --rm $IMG no-such-command 2>&1); RC=$?
expect_rc "a command not found: 127" 127
OUT=$(docker run --rm $IMG /etc/passwd 2>&1); RC=$?
expect_rc "a command that cannot be executed: 126" 126
OUT=$(docker run --rm --entrypoint landrun $IMG --no-such-flag -- true 2>&1); RC=$?
expect_out "a bad landrun option: 125, one line naming it" 125 'no-such-flag'

# --- --timeout -------------------------------------------------------------------------
t=$(now_ms)
documented "docker run --rm --entrypoint landrun landrun-example --profile base --timeout 2 --timeout-grace 1 -- sh -c 'trap \"\" TERM; sleep 600 & sleep 600'"
dt=$(($(now_ms) - t))
if [ "$RC" = 124 ] && [ $dt -lt 2000 ]; then not_ok "--timeout 2 ended after $dt ms, too early"; else
	[ "$RC" = 124 ] && [ $dt -lt 10000 ] && ok "--timeout 2 --timeout-grace 1, a tree that ignores SIGTERM: 124 in $dt ms" ||
		not_ok "--timeout 2: $RC after $dt ms: $(oneline <<<"$OUT")"
fi

# --- docker stop ----------------------------------------------------------------------
# the processes of container $1's PID namespace, seen from the host, as
# "state comm" lines (bash builtins only: it is polled)
ns_procs() {
	local pid p line rest
	pid=$(docker inspect --format '{{.State.Pid}}' "$1" 2>/dev/null) && [ "$pid" -gt 0 ] 2>/dev/null || return 1
	for p in /proc/[0-9]*; do
		[ "$p/ns/pid" -ef "/proc/$pid/ns/pid" ] || continue
		read -r line 2>/dev/null <"$p/stat" || continue
		rest=${line##*) }
		line=${line#*(}
		echo "${rest%% *} ${line%)*}"
	done
}
# count CONTAINER STATE-REGEX COMM: how many of its processes are so
count() { ns_procs "$1" | grep -Ec "^$2 $3\$"; }
count_zombies() { count "$1" Z '.*'; }
# wait_for SECONDS COMMAND...: poll every 50 ms until COMMAND succeeds, for
# at most SECONDS
wait_for() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt $end ] || return 1
		sleep 0.05
	done
}
has_sleeps() { [ "$(count "$1" '[^Z]' sleep)" -ge "$2" ]; }
# stop_case DESC WANT_RC MIN_MS MAX_MS SLEEPS RUN-ARGS...: run -d, wait until
# SLEEPS sleeps run in it, time `docker stop` (its grace: 10 s)
stop_case() {
	local desc=$1 want=$2 min=$3 max=$4 sleeps=$5 t dt rc
	shift 5
	docker rm -f lr-stop >/dev/null 2>&1
	if ! docker run -d --name lr-stop "$@" >/dev/null 2>"$WORK/stop.err" ||
		! wait_for 30 has_sleeps lr-stop "$sleeps"; then
		not_ok "$desc: did not start: $(oneline <"$WORK/stop.err") $(docker logs lr-stop 2>&1 | oneline)"
		return
	fi
	t=$(now_ms)
	docker stop lr-stop >/dev/null
	dt=$(($(now_ms) - t))
	rc=$(docker inspect --format '{{.State.ExitCode}}' lr-stop)
	if [ "$rc" = "$want" ] && [ $dt -ge "$min" ] && [ $dt -lt "$max" ]; then ok "$desc: $rc in $dt ms"
	else not_ok "$desc: $rc in $dt ms (want $want in $min-$max ms): $(docker logs lr-stop 2>&1 | oneline)"; fi
	docker rm -f lr-stop >/dev/null 2>&1
}
docker volume rm -f landrun-audit landrun-work >/dev/null 2>&1
stop_case "docker stop: SIGTERM reaches the command (a sleep)" 143 0 3000 1 \
	-v landrun-audit:/var/log/landrun $IMG sleep 600
stop_case "docker stop: a tree that ignores SIGTERM is killed after landrun's grace, before the engine's 10 s" \
	137 4500 9000 2 -v landrun-audit:/var/log/landrun $IMG sh -c 'trap "" TERM; sleep 600 & sleep 600'
stop_case "control: a sleep as PID 1 without landrun ignores SIGTERM; the engine kills it after 10 s" \
	137 9500 20000 1 --entrypoint sleep $IMG 600

# --- the audit log on a volume ---------------------------------------------------------
documented "docker run --rm -v landrun-audit:/var/log/landrun landrun-example"
expect_out "the audit log on a named volume: the run" 0 '^hello from the sandbox$'
documented "docker run --rm -v landrun-audit:/v --entrypoint cat landrun-example /v/audit.jsonl"
events=$(sed -n 's/.*"event":"\([a-z]*\)".*/\1/p' <<<"$OUT" | tr '\n' ' ')
# the two stops, then this run
if [ "$events" = "started cancelled started cancelled started completed " ] &&
	grep '"event":"cancelled"' <<<"$OUT" | sed -n 2p | grep -q '"signal":"SIGTERM".*"exit_signal":"SIGKILL"'; then
	ok "the audit log on the volume: $events(the stop that needed SIGKILL too)"
else
	not_ok "the audit log on the volume: ${events:-nothing} $(oneline <<<"$OUT")"
fi

# --- zombies ---------------------------------------------------------------------------
# 20 orphans (children of PID 1) that end only once PID 1 no longer runs the
# shell, which would reap them as it waits for its own children
ORPHANS='i=0; while [ $i -lt 20 ]; do sh -c "(until [ -e /work/go ]; do sleep 0.05; done) &"; i=$((i + 1)); done; echo orphaned; : >/work/go; exec sleep 600'
logged() { docker logs "$1" 2>&1 | grep -q "$2"; }
no_live_sh() { [ "$(count "$1" '[^Z]' sh)" = 0 ]; }
zombies_are() { [ "$(count_zombies "$1")" = "$2" ]; }
zombie_case() { # DESC WANT RUN-ARGS...
	local desc=$1 want=$2 n
	shift 2
	docker rm -f lr-zomb >/dev/null 2>&1
	if ! docker run -d --name lr-zomb "$@" >/dev/null 2>"$WORK/zomb.err" ||
		! wait_for 30 logged lr-zomb orphaned || ! wait_for 15 no_live_sh lr-zomb; then
		not_ok "$desc: did not run: $(oneline <"$WORK/zomb.err")"
	else
		wait_for 5 zombies_are lr-zomb "$want"
		n=$(count_zombies lr-zomb)
		if [ "$n" = "$want" ]; then ok "$desc: $n zombies"; else not_ok "$desc: $n zombies, not $want"; fi
	fi
	docker rm -f lr-zomb >/dev/null 2>&1
}
zombie_case "landrun as PID 1 reaps 20 orphans" 0 $IMG sh -c "$ORPHANS"
zombie_case "control: a PID 1 that does not reap keeps them" 20 --entrypoint sh $IMG -c "$ORPHANS"

# --- --read-only and --user --------------------------------------------------------------
documented "docker run --rm --read-only --tmpfs /tmp -v landrun-work:/work -v landrun-audit:/var/log/landrun landrun-example"
expect_out "--read-only, with a tmpfs on /tmp and volumes for /work and the log" 0 '^hello from the sandbox$'
documented "docker run --rm --user 1000:1000 landrun-example"
expect_out "--user 1000:1000" 0 '^hello from the sandbox$'
OUT=$(docker run --rm --user 1000:1000 $IMG sh -c 'id -u; id -g' 2>&1); RC=$?
expect_out "--user 1000:1000: the command runs as 1000:1000" 0 '^1000$'

# --- an engine's seccomp profile that refuses what landrun needs -----------------------
# podman's default profile, less landlock_* (refused with Docker's errno,
# EPERM) or seccomp
PROFILE=/usr/share/containers/seccomp.json
if [ -r "$PROFILE" ] && python3 - "$PROFILE" "$WORK" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))
def variant(name, drop, errno=None):
    p = json.loads(json.dumps(src))
    for rule in p["syscalls"]:
        rule["names"] = [n for n in rule["names"] if n not in drop]
    p["syscalls"] = [r for r in p["syscalls"] if r["names"]]
    if errno is not None:
        p["defaultErrnoRet"] = errno
    json.dump(p, open(f"{sys.argv[2]}/seccomp-{name}.json", "w"))
landlock = {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}
variant("nolandlock-eperm", landlock, 1)
variant("noseccomp", {"seccomp"})
# no user namespace: unshare refused (ENOSYS, the profile's default errno)
variant("nouserns", {"unshare"})
PY
then
	SO="--security-opt seccomp"
	OUT=$(docker run --rm $SO=$PROFILE $IMG 2>&1); RC=$?
	expect_out "control: the engine's profile from its file: the example runs" 0 '^hello from the sandbox$'
	OUT=$(docker run --rm $SO=$WORK/seccomp-nolandlock-eperm.json $IMG 2>&1); RC=$?
	expect_out "a profile without landlock_* (EPERM): refused (the audit log needs Landlock), naming the filter" \
		125 "the caller's seccomp filter refused landlock_create_ruleset: EPERM"
	OUT=$(docker run --rm $SO=$WORK/seccomp-noseccomp.json $IMG perl -e "$SOCK" 2>&1); RC=$?
	expect_out "a profile without seccomp: landrun's filter, loaded by prctl, denies socket(AF_UNIX)" \
		97 'Address family not supported'
	OUT=$(docker run --rm $SO=$WORK/seccomp-noseccomp.json --entrypoint landrun $IMG --profile base --explain 2>&1); RC=$?
	expect_out "a profile without seccomp: --explain says so" 0 'seccomp filters \(by prctl'
else
	skip "the engine's seccomp profile refusing landlock_* or seccomp: no $PROFILE to start from"
fi

# --- a harness profile, as docs/containers.md says it fares -------------------------
# (the example image has no CA certificates, which the profiles read: the host's)
if [ -d /etc/ssl/certs ] && [ -d /usr/share/ca-certificates ]; then
	H=(-v /etc/ssl/certs:/etc/ssl/certs:ro -v /usr/share/ca-certificates:/usr/share/ca-certificates:ro
	   -e HOME=/work/home --entrypoint landrun $IMG --profile opencode --mkdir /work/home --rw /work)
	# no user namespace, no pidfd_getfd: the broker connects a socket of
	# its own to the proxy, and nothing is lost (its default is error)
	OUT=$(docker run --rm "${H[@]}" -- sh -c 'echo ran' 2>&1); RC=$?
	expect_out "--profile opencode under the engine's profile: runs (net.egress-domains is the broker's)" \
		0 '^ran$'
	OUT=$(docker run --rm "${H[@]}" --explain 2>&1); RC=$?
	expect_out "--profile opencode --explain: mode loopback, brokered" 0 'mode loopback, brokered: '
else
	skip "a harness profile in the image: no /etc/ssl/certs on this machine to lend it"
fi

# --- --allow-domain inside the container: the proxy, judged by local servers ---------------
# No network but Debian's archive: the servers are the container's own, on
# its 127.0.0.1 (allowed.test and forbidden.test mapped there by --add-host;
# the proxy refuses a name on a loopback address unless the address is listed
# too, which A does for allowed.test's), HTTP on 8080 (allowed) and 8081 (not),
# HTTPS on 8443 (allowed, intercepted: --secret-header) under a test CA that
# landrun's helper trusts by SSL_CERT_FILE.  Each logs what reaches it, so a
# refusal is "refused AND the server saw nothing", beside a control: the same
# request made without landrun reaches it.  One container run per engine
# profile; the image is the example's with python3, curl and openssl.
EG=$WORK/egress
EIMG=landrun-example-egress
documented "docker run --rm --entrypoint landrun landrun-example --profile base --allow-domain api.openai.com --on-unsupported=error --explain"
expect_out "--allow-domain --on-unsupported=error --explain under the engine's profile: mode loopback, brokered" \
	0 'mode loopback, brokered: '
documented "docker run --rm --entrypoint landrun landrun-example --profile base --allow-domain api.openai.com --on-unsupported=error -- true"
expect_rc "--allow-domain --on-unsupported=error under the engine's profile: runs" 0
egress_image() {
	docker build -t $EIMG - >"$WORK/egress-build.log" 2>&1 <<-EOF
		FROM $IMG
		USER 0
		RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
		        --no-install-recommends python3 curl && rm -rf /var/lib/apt/lists/*
		USER 65534:65534
	EOF
}
egress_files() {
	rm -rf "$EG" && mkdir -p "$EG" || return 1
	# the test CA, and the certificate of allowed.test
	{ openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=landrun-test-ca -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign -keyout "$EG/ca.key" -out "$EG/ca.pem" &&
	  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=allowed.test \
		-keyout "$EG/key.pem" -out "$EG/csr.pem" &&
	  printf 'subjectAltName=DNS:allowed.test\nextendedKeyUsage=serverAuth\n' >"$EG/ext" &&
	  openssl x509 -req -in "$EG/csr.pem" -CA "$EG/ca.pem" -CAkey "$EG/ca.key" \
		-CAcreateserial -days 2 -extfile "$EG/ext" -out "$EG/cert.pem"; } >"$EG/openssl.log" 2>&1 ||
		return 1
	chmod 644 "$EG"/*
	cat >"$EG/servers.py" <<-'EOF'
		import http.server, os, ssl, sys, threading
		d = sys.argv[1]
		class H(http.server.BaseHTTPRequestHandler):
		    def do_GET(self):
		        with open(os.path.join(d, self.server.tag + ".log"), "a") as f:
		            f.write("GET %s host=%s auth=%s\n" % (self.path, self.headers.get("Host"),
		                                                  self.headers.get("Authorization", "-")))
		        body = ("served by %s %s\n" % (self.server.tag, self.path)).encode()
		        self.send_response(200)
		        self.send_header("Content-Length", str(len(body)))
		        self.send_header("Connection", "close")
		        self.end_headers()
		        self.wfile.write(body)
		    def log_message(self, *args):
		        pass
		def serve(tag, port, tls):
		    s = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
		    s.tag = tag
		    open(os.path.join(d, tag + ".log"), "a").close()
		    if tls:
		        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		        ctx.load_cert_chain("/t/cert.pem", "/t/key.pem")
		        s.socket = ctx.wrap_socket(s.socket, server_side=True)
		    threading.Thread(target=s.serve_forever, daemon=True).start()
		serve("allowed", 8080, False)
		serve("forbidden", 8081, False)
		serve("allowed_tls", 8443, True)
		open(os.path.join(d, "ready"), "w").close()
		threading.Event().wait(300)
	EOF
	# inside, as the image's user: KEY=VALUE lines for the checks below
	cat >"$EG/case.sh" <<-'EOF'
		T=$(mktemp -d) && cd "$T" || exit 1
		python3 /t/servers.py "$T" >servers.out 2>&1 &
		for _ in $(seq 600); do [ -e ready ] && break; sleep 0.05; done
		[ -e ready ] || { echo "servers=none $(tr '\n' ' ' <servers.out)"; exit 0; }
		echo servers=up
		A=(--profile base --on-unsupported=error --allow-domain allowed.test:8080,127.0.0.1:8080)
		seen() { echo "$1_seen=$(grep -c "GET $2 " "$3.log")"; }
		landrun "${A[@]}" --explain >explain 2>&1
		echo "explain_rc=$? explain_mode=$(sed -n '/^egress:/{n;p}' explain)"
		landrun "${A[@]}" -- curl -sS -m 10 http://allowed.test:8080/through-proxy >out 2>err
		echo "allowed_rc=$? allowed_body=$(cat out) $(tr '\n' ' ' <err)"
		seen allowed /through-proxy allowed
		landrun "${A[@]}" -- curl -sS -m 10 -o /dev/null -w '%{http_code}' \
			http://forbidden.test:8081/refused >out 2>err
		echo "forbidden_rc=$? forbidden_code=$(cat out) $(tr '\n' ' ' <err)"
		seen forbidden /refused forbidden
		curl -sS -m 10 --noproxy '*' http://forbidden.test:8081/control >out 2>&1
		echo "forbidden_control_rc=$? forbidden_control_body=$(cat out)"
		seen forbidden_control /control forbidden
		landrun "${A[@]}" -- curl -sS -m 10 --noproxy '*' http://allowed.test:8080/direct >out 2>&1
		echo "direct_rc=$? direct_out=$(grep -m1 '^curl' out)"
		seen direct /direct allowed
		curl -sS -m 10 --noproxy '*' http://allowed.test:8080/direct-control >out 2>&1
		echo "direct_control_rc=$? direct_control_body=$(cat out)"
		seen direct_control /direct-control allowed
		# the key outside: the command holds the placeholder, the server
		# gets the real header, set by the proxy that ends the TLS
		KEY=sk-test-4f1d9c SSL_CERT_FILE=/t/ca.pem landrun "${A[@]}" \
			--allow-domain 127.0.0.1:8443 --env KEY \
			--secret-header 'allowed.test:8443=Authorization: Bearer ${KEY}' -- \
			sh -c 'echo "env_has_key=$(env | grep -c sk-test-4f1d9c) env_key=$KEY"
				exec curl -sS -m 10 https://allowed.test:8443/secret' >out 2>err
		echo "secret_rc=$? $(head -1 out) secret_body=$(sed 1d out) $(tr '\n' ' ' <err)"
		echo "secret_auth=$(sed -n 's|^GET /secret .*auth=||p' allowed_tls.log)"
	EOF
}
# egress_case LABEL MODE-REGEX NOT-REGEX RUN-ARGS...: the checks of one engine profile
egress_case() {
	local label=$1 mode=$2 notmode=$3
	shift 3
	OUT=$(docker run --rm "$@" --add-host allowed.test:127.0.0.1 --add-host forbidden.test:127.0.0.1 \
		-v "$EG:/t:ro" --entrypoint bash $EIMG /t/case.sh 2>&1)
	printf '%s\n' "$OUT" >"$WORK/egress-${label//[^a-z]/_}.out"
	v() { sed -n "s/^.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$OUT" | head -1; }
	if [ "$(v servers)" != up ]; then
		not_ok "$label: the servers in the container did not start: $(oneline <<<"$OUT")"
		return
	fi
	local m
	m=$(sed -n 's/^.*explain_mode=//p' <<<"$OUT")
	if [ "$(v explain_rc)" = 0 ] && grep -Eq "$mode" <<<"$m" && { [ -z "$notmode" ] || ! grep -Eq "$notmode" <<<"$m"; }; then
		ok "$label: --allow-domain --on-unsupported=error --explain -> 0: $(cut -c3-120 <<<"$m")"
	else
		not_ok "$label: --explain -> $(v explain_rc), not 0 /$mode/: $m"
	fi
	grep -q '^allowed_rc=0 allowed_body=served by allowed /through-proxy' <<<"$OUT" && [ "$(v allowed_seen)" = 1 ] &&
		ok "$label: an allowed name through the proxy gets the served body (the server saw it)" ||
		not_ok "$label: allowed: $(grep '^allowed_' <<<"$OUT" | oneline)"
	[ "$(v forbidden_code)" = 403 ] && [ "$(v forbidden_seen)" = 0 ] &&
		ok "$label: a name not allowed: the proxy's 403, the server saw nothing" ||
		not_ok "$label: not allowed: $(grep '^forbidden_' <<<"$OUT" | oneline)"
	[ "$(v forbidden_control_rc)" = 0 ] && [ "$(v forbidden_control_seen)" = 1 ] &&
		ok "control: $label: the same server, asked without landrun, answers" ||
		not_ok "control: $label: the not-allowed server without landrun: $(grep '^forbidden_control' <<<"$OUT" | oneline)"
	[ "$(v direct_rc)" = 7 ] && [ "$(v direct_seen)" = 0 ] &&
		ok "$label: a direct connect to the allowed server, bypassing the proxy, fails: $(sed -n 's/^direct_rc=[0-9]* direct_out=//p' <<<"$OUT" | cut -c1-80)" ||
		not_ok "$label: direct: $(grep '^direct_' <<<"$OUT" | oneline)"
	[ "$(v direct_control_rc)" = 0 ] && [ "$(v direct_control_seen)" = 1 ] &&
		ok "control: $label: the same direct connect without landrun reaches it" ||
		not_ok "control: $label: direct without landrun: $(grep '^direct_control' <<<"$OUT" | oneline)"
	if [ "$(v secret_rc)" = 0 ] && [ "$(v env_has_key)" = 0 ] && [ "$(v env_key)" = landrun-placeholder ] &&
		grep -q 'secret_body=served by allowed_tls /secret' <<<"$OUT" &&
		grep -qx 'secret_auth=Bearer sk-test-4f1d9c' <<<"$OUT"; then
		ok "$label: --secret-header: the server got the real key, set by the proxy; the command's environment holds the placeholder"
	else
		not_ok "$label: --secret-header: $(grep -E '^(secret_|env_)' <<<"$OUT" | oneline)"
	fi
}
if ! command -v openssl >/dev/null || ! egress_files; then
	skip "--allow-domain in the container: no openssl here to make the test CA ($(tail -2 "$EG/openssl.log" 2>/dev/null | oneline))"
elif ! egress_image; then
	skip "--allow-domain in the container: python3 and curl could not be installed in the image (Debian's archive?): $(tail -3 "$WORK/egress-build.log" | oneline)"
else
	# no user namespace (unshare needs CAP_SYS_ADMIN) and no pidfd_getfd
	# (CAP_SYS_PTRACE): the broker connects a socket of its own
	egress_case "Docker's default profile" 'mode loopback, brokered: .*pidfd_getfd is refused here' ''
	# pidfd_getfd: the broker connects the command's own socket
	egress_case "Docker's default profile with CAP_SYS_PTRACE" 'mode loopback, brokered: ' \
		'pidfd_getfd is refused' --cap-add SYS_PTRACE
	if [ -r "$WORK/seccomp-nouserns.json" ]; then
		# podman's allows unshare: a user and network namespace
		egress_case "podman's default profile" '^  mode netns: ' '' --security-opt seccomp=$PROFILE
		egress_case "podman's profile without unshare (no user namespaces)" 'mode loopback, brokered: ' \
			'pidfd_getfd is refused' --security-opt seccomp=$WORK/seccomp-nouserns.json
	else
		skip "--allow-domain under podman's profile: no $PROFILE to start from"
	fi
	# uid 0's fchmod of a descriptor is the broker's too, which has no
	# pidfd_getfd here either: it opens the descriptor's /proc link
	FCHMOD='import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o644); os.fchmod(fd, 0o644); print("fchmod ok")'
	OUT=$(docker run --rm --user 0 --entrypoint landrun $EIMG --profile base --rw /work -- \
		python3 -c "$FCHMOD" /work/f 2>&1); RC=$?
	expect_out "as root: fchmod of a descriptor inside the writable grant (the broker's, without pidfd_getfd)" 0 '^fchmod ok$'
	OUT=$(docker run --rm --user 0 --entrypoint landrun $EIMG --profile base --rw /work -- \
		python3 -c "$FCHMOD" /etc/passwd 2>&1); RC=$?
	expect_out "as root: fchmod of a descriptor outside it is denied" 1 'PermissionError'
	OUT=$(docker run --rm --user 0 --entrypoint python3 $EIMG -c "$FCHMOD" /etc/passwd 2>&1); RC=$?
	expect_out "control: the same fchmod without landrun" 0 '^fchmod ok$'
fi

# --- an interactive shell: docker run -it, in tmux -----------------------------------------
# pane_has REGEX: the screen shows it
pane_has() { tmux -L landrun-containers capture-pane -p -t lr 2>/dev/null | grep -Eq "$1"; }
tty_case() { # DESC SHELL: the documented confined shell, typed into
	local desc=$1 line=$2 rc
	rm -f "$WORK/tty.rc"
	echo "$line" >>"$RAN"
	tmux -L landrun-containers new-session -d -s lr -x 100 -y 30 \
		"env DOCKER_HOST=unix://$WORK/docker.sock PATH=/usr/bin:/bin bash -c '$line; echo \$? > $WORK/tty.rc'" &&
		TMUX_STARTED=1
	if ! wait_for 60 pane_has '\$ ?$'; then
		not_ok "$desc: no prompt: $(tmux -L landrun-containers capture-pane -p -t lr 2>&1 | oneline)"
		tmux -L landrun-containers kill-server 2>/dev/null
		return
	fi
	tmux -L landrun-containers send-keys -t lr 'tty; echo "pid=$$"; sleep 30 & jobs; kill %1' Enter
	wait_for 20 pane_has '^\[1\].*(Running|sleep)'
	local screen
	screen=$(tmux -L landrun-containers capture-pane -p -t lr 2>/dev/null)
	tmux -L landrun-containers send-keys -t lr 'exit 5' Enter
	wait_for 20 test -s "$WORK/tty.rc"
	rc=$(cat "$WORK/tty.rc" 2>/dev/null)
	tmux -L landrun-containers kill-server 2>/dev/null
	printf '%s\n' "$screen" >"$WORK/tty-${line##* }.screen"
	if [ "$rc" = 5 ] && grep -q '^/dev/pts/' <<<"$screen" && grep -Eq '^pid=[0-9]+' <<<"$screen" &&
		grep -Eq '\[1\].*(Running|sleep)' <<<"$screen" &&
		! grep -Eqi 'cannot set tty process group|no job control|Operation not permitted' <<<"$screen"; then
		ok "$desc: a terminal, job control, no complaint, exit 5 -> $rc"
	else
		not_ok "$desc: exit $rc: $(oneline <<<"$screen")"
	fi
}
tty_case "docker run -it: a confined sh" "docker run --rm -it landrun-example sh"
tty_case "docker run -it: a confined bash" "docker run --rm -it landrun-example bash"

# --- every documented line was run -------------------------------------------------------
n=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	n=$((n + 1))
	grep -qxF "$line" "$RAN" || not_ok "docs/containers.md: not run here: $line"
done <<<"$DOC_LINES"
[ $n -gt 5 ] && ok "every one of the $n docker commands of docs/containers.md was run" ||
	not_ok "docs/containers.md has only $n docker commands"

docker volume rm -f landrun-audit landrun-work >/dev/null 2>&1
finish
}
