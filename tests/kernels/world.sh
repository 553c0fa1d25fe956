#!/bin/sh
# SPDX-License-Identifier: MIT
#
# world.sh HOSTS - the outside world of guest.sh's --allow-domain checks, on
# the loopback interface of the network namespace it runs in (a guest's own,
# or the one scripts/test-kernels.sh makes for its native run), with the
# names written to HOSTS (the guest's /etc/hosts, or a file mounted there):
#
#   allowed.test 11.1.1.1   forbidden.test 11.2.2.2   loop.test 127.0.0.1
set -e
ip link set lo up
ip addr add 11.1.1.1/32 dev lo
ip addr add 11.2.2.2/32 dev lo
cat >"$1" <<HOSTS
127.0.0.1 localhost
11.1.1.1 allowed.test
11.2.2.2 forbidden.test
127.0.0.1 loop.test
HOSTS
chmod 644 "$1"
