#!/bin/bash
# SPDX-License-Identifier: MIT
#
# reach.sh LANDRUN LR_PROC [--as-nobody] - what the command could reach
# beside files (issue 20, items 1 and 2), each attack performed from inside
# and judged from OUTSIDE: a SysV segment's content and mode, a message
# queue's length, a semaphore's value, an outside process's open-file limit,
# nice value (by pid, group and user), scheduling policy, CPUs and I/O class.
# Next to each, the control that shows the attack working without landrun
# (or with --allow-sysv-ipc), and what must keep working inside: a command
# renicing and limiting itself, `ulimit` and `nice` in a shell, POSIX shared
# memory under a granted /dev/shm, Python's multiprocessing.  TAP output.

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start reach landrun lr-proc -- "$@"

LANDRUN=$BIN/landrun
PROC=$BIN/lr-proc
W=$TMP/t/.work-$$
mkdir -p "$W" || exit 1
e2e_hello "landrun reach" "binaries in $BIN"
cd "$TMP/t" || exit 1
trap e2e_reap EXIT

SECRET=shm-secret-$$-$RANDOM
SYS=(--rox /usr,/bin,/lib,/lib64,"$BIN" --ignore-missing --rw /dev/null)
lr() { run "$LANDRUN" "${SYS[@]}" "$@"; }
out_has() { grep -qF -- "$1" "$W/out"; }
no_secret() { ! grep -qF -- "$SECRET" "$W/out" "$W/err"; }
# the nice value and the open-file limits (soft hard) of PID, from /proc
nice_of() { local s; s=$(cat "/proc/$1/stat") && s=${s##*) } && set -- $s && echo "${17}"; }
nofile_of() { awk '/^Max open files/ { print $4, $5 }' "/proc/$1/limits"; }
policy_of() { local s; s=$(cat "/proc/$1/stat") && s=${s##*) } && set -- $s && echo "${39}"; }
cpus_of() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status"; }
IDS=() QUEUES=() SEMS=()
cleanup_ipc() {
	local i
	for i in "${IDS[@]}"; do "$PROC" shm-rm "$i" 2>/dev/null; done
	for i in "${QUEUES[@]}"; do "$PROC" msg-rm "$i" 2>/dev/null; done
	for i in "${SEMS[@]}"; do "$PROC" sem-rm "$i" 2>/dev/null; done
}
trap 'cleanup_ipc; e2e_reap' EXIT

# ===========================================================================
# SysV shared memory and message queues, made outside

t_sysv_shm() {
	local id
	if ! id=$("$PROC" shm-make 600 "$SECRET"); then
		skip "SysV shared memory" "needs SysV IPC (CONFIG_SYSVIPC)"
		return
	fi
	IDS+=("$id")
	run "$PROC" shm-read "$id"
	expect "control: outside, the 0600 segment is readable" 0
	assert "control: and holds the secret" out_has "$SECRET"

	lr -- "$PROC" shm-read "$id";		expect "shmat of an outside segment" 1
	assert "shmat: the secret did not come out" no_secret
	lr -- "$PROC" shm-chmod "$id" 666;	expect "shmctl(IPC_SET) to 0666 of an outside segment" 1
	run "$PROC" shm-mode "$id"
	assert "shmctl(IPC_SET): outside, the segment is still 0600" out_has 600

	lr --allow-sysv-ipc -- "$PROC" shm-read "$id"
	expect "--allow-sysv-ipc: shmat of the segment" 0
	assert "--allow-sysv-ipc: the secret comes out (what the flag allows)" out_has "$SECRET"
	lr --allow-sysv-ipc -- "$PROC" shm-chmod "$id" 640
	expect "--allow-sysv-ipc: shmctl(IPC_SET)" 0
	run "$PROC" shm-mode "$id"
	assert "--allow-sysv-ipc: outside, the mode is 0640 now" out_has 640
	lr --allow-sysv-ipc --explain
	assert "--allow-sysv-ipc: --explain says ipc.sysv is off" \
		grep -Eq '^ *ipc\.sysv +off' "$W/out"
	lr --explain
	assert "--explain: ipc.sysv by seccomp" grep -Eq '^ *ipc\.sysv +seccomp' "$W/out"
}

t_sysv_msg() {
	local q
	if ! q=$("$PROC" msg-make 600); then
		skip "SysV message queues" "needs SysV IPC (CONFIG_SYSVIPC)"
		return
	fi
	QUEUES+=("$q")
	lr -- "$PROC" msg-send "$q" hello;	expect "msgsnd to an outside queue" 1
	run "$PROC" msg-count "$q"
	assert "msgsnd: outside, the queue is empty" out_has 0
	run "$PROC" msg-send "$q" hello;	expect "control: outside, msgsnd" 0
	run "$PROC" msg-count "$q"
	assert "control: outside, the queue holds 1" out_has 1
}

t_sysv_sem() {
	local id
	if ! id=$("$PROC" sem-make 600); then
		skip "SysV semaphores" "needs SysV IPC (CONFIG_SYSVIPC)"
		return
	fi
	SEMS+=("$id")
	lr -- "$PROC" sem-set "$id" 7;		expect "semctl(SETVAL) of an outside semaphore" 1
	run "$PROC" sem-get "$id"
	assert "semctl: outside, its value is still 0" grep -qx 0 "$W/out"
	run "$PROC" sem-set "$id" 7;		expect "control: outside, semctl(SETVAL)" 0
	run "$PROC" sem-get "$id"
	assert "control: outside, its value is 7" grep -qx 7 "$W/out"
}

# ===========================================================================
# Other processes: limits and priority, by pid and by user

t_other_processes() {
	local victim control before_n before_l
	sleep 300 & victim=$!
	PIDS+=("$victim")
	sleep 300 & control=$!
	PIDS+=("$control")
	before_l=$(nofile_of "$victim") before_n=$(nice_of "$victim")

	lr -- "$PROC" prlimit "$victim" 5;	expect "prlimit64 of an outside process" 1
	assert "prlimit64: outside, its open-file limit is unchanged ($before_l)" \
		test "$(nofile_of "$victim")" = "$before_l"
	lr -- "$PROC" setprio "$victim" 19;	expect "setpriority of an outside process" 1
	lr -- "$PROC" setprio-user 19;		expect "setpriority(PRIO_USER) of the user's processes" 1
	assert "setpriority: outside, its nice value is unchanged ($before_n)" \
		test "$(nice_of "$victim")" = "$before_n"

	run "$PROC" prlimit "$control" 5;	expect "control: outside, prlimit64" 0
	assert "control: its open-file limit is 5 5" test "$(nofile_of "$control")" = "5 5"
	run "$PROC" setprio "$control" 19;	expect "control: outside, setpriority" 0
	assert "control: its nice value is 19" test "$(nice_of "$control")" = 19
}

# By process group, and the scheduler's and the I/O scheduler's settings:
# each on a process in a group of its own, its state read in /proc (and
# by ionice) outside; the controls do the same from outside.
t_other_processes_sched() {
	local victim control cpus policy io
	setsid sleep 300 & victim=$!
	PIDS+=("$victim")
	setsid sleep 300 & control=$!
	PIDS+=("$control")
	until_pgid() { local s; s=$(cat "/proc/$1/stat") && s=${s##*) } && set -- "$1" $s && [ "$4" = "$1" ]; }
	wait_until 10 until_pgid "$victim" && wait_until 10 until_pgid "$control" ||
		{ echo "Bail out! setsid sleep did not lead a group of its own"; exit 1; }
	cpus=$(cpus_of "$victim") policy=$(policy_of "$victim") io=$(ionice -p "$victim")

	lr -- "$PROC" setprio-pgrp "$victim" 19; expect "setpriority(PRIO_PGRP) of an outside group" 1
	assert "setpriority(PRIO_PGRP): outside, its nice value is unchanged" \
		test "$(nice_of "$victim")" = 0
	lr -- "$PROC" idle "$victim";		expect "sched_setscheduler of an outside process" 1
	assert "sched_setscheduler: outside, its policy is unchanged ($policy)" \
		test "$(policy_of "$victim")" = "$policy"
	lr -- "$PROC" ioprio-idle "$victim";	expect "ioprio_set of an outside process" 1
	assert "ioprio_set: outside, its I/O class is unchanged ($io)" \
		test "$(ionice -p "$victim")" = "$io"
	run "$PROC" setprio-pgrp "$control" 19;	expect "control: outside, setpriority(PRIO_PGRP)" 0
	assert "control: its nice value is 19" test "$(nice_of "$control")" = 19
	run "$PROC" idle "$control";		expect "control: outside, sched_setscheduler" 0
	assert "control: its policy is SCHED_IDLE (5)" test "$(policy_of "$control")" = 5
	run "$PROC" ioprio-idle "$control";	expect "control: outside, ioprio_set" 0
	assert "control: its I/O class is idle" test "$(ionice -p "$control")" = idle
	if [ "$(nproc)" -lt 2 ]; then
		skip "sched_setaffinity of an outside process" "needs two CPUs"
		return
	fi
	lr -- "$PROC" affinity "$victim" 0;	expect "sched_setaffinity of an outside process" 1
	assert "sched_setaffinity: outside, its CPUs are unchanged ($cpus)" \
		test "$(cpus_of "$victim")" = "$cpus"
	run "$PROC" affinity "$control" 0;	expect "control: outside, sched_setaffinity" 0
	assert "control: its CPUs are 0" test "$(cpus_of "$control")" = 0
}

t_self() {
	lr -- "$PROC" nice 7;			expect "control: the command renices itself" 0
	assert "control: to 7" out_has 7
	lr -- "$PROC" nofile 64;		expect "control: the command limits itself (setrlimit)" 0
	assert "control: to 64" out_has 64
	lr -- /bin/sh -c 'ulimit -n 100 && ulimit -n && nice -n 3 nice'
	expect "control: ulimit and nice in a shell" 0
	assert "control: ulimit -n 100" grep -qx 100 "$W/out"
	assert "control: nice -n 3" grep -qx 3 "$W/out"
}

# ===========================================================================
# What uses POSIX shared memory, in a granted /dev/shm

t_posix_shm() {
	local py=/usr/bin/python3
	if [ ! -x "$py" ] || [ ! -d /dev/shm ] || [ ! -w /dev/shm ]; then
		skip "POSIX shared memory and multiprocessing" "needs /usr/bin/python3 and a writable /dev/shm"
		return
	fi
	lr --rw /dev/shm -- "$py" -c '
import multiprocessing as mp
from multiprocessing import shared_memory
def put(q, name):
    s = shared_memory.SharedMemory(name=name)
    q.put(bytes(s.buf[:5]).decode())
    s.close()
if __name__ == "__main__":
    s = shared_memory.SharedMemory(create=True, size=64)
    s.buf[:5] = b"hello"
    q = mp.Queue()
    with mp.Pool(2) as pool:
        print("pool", sum(pool.map(abs, [-1, -2, -3])))
    p = mp.Process(target=put, args=(q, s.name))
    p.start()
    print("shm", q.get(timeout=30))
    p.join()
    s.close()
    s.unlink()
'
	expect "control: Python multiprocessing (Pool, Queue, shared_memory) with /dev/shm granted" 0
	assert "control: the pool computed" out_has "pool 6"
	assert "control: the child read the POSIX segment" out_has "shm hello"
}

t_sysv_shm
t_sysv_msg
t_sysv_sem
t_other_processes
t_other_processes_sched
t_self
t_posix_shm
tap_done
