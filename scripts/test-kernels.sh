#!/bin/bash
# test-kernels.sh - landrun's end-to-end contract under real Debian kernels, in QEMU.
#
#   scripts/test-kernels.sh [-k SPECS] [-j JOBS] [-o DIR] [-T SECS] [-n] [-v]
#
#   -k SPECS  comma list of kernels, each SUITE[+nolandlock] (the suite's linux-image-amd64)
#             or /path/to/vmlinuz; +nolandlock boots with an lsm= list without landlock.
#             Default: the matrix below.
#   -j JOBS   guests booted at once (default: the number of CPUs)
#   -o DIR    where results go (default build-kernels/); the summary is DIR/summary.txt,
#             the kernels x protections table DIR/kernels.md
#   -T SECS   guest-side timeout for each user's run (default 300)
#   -n        no native run: by default (as root) guest.sh also runs on this machine's
#             own kernel, as root and as uid 65534, for its row and column
#   -v        print each guest's test output
#
#   kernel (Debian suite)     Landlock ABI
#   trixie+nolandlock         0 (EOPNOTSUPP: Landlock not in the lsm= list)
#   bookworm-security         2 (6.1)
#   trixie                    6 (6.12)
#   sid                       10 (7.2)
#   trixie-backports          11 (7.3: newer than landrun knows)
#   host                      this machine's own kernel, natively (as root; not with -n)
#
# Each guest is Debian's kernel (unpacked from its package, never installed) and one
# initramfs: static busybox, a static landrun and its egress helper, the static helpers of
# tests/e2e and tests/kernels, and tests/kernels/guest.sh, which checks the contract of the
# plan as root and as an unprivileged user: every protection --explain says is enforced is
# attacked and holds; every one it says is lost is named in the warning and makes
# --on-unsupported=error refuse.  Results come back over a second serial port.
#
# Kernels are fetched with a private apt configuration (the mirror this machine's apt
# uses, or LANDRUN_KERNELS_MIRROR) into ${XDG_CACHE_HOME:-~/.cache}/landrun-kernels
# (LANDRUN_KERNELS_CACHE), about 90 MB.  QEMU emulates (single-threaded
# TCG: the same on every machine, KVM or not; multi-threaded TCG crashed guests now
# and then).
#
# Exit status: 0 every kernel passed as both users; 1 something failed; 2 the runner
# could not set up (tools, build); 77 the Debian archive could not be reached and a
# kernel was not in the cache (nothing was proven: not a pass).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

MATRIX=trixie+nolandlock,bookworm-security,trixie,sid,trixie-backports
SPECS=$MATRIX
JOBS=$(nproc 2>/dev/null || echo 2)
OUT=$ROOT/build-kernels
TMO=300
VERBOSE=0
NATIVE=1
while getopts "k:j:o:T:nvh" o; do
	case $o in
	k) SPECS=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	o) OUT=$(realpath -m "$OPTARG") ;;
	T) TMO=$OPTARG ;;
	n) NATIVE=0 ;;
	v) VERBOSE=1 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done

CACHE=${LANDRUN_KERNELS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/landrun-kernels}
NOLANDLOCK_LSM=lockdown,capability,yama,apparmor,bpf
GUEST_UID=1000

log() { echo "test-kernels: $*" >&2; }
die() { log "ERROR: $*"; exit 2; }
START=$(date +%s)

# ---------------------------------------------------------------- tools
. scripts/deps.sh
KERNEL_PACKAGES=(qemu-system-x86 busybox-static cpio file debian-archive-keyring)
install_tools() {
	local missing=() p
	# the whole suite's packages; if some cannot be had, the static build says
	# whether it needed them
	lr_install_deps || log "warning: not every package of scripts/deps.sh could be installed"
	for p in "${KERNEL_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (run as root, or apt-get install them)"
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
}
install_tools
BUSYBOX=/bin/busybox
file -L "$BUSYBOX" | grep -q 'statically linked' || die "$BUSYBOX is not static (busybox-static)"

# ---------------------------------------------------------------- static binaries
# The initramfs has no libc: landrun and the helpers are linked statically.  landrun
# is built by meson in its own build directory; the helpers are single files.
build_binaries() {
	local b=$OUT/static bin=$OUT/bin
	mkdir -p "$OUT" "$bin"
	echo '*' >"$OUT/.gitignore"
	if [ ! -f "$b/build.ninja" ]; then
		meson setup "$b" "$ROOT" -Dtests=disabled -Dprefer_static=true \
			-Dbuildtype=release >"$OUT/build.log" 2>&1 ||
			{ cat "$OUT/build.log" >&2; die "meson setup of the static build failed"; }
	fi
	meson compile -C "$b" landrun:executable landrun-egress:executable >>"$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log" >&2; die "the static build of landrun failed"; }
	# (landrun is a static PIE by default: "static-pie linked"); its egress
	# helper goes beside it, where landrun looks for it first
	for x in landrun landrun-egress; do
		file "$b/$x" | grep -qE 'statically linked|static-pie linked' ||
			die "$b/$x is not static"
		cp "$b/$x" "$bin/$x"
	done
	gcc -O2 -static -o "$bin/lr-try" tests/e2e/lr-try.c &&
		gcc -O2 -static -pthread -o "$bin/lr-net" tests/e2e/lr-net.c &&
		gcc -O2 -Wall -static -o "$bin/lr-kguest" tests/kernels/lr-kguest.c ||
		die "cannot build the static helpers"
}

# ---------------------------------------------------------------- kernels
# A private apt configuration that knows only the suites of the matrix (and -k), so that this
# machine's own apt state is never touched.  Lists are refreshed every 6 hours.
APTD=$CACHE/apt
system_mirror() {
	sed -n 's#^URIs:[[:space:]]*\(http[^[:space:]]*\)/debian/*$#\1#p
		s#^deb[[:space:]].*\(https\{0,1\}://[^[:space:]]*\)/debian/*[[:space:]].*#\1#p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list.d/*.list 2>/dev/null | head -n1 || true
}
MIRROR=${LANDRUN_KERNELS_MIRROR:-$(system_mirror)}
MIRROR=${MIRROR:-http://deb.debian.org}
APT_OPTS=(-o Dir::Etc="$APTD/etc" -o Dir::Etc::SourceList="$APTD/etc/sources.list"
	-o Dir::Etc::SourceParts="$APTD/etc/sources.list.d" -o Dir::Etc::Parts="$APTD/etc/apt.conf.d"
	-o Dir::Etc::Preferences="$APTD/etc/preferences"
	-o Dir::Etc::PreferencesParts="$APTD/etc/preferences.d"
	-o Dir::State="$APTD/state" -o Dir::State::status=/dev/null -o Dir::Cache="$APTD/cache"
	-o APT::Architecture=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root -q)
ARCHIVE=unknown		# ok, or down once an update failed

apt_update() {
	local s suites=() sources
	mkdir -p "$APTD"/etc/{apt.conf.d,preferences.d,sources.list.d} "$APTD"/state/lists/partial \
		"$APTD"/cache/archives/partial
	# the matrix's suites too, so that a -k run does not force an update
	for s in ${SPECS//,/ } ${MATRIX//,/ }; do
		case $s in /*) ;; *) suites+=("${s%%+*}") ;; esac
	done
	mapfile -t suites < <(printf '%s\n' "${suites[@]}" | sort -u)
	sources=$(for s in "${suites[@]}"; do
		case $s in
		*-security) echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR/debian-security $s main" ;;
		*) echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR/debian $s main" ;;
		esac
	done)
	if [ "${1:-}" != --force ] && [ "$sources" = "$(cat "$APTD/etc/sources.list" 2>/dev/null)" ] &&
		[ -n "$(find "$APTD/updated.stamp" -mmin -360 2>/dev/null)" ]; then
		ARCHIVE=ok	# the same suites, updated less than 6 hours ago
		return 0
	fi
	echo "$sources" >"$APTD/etc/sources.list"
	log "apt-get update from $MIRROR (private lists: ${suites[*]})"
	if apt-get "${APT_OPTS[@]}" --error-on=any update >"$CACHE/apt-update.log" 2>&1; then
		touch "$APTD/updated.stamp"
		ARCHIVE=ok
	else
		log "cannot reach the Debian archive at $MIRROR (see $CACHE/apt-update.log)"
		rm -f "$APTD/updated.stamp"
		ARCHIVE=down
	fi
}

# fetch_kernel SUITE: unpack the suite's newest linux-image-amd64 into $CACHE/k/KVER/
# (vmlinuz only; the .deb is not kept) and print KVER.  With the archive down, the
# kernel this suite resolved to last time, if any.
fetch_kernel() {
	local suite=$1 link=$CACHE/suite/$1 ver img kver deps pkgs tmp d f
	if [ "$ARCHIVE" != ok ]; then
		[ -s "$link/vmlinuz" ] || return 1
		log "$suite: archive unreachable, using the cached $(basename "$(readlink -f "$link")")"
		basename "$(readlink -f "$link")"
		return 0
	fi
	ver=$(apt-cache "${APT_OPTS[@]}" madison linux-image-amd64 | awk -F'|' -v s="$suite/main" \
		'{gsub(/ /, "", $2); split($3, a, " "); if (a[2] == s) print $2}' | head -1)
	[ -n "$ver" ] || { log "$suite: no linux-image-amd64"; return 1; }
	img=$(apt-cache "${APT_OPTS[@]}" show "linux-image-amd64=$ver" | sed -n 's/^Depends: //p' |
		head -1 | tr ',' '\n' | grep -o 'linux-image-[^ ]*' | head -1)
	kver=${img#linux-image-}
	if [ ! -s "$CACHE/k/$kver/vmlinuz" ]; then
		deps=$(apt-cache "${APT_OPTS[@]}" show "$img=$ver" | sed -n 's/^Depends: //p' | head -1)
		# 7.x kernels are split: the image is in linux-binary-KVER
		if grep -q "linux-binary-$kver" <<<"$deps"; then
			pkgs="linux-binary-$kver=$ver linux-base-$kver=$ver"
		else
			pkgs="$img=$ver"
		fi
		tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
		log "$suite: downloading $pkgs"
		(cd "$tmp" && apt-get "${APT_OPTS[@]}" download $pkgs >/dev/null 2>"$tmp/err") ||
			{ log "$suite: download failed: $(tail -1 "$tmp/err")"; rm -rf "$tmp"; return 1; }
		for d in "$tmp"/*.deb; do
			dpkg-deb --fsys-tarfile "$d" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' \
				'./usr/lib/modules/*/vmlinuz' 2>/dev/null || true
		done
		f=$(ls "$tmp"/boot/vmlinuz-* "$tmp"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -1)
		[ -n "$f" ] || { log "$suite: no vmlinuz in $pkgs"; rm -rf "$tmp"; return 1; }
		mkdir -p "$CACHE/k/$kver"
		mv "$f" "$CACHE/k/$kver/vmlinuz"
		rm -rf "$tmp"
	fi
	mkdir -p "$CACHE/suite"
	ln -sfn "../k/$kver" "$link"
	echo "$kver"
}

# ---------------------------------------------------------------- initramfs
# /init mounts what the tests need, runs tests/kernels/guest.sh as root and then as
# uid $GUEST_UID, and sends everything over ttyS1 between markers.
build_initramfs() {
	local r=$OUT/initramfs.root f
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,tests/bin}
	cp "$BUSYBOX" "$r/bin/busybox"
	for f in $("$BUSYBOX" --list-full); do
		[ -e "$r/$f" ] || ln -s /bin/busybox "$r/$f"
	done
	cp "$OUT"/bin/* "$r/tests/bin/"
	cp tests/kernels/guest.sh "$r/tests/guest.sh"
	cp tests/kernels/world.sh "$r/tests/world.sh"
	printf 'root:x:0:0:root:/root:/bin/sh\nlr:x:%s:%s:lr:/tmp:/bin/sh\n' \
		$GUEST_UID $GUEST_UID >"$r/etc/passwd"
	printf 'root:x:0:\nlr:x:%s:\n' $GUEST_UID >"$r/etc/group"
	cat >"$r/init" <<EOF
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mkdir -p /dev/pts; mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /tmp
ip link set lo up
sh /tests/world.sh /etc/hosts   # guest.sh's outside world for --allow-domain
export LRK_USER_UID=$GUEST_UID
exec </dev/console >/dev/console 2>&1
exec 3>/dev/ttyS1
stty raw -echo <&3 2>/dev/null  # no \\n -> \\r\\n on the results port
echo "@@LR-KERNEL \$(uname -r) abi=\$(/tests/bin/lr-kguest abi) lsm=\$(cat /sys/kernel/security/lsm 2>/dev/null)@@" >&3
for who in root user; do
	echo "@@LR-BEGIN \$who@@" >&3
	if [ \$who = root ]; then
		timeout $TMO sh /tests/guest.sh /tests/bin </dev/null >&3 2>&1
	else
		timeout $TMO /tests/bin/lr-kguest runas $GUEST_UID $GUEST_UID \\
			sh /tests/guest.sh /tests/bin </dev/null >&3 2>&1
	fi
	echo "@@LR-END \$who rc=\$?@@" >&3
	kill -9 -1 2>/dev/null; sleep 0.2  # what the tests left running
done
echo "@@LR-DONE@@" >&3
exec 3>&-  # the last close of the tty waits until the UART has sent everything
poweroff -f
EOF
	chmod 755 "$r/init" "$r/tests/bin"/* "$r/tests/guest.sh" "$r/tests/world.sh"
	(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$OUT/initramfs.cpio"
	rm -rf "$r"
}

# ---------------------------------------------------------------- boot
# boot LABEL VMLINUZ CMDLINE-EXTRA: one guest, its results in $OUT/runs/LABEL/
boot() {
	local d=$OUT/runs/$1 t0
	rm -rf "$d"
	mkdir -p "$d"
	t0=$(date +%s)
	# TCG single-threaded: multi-threaded TCG oopsed in ~5% of boots (a vCPU ran a
	# stale int3 while the kernel live-patched a static key)
	timeout -k 5 $((2 * TMO + 120)) qemu-system-x86_64 -accel tcg,thread=single -cpu max \
		-m 1024 -smp 2 -display none -monitor none -nic none -no-reboot \
		-serial "file:$d/console.log" -serial "file:$d/results.raw" \
		-kernel "$2" -initrd "$OUT/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 $3" \
		</dev/null >"$d/qemu.log" 2>&1 || echo $? >"$d/qemu.status"
	echo $(($(date +%s) - t0)) >"$d/seconds"
	tr -d '\r' <"$d/results.raw" >"$d/results.txt" 2>/dev/null || true
}

# ---------------------------------------------------------------- results
# user_result DIR WHO: "pass (N)" or "FAIL (M of N)" from the TAP between the markers
user_result() {
	local f=$1/results.txt rc sect
	rc=$(sed -n "s/^@@LR-END $2 rc=\([0-9]*\)@@$/\1/p" "$f" 2>/dev/null)
	sect=$(sed -n "/^@@LR-BEGIN $2@@/,/^@@LR-END $2 /p" "$f" 2>/dev/null)
	local n_ok n_bad
	n_ok=$(grep -c '^ok ' <<<"$sect" || true)
	n_bad=$(grep -c '^not ok ' <<<"$sect" || true)
	if [ -z "$rc" ]; then
		if grep -aq 'Kernel panic' "$1/console.log" 2>/dev/null; then echo PANIC
		elif [ -n "$sect" ]; then echo "CUT-OFF ($n_ok ok)"
		else echo NO-RESULT; fi
	elif [ "$rc" = 0 ]; then echo "pass ($n_ok)"
	elif [ "$rc" = 143 ]; then echo "TIMEOUT (${TMO}s)"
	else echo "FAIL ($n_bad of $((n_ok + n_bad)))"; fi
}

# The kernels x protections table, from each guest's --explain=json (run as root).
# Each row: a protection under one of guest.sh's policies.
ROWS_MD=(
	"fs.read|tcp|fs.read" "fs.write|tcp|fs.write" "fs.exec|tcp|fs.exec"
	"fs.truncate|tcp|fs.truncate" "fs.ioctl-dev|tcp|fs.ioctl-dev"
	"net.sockets|tcp|net.sockets"
	"net.tcp (no TCP flags)|default|net.tcp" "net.tcp (\`--connect-tcp\`)|tcp|net.tcp"
	"net.udp|tcp|net.udp"
	"net.unix (no \`--unix\`)|default|net.unix" "net.unix (\`--unix PATH\`)|unix|net.unix"
	"scope.abstract-unix (no \`--unix\`)|default|scope.abstract-unix"
	"scope.abstract-unix (\`--unix PATH\`)|unix|scope.abstract-unix"
	"scope.signal|tcp|scope.signal"
	"kernel.surface|tcp|kernel.surface" "kernel.foreign-abi|tcp|kernel.foreign-abi"
	"proc.no-subprocess (\`--deny-subprocess\`)|unix|proc.no-subprocess"
	"privs.root-metadata (as root)|tcp|privs.root-metadata"
	"net.egress-domains (\`--allow-domain\`)|egress|net.egress-domains"
)
explain_json() { sed -n "s/^# EXPLAIN-JSON $2 //p" "$OUT/runs/$1/root.txt" 2>/dev/null | head -1; }
# cell JSON ID: "landlock", "seccomp", "**lost**", "-" (not requested) or "?"
cell() {
	local o
	o=$(grep -o "{\"id\":\"$2\",[^}]*}" <<<"$1" | head -1)
	case $o in
	'') echo '?' ;;
	*'"requested":false'*) echo - ;;
	*'"enforced":true'*) sed 's/.*"layer":"\([a-z]*\)".*/\1/' <<<"$o" ;;
	*) echo '**lost**' ;;
	esac
}
write_markdown() { # LABEL...: columns in the order of their Landlock ABI
	local l row json rel abi name pol id cols=()
	for l; do
		json=$(explain_json "$l" tcp)
		abi=$(grep -o '"landlock_abi":[0-9]*' <<<"$json" | cut -d: -f2)
		cols+=("${abi:-99} $l")
	done
	mapfile -t cols < <(printf '%s\n' "${cols[@]}" | sort -n -k1,1 -s | cut -d' ' -f2)
	{
		echo "<!-- generated by scripts/test-kernels.sh from landrun --explain=json on each kernel -->"
		row="| protection |"
		for l in "${cols[@]}"; do
			json=$(explain_json "$l" tcp)
			rel=$(grep -o '"release":"[^"]*"' <<<"$json" | cut -d'"' -f4 | cut -d. -f1,2)
			abi=$(grep -o '"landlock_abi":[0-9]*' <<<"$json" | cut -d: -f2)
			case $l in
			*+nolandlock) row+=" $rel, Landlock off (ABI 0) |" ;;
			host) row+=" $rel (ABI ${abi:-?})* |" ;;
			*) row+=" $rel (ABI ${abi:-?}) |" ;;
			esac
		done
		echo "$row"
		echo "|---|$(printf -- '---|%.0s' "${cols[@]}")"
		for r in "${ROWS_MD[@]}"; do
			IFS='|' read -r name pol id <<<"$r"
			row="| $name |"
			for l in "${cols[@]}"; do
				row+=" $(cell "$(explain_json "$l" "$pol")" "$id") |"
			done
			echo "$row"
		done
		echo
		echo "Debian's kernels booted in QEMU; \"Landlock off\": booted with an \`lsm=\` list"
		echo "without landlock (EOPNOTSUPP).${HOST_NOTE:+ *$HOST_NOTE}"
	} >"$OUT/kernels.md"
}

# The same guest script on this machine's own kernel, natively, as root and as nobody,
# in a network and mount namespace of its own with the world of world.sh.
run_host() {
	local d=$OUT/runs/host hb t0
	rm -rf "$d"
	mkdir -p "$d"
	hb=$(mktemp -d /tmp/landrun-kernels.XXXXXX)
	cp "$OUT"/bin/* tests/kernels/guest.sh tests/kernels/world.sh "$hb/"
	chmod 755 "$hb" "$hb"/*
	t0=$(date +%s)
	{
		echo "@@LR-KERNEL $(uname -r) abi=$("$hb/lr-kguest" abi)@@"
		LRK_USER_UID=65534 unshare --net --mount --propagation private -- /bin/sh -c '
			h=$(mktemp) && sh "$1/world.sh" "$h" >&2 && mount --bind "$h" /etc/hosts &&
				rm -f "$h" || echo "# the world of world.sh could not be set up"
			echo "@@LR-BEGIN root@@"
			rc=0
			"$2" sh "$1/guest.sh" "$1" </dev/null 2>&1 || rc=$?
			echo "@@LR-END root rc=$rc@@"
			echo "@@LR-BEGIN user@@"
			rc=0
			"$1/lr-kguest" runas 65534 65534 "$2" sh "$1/guest.sh" "$1" </dev/null 2>&1 || rc=$?
			echo "@@LR-END user rc=$rc@@"' sh "$hb" "$BUSYBOX"
		echo "@@LR-DONE@@"
	} >"$d/results.txt"
	echo $(($(date +%s) - t0)) >"$d/seconds"
	: >"$d/console.log"
	rm -rf "$hb"
}

# summary_row LABEL: one line of the summary table; false if the kernel failed
summary_row() {
	local l=$1 d=$OUT/runs/$1 kline abi rroot ruser res=FAIL
	if [ ! -f "$d/results.txt" ]; then
		printf '%-20s %-24s %-4s %-16s %-16s %-7s %s\n' "$l" - - - - FAIL "(no kernel)"
		return 1
	fi
	sed -n '/^@@LR-BEGIN root@@/,/^@@LR-END root /p' "$d/results.txt" >"$d/root.txt"
	sed -n '/^@@LR-BEGIN user@@/,/^@@LR-END user /p' "$d/results.txt" >"$d/user.txt"
	kline=$(sed -n 's/^@@LR-KERNEL \(.*\)@@$/\1/p' "$d/results.txt")
	abi=$(sed -n 's/.*abi=\([0-9]*\).*/\1/p' <<<"$kline")
	rroot=$(user_result "$d" root)
	ruser=$(user_result "$d" user)
	[[ $rroot == pass* && $ruser == pass* ]] && res=PASS
	printf '%-20s %-24s %-4s %-16s %-16s %-7s %s\n' "$l" "${kline%% *}" "${abi:-?}" \
		"$rroot" "$ruser" "$res" "$(cat "$d/seconds")s"
	[ $res = PASS ]
}

# failures LABEL: the failed checks with their diagnostics, or the end of the console
failures() {
	local d=$OUT/runs/$1
	echo "----- $1: failures"
	awk '/^@@LR-BEGIN/ { who = $2 } /^not ok/ { p = 1; print who ": " $0; next }
		p && /^#   / { print; next } { p = 0 }' "$d/results.txt" | head -60
	if ! grep -q '^@@LR-DONE@@' "$d/results.txt" 2>/dev/null; then
		echo "(the guest did not finish; its console and qemu's messages:)"
		tail -20 "$d/console.log" "$d/qemu.log" 2>/dev/null
	fi
}

# ---------------------------------------------------------------- main
log "building static landrun and helpers"
build_binaries
build_initramfs
apt_update

declare -A KVER
LABELS=() FETCH_FAILED=0
for spec in ${SPECS//,/ }; do
	base=${spec%+nolandlock}
	[ -n "${KVER[$base]:-}" ] && { LABELS+=("$spec"); continue; }
	if [[ $base == /* ]]; then
		KVER[$base]=$base
	elif kv=$(fetch_kernel "$base"); then
		KVER[$base]=$kv
	else
		KVER[$base]=
		FETCH_FAILED=1
	fi
	LABELS+=("$spec")
done
# a failed download with fresh lists: is the archive down, or is it us?
[ $FETCH_FAILED = 1 ] && [ "$ARCHIVE" = ok ] && apt_update --force
if [ $FETCH_FAILED = 1 ] && [ "$ARCHIVE" = down ]; then
	log "the Debian archive ($MIRROR) is unreachable and some kernels are not cached:"
	log "nothing to prove them with; exit 77 (skipped, not passed)"
	exit 77
fi

log "booting ${#LABELS[@]} guests, $JOBS at a time"
mkdir -p "$OUT/runs"
for spec in "${LABELS[@]}"; do
	base=${spec%+nolandlock}
	kv=${KVER[$base]}
	[ -n "$kv" ] || continue
	extra=
	[ "$spec" != "$base" ] && extra="lsm=$NOLANDLOCK_LSM"
	vmlinuz=$CACHE/k/$kv/vmlinuz
	[[ $base == /* ]] && vmlinuz=$base
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	boot "$spec" "$vmlinuz" "$extra" &
done
wait

if [ "$NATIVE" = 1 ] && [ "$(id -u)" = 0 ]; then
	log "running guest.sh natively on this machine's kernel ($(uname -r))"
	run_host
	LABELS+=(host)
	HOST_NOTE="this machine's kernel, natively."
elif [ "$NATIVE" = 1 ]; then
	log "not root: no native run on this machine's kernel (it needs a second user)"
fi

FAILED=0
printf '%-20s %-24s %-4s %-16s %-16s %-7s %s\n' KERNEL UNAME-R ABI ROOT UNPRIVILEGED RESULT TIME \
	>"$OUT/summary.txt"
for l in "${LABELS[@]}"; do
	summary_row "$l" >>"$OUT/summary.txt" || FAILED=1
done
cat "$OUT/summary.txt"
for l in "${LABELS[@]}"; do
	if [ $VERBOSE = 1 ]; then
		echo "----- $l: output"
		grep -v '^# EXPLAIN-JSON' "$OUT/runs/$l/results.txt" 2>/dev/null
	fi
	grep -q "^$l .* PASS " "$OUT/summary.txt" || failures "$l"
done

write_markdown "${LABELS[@]}"
log "kernels x protections: $OUT/kernels.md; logs: $OUT/runs/<kernel>/"
log "$(($(date +%s) - START))s in all"
npass=$(grep -c ' PASS ' "$OUT/summary.txt" || true)
echo "kernels: $npass passed, $((${#LABELS[@]} - npass)) failed"
if [ $FAILED = 0 ]; then
	log "PASS: every kernel, as root and as an unprivileged user"
else
	log "FAIL"
fi
exit $FAILED
