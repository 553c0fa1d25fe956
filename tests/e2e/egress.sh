#!/bin/bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of --allow-domain: the command's only way out is landrun's
# proxy, which reaches the allowed names and nothing else.  TAP output.
#
#   egress.sh LANDRUN LR_NET LR_TRY FAKE_MODEL HARNESS_LIB LR_FAKEABI [--as-nobody]
#
# Offline.  The test runs in a network and mount namespace of its own (made
# here, as root: the product never uses a mount namespace), where the loopback
# interface also carries addresses that play the outside world, and
# /etc/hosts and /etc/resolv.conf are the test's:
#
#   allowed.test   11.1.1.1   HTTP on 8080 (and 3128), HTTPS on 8443
#   forbidden.test 11.2.2.2   HTTP on 8080
#   (resolver)     11.3.3.3   a DNS witness on UDP and TCP 53
#   private.test   10.1.1.1          loop.test   127.0.0.1
#   metadata.test  169.254.169.254   ula.test    fd00::1
#   a.wild.test    127.0.0.1         b.wild.test 11.1.1.1
#   api.fake.test  11.1.1.1   the fake model (tests/harness/fake_model.py)
#   api.provider.test        11.1.1.1  a provider's API over HTTPS on 9443, its
#                                      certificate from a test CA (section 6b)
#   untrusted.provider.test  11.1.1.1  the same on 9444, self-signed
#
# and 127.0.0.1 has two services of the host: one forwarded with
# --connect-tcp, one not.  Every server logs what reaches it, so a denial is
# "the command failed AND the server saw nothing" (a poke from outside, after
# the attempt, must be the only new line), and every denial has a positive
# control.  With --as-nobody a root caller runs the body as uid 65534:
# landrun then makes a user namespace for its network namespace.  The
# fallback (no user namespaces) is tested with user.max_user_namespaces=0 in
# a user namespace of the test's own, so that nothing else on the machine
# loses them meanwhile.

set -u

. "$(dirname "$0")/lib.sh" || exit 2

if [ "${1:-}" != --body ]; then
	if [ "$(id -u)" != 0 ]; then
		skip_all "needs root: the test makes a network and mount namespace of its own"
	fi
	if [ -z "${LR_EGRESS_NS:-}" ]; then
		# the real OpenCode (section 7), installed as the harness tests
		# do while the npm registry is still reachable; if it cannot
		# be, that case skips and says why
		. "$(dirname "$0")/../harness/lib.sh" &&
			lr_npm_install opencode-ai "$LR_OPENCODE_VERSION" >/dev/null
		LR_EGRESS_NS=1 exec unshare --net --mount --propagation private -- "$0" "$@"
	fi
	# the test's world: addresses on lo, and its own /etc/hosts and
	# resolv.conf (bind-mounted, then unlinked: gone with the namespace)
	ip link set lo up || exit 1
	for a in 11.1.1.1 11.2.2.2 11.3.3.3 10.1.1.1 169.254.169.254; do
		ip addr add "$a/32" dev lo || exit 1
	done
	ip -6 addr add fd00::1/128 dev lo 2>/dev/null	# without IPv6, its cases are skipped
	# the DNS witness binds port 53 as nobody too (this namespace only)
	sysctl -qw net.ipv4.ip_unprivileged_port_start=0 || exit 1
	etc=$(mktemp -d /tmp/landrun-egress-etc.XXXXXX) || exit 1
	cat >"$etc/hosts" <<-'EOF'
		127.0.0.1 localhost
		::1 localhost ip6-localhost
		11.1.1.1 allowed.test
		11.2.2.2 forbidden.test
		10.1.1.1 private.test
		127.0.0.1 loop.test
		169.254.169.254 metadata.test
		fd00::1 ula.test
		127.0.0.1 a.wild.test
		11.1.1.1 b.wild.test
		11.1.1.1 api.fake.test
		11.1.1.1 api.provider.test
		11.1.1.1 untrusted.provider.test
	EOF
	printf 'nameserver 11.3.3.3\noptions timeout:1 attempts:1\n' >"$etc/resolv.conf"
	chmod 644 "$etc"/*
	mount --bind "$etc/hosts" /etc/hosts && mount --bind "$etc/resolv.conf" /etc/resolv.conf ||
		exit 1
	rm -rf "$etc"
	# the real OpenCode, if the harness tests installed it: linked in, for
	# a body that runs as nobody and cannot reach root's cache
	. "$(dirname "$0")/../harness/lib.sh"
	profiles=$(cd "$(dirname "$0")/../../profiles" && pwd)
	E2E_LINK="base.conf=$profiles/base.conf opencode.conf=$profiles/opencode.conf"
	oc=$(lr_opencode_bin "$LR_CACHE/opencode-ai" 2>/dev/null) && E2E_LINK+=" opencode=$oc"
	export E2E_LINK
fi
e2e_start --grants-only --env-i egress landrun lr-net lr-try fake_model.py harness-lib.sh lr-fakeabi -- "$@"

LANDRUN=$BIN/landrun NET=$BIN/lr-net TRY=$BIN/lr-try FAKE=$BIN/lr-fakeabi
W=$TMP/t/work
mkdir -p "$W" || exit 1
PYTHON=/usr/bin/python3
trap e2e_reap EXIT

e2e_hello "landrun egress e2e" "binaries in $BIN"
LR_EGRESS_V6=
ip -6 addr show dev lo 2>/dev/null | grep -q 'inet6 fd00::1/' && LR_EGRESS_V6=1
export LR_EGRESS_V6
DIAG_LINES=12

RC=0
run() {
	"$@" >"$W/out" 2>"$W/err" </dev/null
	RC=$?
}

# the command's grants: system files, the test's binaries, the CA of the
# HTTPS server; no network flags but those given
G=(--rox /usr,/bin,/lib,/lib64,"$BIN" --ro /etc/hosts,/etc/resolv.conf,/etc/nsswitch.conf
	--ro /etc/ssl,/etc/alternatives,/etc/ld.so.cache,"$W/ro" --rw /dev/null)
A=(--allow-domain allowed.test:8080,allowed.test:8443,loop.test:8080,private.test:8080)
A+=(--allow-domain metadata.test:80,ula.test:8080,'*.wild.test:8080')
lr() { run "$LANDRUN" "${G[@]}" "$@"; }

# expect DESC WANT ("A|B") comes from lib.sh
out_has() { grep -q -- "$1" "$W/out"; }
err_has() { grep -q -- "$1" "$W/err"; }

# ---------------------------------------------------------------------------
# The outside world: servers that log each request or connection.

mkdir -p "$W/ro" || exit 1
if ! openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=allowed.test \
	-addext subjectAltName=DNS:allowed.test -keyout "$W/ro/key.pem" -out "$W/ro/cert.pem" \
	>/dev/null 2>&1; then
	echo "Bail out! openssl cannot make the HTTPS server's certificate"
	exit 1
fi

cat >"$W/upstream.py" <<'EOF'
import os, socket, ssl, sys, threading, time

d, life = sys.argv[1], float(sys.argv[2])

def rec(name, what):
    with open(os.path.join(d, name + ".log"), "a") as f:
        f.write(what + "\n")

def http(name, conn):
    try:
        conn.settimeout(10)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        head = data.split(b"\r\n\r\n")[0].decode(errors="replace").split("\r\n")
        method, path = head[0].split(" ")[:2]
        host = next((h.split(":", 1)[1].strip() for h in head[1:]
                     if h.lower().startswith("host:")), "-")
        body = ("upstream %s method=%s path=%s host=%s\n" % (name, method, path, host)).encode()
        if not path.startswith("/held"):
            rec(name, "%s %s host=%s" % (method, path, host))
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                         % len(body) + body)
            return
        # /held: answer, say so (half-close), and count what else arrives
        # until the proxy closes: one request per connection, and its body
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % len(body) + body)
        conn.shutdown(socket.SHUT_WR)
        rest = data.split(b"\r\n\r\n", 1)[1]
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                break
            rest += chunk
        rec(name, "%s %s host=%s after=%r" % (method, path, host, rest))
    except Exception as e:
        rec(name, "error " + repr(e))
    finally:
        conn.close()

def serve(name, kind, family, addr):
    s = socket.socket(family, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(addr)
    if kind == "udp":
        def loop():
            while True:
                s.recv(512)
                rec(name, "datagram")
    else:
        s.listen(64)
        ctx = None
        if kind == "https":
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(os.path.join(d, "ro/cert.pem"), os.path.join(d, "ro/key.pem"))
        def loop():
            while True:
                c, _ = s.accept()
                if kind == "tcp":
                    rec(name, "connected")
                    c.close()
                    continue
                if ctx:
                    try:
                        c.settimeout(10)
                        c = ctx.wrap_socket(c, server_side=True)
                    except Exception as e:
                        rec(name, "tls error " + repr(e))
                        c.close()
                        continue
                threading.Thread(target=http, args=(name, c), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return s

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

V4, V6 = socket.AF_INET, socket.AF_INET6
serve("allowed", "http", V4, ("11.1.1.1", 8080))
serve("allowed_tls", "https", V4, ("11.1.1.1", 8443))
serve("allowed_3128", "tcp", V4, ("11.1.1.1", 3128))
serve("forbidden", "http", V4, ("11.2.2.2", 8080))
serve("private", "http", V4, ("10.1.1.1", 8080))
serve("loop", "http", V4, ("127.0.0.1", 8080))
serve("metadata", "http", V4, ("169.254.169.254", 80))
if os.environ.get("LR_EGRESS_V6"):
    serve("ula", "http", V6, ("fd00::1", 8080))
serve("dns_udp", "udp", V4, ("11.3.3.3", 53))
serve("dns_tcp", "tcp", V4, ("11.3.3.3", 53))
fwd = serve("forwarded", "http", V4, ("127.0.0.1", 0)).getsockname()[1]
other = serve("other", "http", V4, ("127.0.0.1", 0)).getsockname()[1]
with open(os.path.join(d, "ready.tmp"), "w") as f:
    f.write("FWD=%d OTHER=%d FREE=%d\n" % (fwd, other, free_port()))
os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
time.sleep(life)
EOF
"$PYTHON" "$W/upstream.py" "$W" 300 >"$W/upstream.out" 2>&1 &
PIDS+=($!)
wait_until "$WAIT_S" test -e "$W/ready"
[ -e "$W/ready" ] || { echo "Bail out! the servers did not start: $(cat "$W/upstream.out")"; exit 1; }
eval "$(cat "$W/ready")"
echo "# servers up; the host's loopback: forwarded $FWD, other $OTHER; IPv6: ${LR_EGRESS_V6:-no}"

# poke NAME: reach the server from outside any sandbox
poke() {
	case $1 in
	allowed) curl -s -o /dev/null http://11.1.1.1:8080/poke ;;
	allowed_tls) curl -s -o /dev/null --cacert "$W/ro/cert.pem" https://allowed.test:8443/poke ;;
	allowed_3128) "$NET" tcp-connect 11.1.1.1 3128 ;;
	forbidden) curl -s -o /dev/null http://11.2.2.2:8080/poke ;;
	private) curl -s -o /dev/null http://10.1.1.1:8080/poke ;;
	loop) curl -s -o /dev/null http://127.0.0.1:8080/poke ;;
	metadata) curl -s -o /dev/null http://169.254.169.254/poke ;;
	ula) curl -s -o /dev/null 'http://[fd00::1]:8080/poke' ;;
	dns_udp) "$NET" udp-send 11.3.3.3 53 ;;
	dns_tcp) "$NET" tcp-connect 11.3.3.3 53 ;;
	forwarded) curl -s -o /dev/null "http://127.0.0.1:$FWD/poke" ;;
	other) curl -s -o /dev/null "http://127.0.0.1:$OTHER/poke" ;;
	provider) curl -s -o /dev/null --cacert "$P/testca.pem" -d '{}' https://api.provider.test:9443/poke ;;
	untrusted) curl -s -o /dev/null -k -d '{}' https://untrusted.provider.test:9444/poke ;;
	esac
}
# count, wait_count, mark, saw, saw_nothing (the servers log $W/NAME.log,
# poked from outside by poke above) come from lib.sh.

# A client of the proxy, inside the sandbox: CONNECT or an absolute URI to
# the proxy in $HTTPS_PROXY; prints the status line, Proxy-Status, and over a
# tunnel, the body of a GET.
cat >"$W/ro/client.py" <<'EOF'
import os, socket, sys

mode, target = sys.argv[1], sys.argv[2]
host_header = sys.argv[3] if len(sys.argv) > 3 else target
proxy = os.environ["HTTPS_PROXY"].split("//")[1]
ph, pp = proxy.rsplit(":", 1)
s = socket.create_connection((ph, int(pp)), timeout=10)
if mode == "connect":
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), target.encode()))
else:
    s.sendall(b"GET http://%s/via-proxy HTTP/1.1\r\nHost: %s\r\n\r\n"
              % (target.encode(), host_header.encode()))
data = b""
while b"\r\n\r\n" not in data:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
head, _, rest = data.partition(b"\r\n\r\n")
lines = head.decode(errors="replace").split("\r\n")
print("STATUS", lines[0].split(" ")[1] if " " in lines[0] else "none")
for l in lines[1:]:
    if l.lower().startswith("proxy-status:"):
        print(l)
if mode == "connect" and lines[0].split(" ")[1:2] == ["200"]:
    s.sendall(b"GET /via-tunnel HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
              % target.encode())
    rest = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    rest += chunk
print(rest.decode(errors="replace").split("\r\n\r\n")[-1].strip())
EOF
client() { lr "$@"; }	# lr ARGS... -- "$PYTHON" "$W/ro/client.py" ...

# ---------------------------------------------------------------------------
# 1. The world works from outside (controls).

for s in allowed allowed_tls allowed_3128 forbidden private loop metadata dns_udp dns_tcp \
	forwarded other ${LR_EGRESS_V6:+ula}; do
	mark $s
	poke $s
	RC=$?
	expect "outside: the $s server is reachable" 0
	saw "outside: $s" $s
done

# ---------------------------------------------------------------------------
# 2. The plan: a network namespace carries it.

lr --explain=json "${A[@]}" -- /bin/true
expect "--explain=json with --allow-domain" 0
if out_has '"id":"net.egress-domains","requested":true,"enforced":true,"layer":"netns"' &&
	out_has '"egress":{"mode":"netns","proxy":"127.0.0.1:3128"'; then
	tap_ok "explain: net.egress-domains by netns, the proxy on 127.0.0.1:3128"
else
	tap_not_ok "explain: net.egress-domains by netns, the proxy on 127.0.0.1:3128"
fi
lr --explain "${A[@]}" -- /bin/true
assert "explain (text) names the mode" out_has "mode netns: a network namespace of its own"

# ---------------------------------------------------------------------------
# 3. Through the proxy: what is allowed works, with every client.

mark allowed
lr "${A[@]}" -- curl -sS -m 10 http://allowed.test:8080/curl
expect "curl http:// (HTTP_PROXY: an absolute URI)" 0
assert "curl http://: the body is the allowed server's, Host is the URI's" \
	out_has "upstream allowed method=GET path=/curl host=allowed.test:8080"
saw "curl http://" allowed

mark allowed
lr "${A[@]}" -- curl -sS -m 10 --proxytunnel http://allowed.test:8080/tunnel
expect "curl through a CONNECT tunnel" 0
assert "curl CONNECT: the allowed server answered" out_has "upstream allowed method=GET path=/tunnel"
saw "curl CONNECT" allowed

mark allowed_tls
lr "${A[@]}" -- curl -sS -m 10 --cacert "$W/ro/cert.pem" https://allowed.test:8443/tls
expect "curl https:// (HTTPS_PROXY: CONNECT, TLS end to end)" 0
assert "curl https://: the allowed server answered" out_has "upstream allowed_tls method=GET path=/tls"
saw "curl https://" allowed_tls

mark allowed_tls
lr "${A[@]}" -- "$PYTHON" -c '
import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[1])
print(urllib.request.urlopen("https://allowed.test:8443/python", context=ctx, timeout=10).read().decode())
print(urllib.request.urlopen("http://allowed.test:8080/python-http", timeout=10).read().decode())
' "$W/ro/cert.pem"
expect "python urllib, https:// and http:// (the proxy variables)" 0
assert "python: the allowed servers answered" out_has "upstream allowed_tls method=GET path=/python"
assert "python: http:// too" out_has "upstream allowed method=GET path=/python-http"
saw "python https://" allowed_tls

# Node.js before 22.21 ignores the proxy variables: a CONNECT of its own
NODE=$(command -v node || true)
if [ -n "$NODE" ]; then
	mark allowed_tls
	lr "${A[@]}" -- "$NODE" -e '
const http = require("http"), tls = require("tls"), fs = require("fs");
const proxy = new URL(process.env.HTTPS_PROXY);
http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT",
               path: "allowed.test:8443" }).on("connect", (res, socket) => {
  if (res.statusCode !== 200) { console.log("CONNECT", res.statusCode); process.exit(1); }
  const s = tls.connect({ socket, servername: "allowed.test",
                          ca: fs.readFileSync(process.argv[1]) }, () => {
    s.write("GET /node HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n");
  });
  let body = ""; s.on("data", (d) => body += d);
  s.on("end", () => { console.log(body); process.exit(0); });
}).on("error", (e) => { console.log(e.message); process.exit(2); }).end();
' "$W/ro/cert.pem"
	expect "node: CONNECT and TLS through the proxy" 0
	assert "node: the allowed server answered" out_has "upstream allowed_tls method=GET path=/node"
	saw "node" allowed_tls
else
	skip "node through the proxy" "Node.js is not installed (Debian: nodejs)"
fi

# a wildcard; an address allowed as such (with the name that resolves to it)
mark allowed
lr "${A[@]}" -- curl -sS -m 10 http://b.wild.test:8080/wild
expect "*.wild.test: b.wild.test (a global address) is allowed" 0
saw "*.wild.test" allowed
mark private
lr --allow-domain private.test:8080,10.1.1.1:8080 -- curl -sS -m 10 http://private.test:8080/ok
expect "a private address named in --allow-domain is allowed (by name)" 0
saw "private address allowed" private
mark private
client --allow-domain 10.1.1.1:8080 -- "$PYTHON" "$W/ro/client.py" connect 10.1.1.1:8080
assert "... and CONNECT to the address itself" out_has "STATUS 200"
saw "private address allowed, CONNECT" private
# a name is looked up once for a while (the proxy keeps it), and each
# request judges its addresses again, for its own port: private.test's
# 10.1.1.1 is allowed on 8080 only
mark private
lr --allow-domain private.test:8080,private.test:8081,10.1.1.1:8080 -- /bin/sh -c '
	for p in 8080 8081 8080; do "$0" "$1" connect "private.test:$p"; done' "$PYTHON" "$W/ro/client.py"
assert "private.test :8080, :8081, :8080 again in one run: 200, 403, 200 ($(grep -o 'STATUS [0-9]*' "$W/out" | tr '\n' ' '))" \
	eval '[ "$(grep -o "STATUS [0-9]*" "$W/out" | tr "\n" " ")" = "STATUS 200 STATUS 403 STATUS 200 " ] &&
		out_has "error=destination_ip_prohibited"'
assert "... the private witness saw the two allowed" wait_count private $((BEFORE + 2))

# the host's loopback: the --connect-tcp port is forwarded, at the same address
mark forwarded
lr "${A[@]}" --connect-tcp "$FWD" -- curl -sS -m 10 "http://127.0.0.1:$FWD/fwd"
expect "--connect-tcp $FWD: the host's 127.0.0.1:$FWD, from inside at the same address" 0
assert "forwarded: the host's service answered" out_has "upstream forwarded method=GET path=/fwd"
saw "forwarded port" forwarded

# ---------------------------------------------------------------------------
# 4. Every escape fails.

# direct connections: the allowed server, on a port Landlock allows (the
# proxy's, a forwarded one): the namespace has no route out
denied() { # DESC WANT SERVER ARGS...
	local desc=$1 want=$2 server=$3
	shift 3
	mark "$server"
	lr "$@"
	expect "$desc" "$want"
	saw_nothing "$desc" "$server"
}
denied "direct TCP to 11.1.1.1:3128 (the proxy's port, allowed by Landlock)" 101 allowed_3128 \
	"${A[@]}" -- "$NET" tcp-connect 11.1.1.1 3128
denied "direct TCP to 11.1.1.1:8080 with --connect-tcp 8080 (allowed by Landlock)" 101 allowed \
	"${A[@]}" --connect-tcp 8080 -- "$NET" tcp-connect 11.1.1.1 8080
denied "direct TCP to 11.1.1.1:8080 (Landlock first)" 13 allowed \
	"${A[@]}" -- "$NET" tcp-connect 11.1.1.1 8080
denied "the host's loopback, a port not forwarded" 13 other \
	"${A[@]}" -- "$NET" tcp-connect 127.0.0.1 "$OTHER"
denied "curl --noproxy '*' to the allowed name" "7" allowed \
	"${A[@]}" -- curl -sS -m 5 --noproxy '*' http://allowed.test:8080/direct
# DNS
denied "DNS over UDP to the resolver" "93|97|13" dns_udp "${A[@]}" -- "$NET" udp-send 11.3.3.3 53
denied "DNS over TCP to the resolver, --connect-tcp 53" 101 dns_tcp \
	"${A[@]}" --connect-tcp 53 -- "$NET" tcp-connect 11.3.3.3 53
mark dns_udp
lr "${A[@]}" -- getent hosts unknown.test
expect "getent hosts unknown.test (the resolver is unreachable)" 2
saw_nothing "getent hosts unknown.test" dns_udp

# through the proxy: what is not allowed
refused() { # DESC SERVER ERROR ARGS...: 403, naming ERROR, and the server saw nothing
	local desc=$1 server=$2 error=$3
	shift 3
	mark "$server"
	client "${A[@]}" "$@"
	if out_has "STATUS 403" && out_has "Proxy-Status: landrun; error=$error"; then
		tap_ok "$desc -> 403 ($error)"
	else
		tap_not_ok "$desc -> 403 ($error)"
	fi
	saw_nothing "$desc" "$server"
}
C=(-- "$PYTHON" "$W/ro/client.py")
cat >"$W/ro/raw.py" <<'EOF'
import ast, os, socket, sys

# raw.py BYTES [trickle]: send BYTES (a Python bytes literal) to the proxy as
# they are; trickle: one byte a second, until the proxy answers
data = ast.literal_eval(sys.argv[1])
proxy = os.environ["HTTP_PROXY"].split("//")[1]
ph, pp = proxy.rsplit(":", 1)
s = socket.create_connection((ph, int(pp)), timeout=30)
if len(sys.argv) > 2:
    import select, time
    start = time.monotonic()
    for b in data:
        if select.select([s], [], [], 1)[0]:
            break
        s.sendall(bytes([b]))
    print("AFTER", int(time.monotonic() - start))
else:
    s.sendall(data)
got = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    got += chunk
head, _, body = got.partition(b"\r\n\r\n")
line = head.split(b"\r\n")[0].decode(errors="replace")
print("STATUS", line.split(" ")[1] if " " in line else "none")
print(body.decode(errors="replace").strip())
EOF
R=(-- "$PYTHON" "$W/ro/raw.py")
refused "CONNECT forbidden.test:8080 (not allowed)" forbidden http_request_denied \
	"${C[@]}" connect forbidden.test:8080
refused "GET http://forbidden.test:8080/ (not allowed)" forbidden http_request_denied \
	"${C[@]}" absolute forbidden.test:8080
refused "CONNECT allowed.test:8081 (another port)" allowed http_request_denied \
	"${C[@]}" connect allowed.test:8081
refused "CONNECT 11.1.1.1:8080 (the allowed name's address, as an IP literal)" allowed \
	destination_ip_prohibited "${C[@]}" connect 11.1.1.1:8080
refused "CONNECT 0xb.1.1.1:8080 (the same, spelled otherwise)" allowed \
	destination_ip_prohibited "${C[@]}" connect 0xb.1.1.1:8080
refused "CONNECT 127.0.0.1:8080 (a loopback literal)" loop destination_ip_prohibited \
	"${C[@]}" connect 127.0.0.1:8080
refused "CONNECT loop.test:8080 (allowed name, resolves to 127.0.0.1)" loop \
	destination_ip_prohibited "${C[@]}" connect loop.test:8080
refused "CONNECT a.wild.test:8080 (*.wild.test, resolves to 127.0.0.1)" loop \
	destination_ip_prohibited "${C[@]}" connect a.wild.test:8080
refused "CONNECT private.test:8080 (allowed name, resolves to 10.1.1.1)" private \
	destination_ip_prohibited "${C[@]}" connect private.test:8080
refused "GET http://metadata.test/ (allowed name, resolves to 169.254.169.254)" metadata \
	destination_ip_prohibited "${C[@]}" absolute metadata.test:80
if [ -n "${LR_EGRESS_V6:-}" ]; then
	refused "CONNECT ula.test:8080 (allowed name, resolves to fd00::1)" ula \
		destination_ip_prohibited "${C[@]}" connect ula.test:8080
	refused "CONNECT [fd00::1]:8080 (an IPv6 literal)" ula destination_ip_prohibited \
		"${C[@]}" connect '[fd00::1]:8080'
else
	skip "CONNECT ula.test (unique-local IPv6)" "needs IPv6 (CONFIG_IPV6) on lo in the test's namespace"
fi
# a request for the allowed name with another Host goes to the allowed name
mark allowed
client "${A[@]}" "${C[@]}" absolute allowed.test:8080 forbidden.test
assert "GET http://allowed.test:8080/ with Host: forbidden.test: Host is rewritten" \
	out_has "host=allowed.test:8080"
saw "Host rewritten" allowed

# a plain request is held to its Host: malformed heads are refused (400)
# before anything reaches the upstream, a pipelined second request never
# does, and the body of a Content-Length does
bad_head() { # DESC BYTES
	mark allowed
	client "${A[@]}" "${R[@]}" "$2"
	assert "$1 -> 400" out_has "STATUS 400"
	saw_nothing "$1" allowed
}
GA="b'GET http://allowed.test:8080/x HTTP/1.1"
bad_head "a space before the colon (Host :)" "$GA\r\nHost : forbidden.test\r\n\r\n'"
bad_head "Host after a bare LF" "$GA\r\nX: 1\nHost: forbidden.test\r\n\r\n'"
bad_head "a bare CR" "$GA\r\nX: 1\rHost: forbidden.test\r\n\r\n'"
bad_head "a control byte in a header" "$GA\r\nX: a\x1b[2Jb\r\n\r\n'"
bad_head "a folded header line" "$GA\r\nX: a\r\n Host: forbidden.test\r\n\r\n'"
bad_head "Transfer-Encoding (a body of no stated length)" \
	"$GA\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'"
held() { # DESC BYTES WANT: the upstream got one request, and WANT after its head
	mark allowed
	client "${A[@]}" "${R[@]}" "$2"
	assert "$1: answered" out_has "STATUS 200"
	if wait_count allowed $((BEFORE + 1)) &&
		tail -n 1 "$W/allowed.log" | grep -qF -- "host=allowed.test:8080 after=$3"; then
		tap_ok "$1: the upstream got $3 after the head"
	else
		tap_not_ok "$1: the upstream got: $(tail -n 1 "$W/allowed.log")"
	fi
}
client --log-level info "${A[@]}" "${R[@]}" "b'CONNECT a\\xc2\\x9b31m.test:8080 HTTP/1.1\\r\\n\\r\\n'"
if out_has "STATUS 400" && ! grep -q "$(printf '\302\233')" "$W/err"; then
	tap_ok "a host with a C1 control: refused, and not echoed raw to the terminal"
else
	tap_not_ok "a host with a C1 control: $(od -c "$W/err" | head -3 | tr '\n' '|')"
fi
mark allowed
client "${A[@]}" "${R[@]}" "$GA\r\nX-Slow: $(printf '%040d' 0)\r\n\r\n'" trickle
if out_has "STATUS 408" && grep -Eq '^AFTER (9|10|11)$' "$W/out"; then
	tap_ok "a client that sends its head a byte a second: 408 after 10 seconds"
else
	tap_not_ok "a slow client: $(tr '\n' '|' <"$W/out")"
fi
saw_nothing "a slow client" allowed
# 600 connections that never finish their head hold every place the helper
# has (512): the command starves only itself; --timeout still ends it on
# time, and the next run is served
cat >"$W/ro/hold.py" <<'EOF'
import os, socket, time
proxy = os.environ["HTTP_PROXY"].split("//")[1]
ph, pp = proxy.rsplit(":", 1)
held = []
for i in range(600):
    try:
        c = socket.create_connection((ph, int(pp)), timeout=5)
        c.sendall(b"GET http://allowed.test:8080/ HTTP/1.1\r\n")
        held.append(c)
    except OSError as e:
        print("FAILED", i, e, flush=True)
        break
print("HELD", len(held), flush=True)
time.sleep(600)
EOF
t0=$(date +%s%N)
client "${A[@]}" --timeout 3 --timeout-grace 1 --rlimit-nofile 2048 -- "$PYTHON" "$W/ro/hold.py"
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$RC" = 124 ] && [ "$ms" -lt 9000 ] && out_has "HELD"; then
	tap_ok "600 connections held open (the helper serves 512): --timeout 3 still ends the run, in $ms ms"
else
	tap_not_ok "600 connections held open: --timeout 3 ends the run (exit $RC, $ms ms; $(tr '\n' '|' <"$W/out"); $(tail -n 2 "$W/err" | tr '\n' '|'))"
fi
mark allowed
client "${A[@]}" "${C[@]}" absolute allowed.test:8080
expect "... and the next run is served" 0
saw "after 600 held connections" allowed
held "a second request pipelined after a GET" \
	"b'GET http://allowed.test:8080/held HTTP/1.1\r\nHost: allowed.test:8080\r\n\r\nGET /second HTTP/1.1\r\nHost: forbidden.test\r\n\r\n'" "b''"
held "control: a POST's body of its Content-Length" \
	"b'POST http://allowed.test:8080/held HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /second HTTP/1.1\r\nHost: forbidden.test\r\n\r\n'" "b'hello'"

# ---------------------------------------------------------------------------
# 5. The command: no capabilities; the proxy's variables.

lr "${A[@]}" --ro /proc/self/status -- "$TRY" caps
expect "caps inside" 0
caps_zero=yes
for k in CapInh CapPrm CapEff CapBnd CapAmb; do
	grep -q "^$k:[[:space:]]*0*\$" "$W/out" || caps_zero=no
done
if [ "$caps_zero" = yes ]; then tap_ok "the command holds no capability (every set empty)"; else
	tap_not_ok "the command holds no capability (every set empty)"
fi
lr "${A[@]}" -- "$TRY" env
assert "HTTPS_PROXY=http://127.0.0.1:3128 inside" out_has "^HTTPS_PROXY=http://127.0.0.1:3128$"
assert "http_proxy, ALL_PROXY and NO_PROXY inside" \
	bash -c "grep -q '^http_proxy=' '$W/out' && grep -q '^ALL_PROXY=' '$W/out' && grep -q '^NO_PROXY=localhost' '$W/out'"

# ---------------------------------------------------------------------------
# 6. The helper: found beside landrun, its decisions logged, no secret, confined, gone
# with the command.

# a copy of landrun without landrun-egress beside it (nor installed): one
# line naming where it looked, 125, and the command never ran; the control
# is the same copy with its helper
mkdir -p "$W/alone" "$W/paired" || exit 1
cp "$BIN/real/landrun" "$W/alone/landrun" && cp "$BIN/real/landrun" "$W/paired/landrun" &&
	cp "$BIN/real/landrun-egress" "$W/paired/landrun-egress" || exit 1
rm -f "$W/ran"
run "$W/alone/landrun" --profile none --no-project "${G[@]}" --rw "$W" "${A[@]}" -- \
	"$TRY" create "$W/ran"
expect "landrun-egress missing: refused" 125
if [ "$(wc -l <"$W/err")" = 1 ] &&
	err_has "landrun: --allow-domain: the egress helper landrun-egress is missing: not in $W/alone/landrun-egress nor in /.*/landrun-egress"; then
	tap_ok "... in one line naming where landrun looked"
else
	tap_not_ok "... in one line naming where landrun looked"
fi
assert "... and the command did not run" test ! -e "$W/ran"
mark allowed
run "$W/paired/landrun" --profile none --no-project "${G[@]}" "${A[@]}" -- \
	curl -sS -m 10 http://allowed.test:8080/paired
expect "control: the same copy with landrun-egress beside it" 0
saw "control: the copy's helper" allowed

lr --log-level info "${A[@]}" -- curl -sS -m 10 -o /dev/null http://allowed.test:8080/log
assert "--log-level info: an allowed request is logged" \
	err_has "egress: allowed GET allowed.test:8080"
client --log-level info "${A[@]}" "${C[@]}" connect forbidden.test:8080
assert "--log-level info: a refusal is logged with its reason" \
	err_has "egress: refused CONNECT forbidden.test:8080: not in --allow-domain"

# with --audit-log (outside the grants), each decision is a record of the run
AUD=$TMP/t/audit.jsonl
lr --audit-log "$AUD" "${A[@]}" -- /bin/sh -c \
	'curl -fsS -m 10 -o /dev/null http://allowed.test:8080/audit; "$1" "$2" connect forbidden.test:8080' \
	sh "$PYTHON" "$W/ro/client.py"
expect "--audit-log: a supervised run through the proxy" 0
cat >"$W/audit.py" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
run = recs[0]["run"]
assert recs[0]["event"] == "started" and recs[-1]["event"] == "completed", recs
eg = [r for r in recs if r["event"] == "egress"]
assert all(r["run"] == run for r in eg), eg
want = [("allowed", "GET", "allowed.test", 8080, "11.1.1.1", None),
        ("refused", "CONNECT", "forbidden.test", 8080, None, "not in --allow-domain")]
got = [(r["decision"], r["request"], r["host"], r["port"], r["address"], r["reason"]) for r in eg]
assert got == want, got
# the helper ends with the command: it is not something the command left
assert recs[-1]["left_behind"] == 0, recs[-1]
print("ok", len(eg))
EOF
run "$PYTHON" "$W/audit.py" "$AUD"
assert "--audit-log: an egress record for each decision, in the run's records; the helper not counted as left behind" out_has "^ok 2$"

# a host name with escape sequences, the command's choice: refused for
# its control bytes before it is read as a name, so the record holds the
# reason and no host, and the file no raw byte (issue 20, item 6)
AUD_ESC=$TMP/t/audit-esc.jsonl
lr --audit-log "$AUD_ESC" "${A[@]}" "${R[@]}" "b'CONNECT a\\x1b]0;pwned\\x07b.test:8080 HTTP/1.1\\r\\n\\r\\n'"
if [ -s "$AUD_ESC" ] && ! grep -q "$(printf '[\033\007]')" "$AUD_ESC" &&
	"$PYTHON" -c 'import json, sys
eg = [r for r in map(json.loads, open(sys.argv[1])) if r["event"] == "egress"]
assert [(r["decision"], r["host"], r["reason"]) for r in eg] == \
	[("refused", None, "a control byte in the request head")], eg' "$AUD_ESC"; then
	tap_ok "--audit-log: a host with escape sequences: refused, recorded without it, no raw byte in the log"
else
	tap_not_ok "--audit-log: a host with escape sequences: $(grep '"egress"' "$AUD_ESC" | od -c | grep -m3 -e 033 -e 007 | tr '\n' '|')"
fi

# the log is bounded (issue 20, item 11): 3000 refusals of one host are a
# handful of records, counted; 6000 of distinct hosts stop at the cap with
# one "capped" record; the run's end record comes last either way
cat >"$W/ro/flood.py" <<'EOF'
import os, socket, sys
ph, pp = os.environ["HTTPS_PROXY"].split("//")[1].rsplit(":", 1)
for i in range(int(sys.argv[1])):
    host = "flood%d.test:443" % i if sys.argv[2] == "distinct" else "forbidden.test:443"
    s = socket.create_connection((ph, int(pp)), timeout=10)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (host.encode(), host.encode()))
    while s.recv(4096):
        pass
    s.close()
EOF
cat >"$W/bound.py" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
eg = [r for r in recs if r["event"] == "egress"]
capped = [r for r in recs if r["event"] == "capped"]
assert recs[-1]["event"] == "completed", recs[-1]
print("records", len(recs), "egress", len(eg), "capped", len(capped),
      "max_count", max(r["count"] for r in eg), "bytes", sum(len(json.dumps(r)) for r in recs))
EOF
rm -f "$AUD"
lr --audit-log "$AUD" "${A[@]}" -- "$PYTHON" "$W/ro/flood.py" 3000 same
expect "--audit-log: 3000 refused CONNECTs of one host" 0
run "$PYTHON" "$W/bound.py" "$AUD"
assert "--audit-log: ... summarised: 12 egress records, the last counting 2048, then completed ($(cat "$W/out"))" \
	out_has "egress 12 capped 0 max_count 2048 "
rm -f "$AUD"
lr --audit-log "$AUD" "${A[@]}" -- "$PYTHON" "$W/ro/flood.py" 6000 distinct
expect "--audit-log: 6000 refused CONNECTs of distinct hosts" 0
run "$PYTHON" "$W/bound.py" "$AUD"
assert "--audit-log: ... capped: one capped record, under 1.1 MB, then completed ($(cat "$W/out"))" \
	eval 'grep -q " capped 1 " "$W/out" && [ "$(stat -c %s "$AUD")" -lt 1150000 ]'

# helper_of PID: HELPER, the landrun-egress of the landrun PID (its pidfd,
# fd 4, is of that pid), once it is there (lib.sh's WAIT_S at most), or empty
helper_found() {
	local p
	for p in $(pgrep -x landrun-egress); do
		grep -qx "Pid:[[:space:]]*$1" "/proc/$p/fdinfo/4" 2>/dev/null && HELPER=$p
	done
	[ -n "$HELPER" ]
}
helper_of() {
	HELPER=
	wait_until "$WAIT_S" helper_found "$1" || echo "# no landrun-egress of process $1 after $WAIT_S s"
}

SECRET=egress-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf 'API_KEY=%s-file\n' "$SECRET" >"$W/secret.env"
chmod 600 "$W/secret.env"
LR_SECRET_ENV=$SECRET-env "$LANDRUN" "${G[@]}" "${A[@]}" --env-file "$W/secret.env" \
	--env API_KEY --env LR_SECRET_ENV -- /bin/sleep 4 >"$W/out" 2>"$W/err" &
LRPID=$!
helper_of "$LRPID"
if [ -z "$HELPER" ]; then
	tap_not_ok "the helper of the run is found (landrun-egress, its pidfd on landrun's pid)"
else
	tap_ok "the helper of the run is found: pid $HELPER, landrun $LRPID"
	assert "the helper's environment is empty" test ! -s "/proc/$HELPER/environ"
	if grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$HELPER/status" &&
		grep -q '^Seccomp:[[:space:]]*2' "/proc/$HELPER/status" &&
		grep -q '^CapEff:[[:space:]]*0*$' "/proc/$HELPER/status" &&
		grep -q '^CapBnd:[[:space:]]*0*$' "/proc/$HELPER/status" ||
		{ [ "$AS" = nobody ] && grep -q '^CapEff:[[:space:]]*0*$' "/proc/$HELPER/status" &&
			grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$HELPER/status" &&
			grep -q '^Seccomp:[[:space:]]*2' "/proc/$HELPER/status"; }; then
		tap_ok "the helper is confined: no_new_privs, a seccomp filter, no capability"
	else
		tap_not_ok "the helper is confined: no_new_privs, a seccomp filter, no capability"
		grep -E 'NoNewPrivs|Seccomp|Cap' "/proc/$HELPER/status" | sed 's/^/#   /'
	fi
	files=$(ls -l "/proc/$HELPER/fd" 2>/dev/null | awk 'NR > 1 { print $NF }' |
		grep -v -e '^socket:' -e '^anon_inode:\[pidfd\]' -e '^/dev/null$' -e "^pipe:" \
			-e "^$W/err$" || true)
	if [ -z "$files" ]; then tap_ok "the helper holds no file: only sockets, a pidfd, stdio"; else
		tap_not_ok "the helper holds no file: only sockets, a pidfd, stdio"
		echo "$files" | sed 's/^/#   fd: /'
	fi
	if [ "$(id -u)" = 0 ]; then
		# its memory, read as root: the secrets of the run are not in it,
		# where a process that has them in its environment shows them
		cat >"$W/scan.py" <<'EOF'
import re, sys
pid, needles = sys.argv[1], [n.encode() for n in sys.argv[2:]]
found = set()
with open("/proc/%s/maps" % pid) as maps, open("/proc/%s/mem" % pid, "rb", 0) as mem:
    for line in maps:
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) r", line)
        if not m:
            continue
        a, b = int(m.group(1), 16), int(m.group(2), 16)
        try:
            mem.seek(a)
            data = mem.read(b - a)
        except (OSError, ValueError, OverflowError):
            continue
        found |= {n for n in needles if n in data}
print(" ".join(sorted(n.decode() for n in found)) or "none")
EOF
		env LR_CONTROL="$SECRET-env" /bin/sleep 60 &
		CONTROL=$!
		# (once env has execed sleep, with the secret in its environment)
		wait_until "$WAIT_S" eval '[ "$(cat /proc/$CONTROL/comm 2>/dev/null)" = sleep ]'
		run "$PYTHON" "$W/scan.py" "$CONTROL" "$SECRET-env"
		assert "control: the memory scan finds a secret in a process's environment" \
			out_has "$SECRET-env"
		run "$PYTHON" "$W/scan.py" "$HELPER" "$SECRET-file" "$SECRET-env" "$SECRET"
		assert "the helper's memory holds neither the --env-file's secret nor the caller's" \
			out_has "^none$"
		kill "$CONTROL" 2>/dev/null
	else
		skip "the helper's memory holds no secret" "needs root (reading another process's memory)"
	fi
fi
wait "$LRPID"
RC=$?
expect "the command (sleep 4) ends" 0
if [ -n "$HELPER" ]; then
	gone=no
	wait_for_exit "$HELPER" && gone=yes
	if [ $gone = yes ]; then tap_ok "the helper ends with the command"; else
		tap_not_ok "the helper ends with the command"
	fi
fi
# killed: the helper goes too
"$LANDRUN" "${G[@]}" "${A[@]}" -- /bin/sleep 30 >/dev/null 2>&1 &
LRPID=$!
helper_of "$LRPID"
kill -9 "$LRPID"
wait "$LRPID" 2>/dev/null
gone=no
[ -n "$HELPER" ] && wait_for_exit "$HELPER" && gone=yes
if [ $gone = yes ]; then tap_ok "the command killed (SIGKILL): the helper ends too"; else
	tap_not_ok "the command killed (SIGKILL): the helper ends too (helper ${HELPER:-not found})"
fi

# ---------------------------------------------------------------------------
# 6b. Intercepted hosts (--secret-header, --allow-request): the key held
# outside, the requests read.
#
# A provider's API over HTTPS, its certificate from a test CA that landrun
# (not the command) trusts through SSL_CERT_FILE in its own environment, as a
# corporate CA would be.  The provider logs each request it gets, with the
# credentials it carried and what came after the body; the command's side
# is judged from outside: its environment, arguments and files hold no key.

P=$W/provider
mkdir -p "$P" || exit 1
# the test CA, and the provider's certificate from it; another, self-signed
if ! { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=landrun-test-ca -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign -keyout "$P/ca.key" -out "$P/testca.pem" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=api.provider.test -keyout "$P/key.pem" -out "$P/csr.pem" &&
	printf 'subjectAltName=DNS:api.provider.test\nextendedKeyUsage=serverAuth\n' >"$P/ext" &&
	openssl x509 -req -in "$P/csr.pem" -CA "$P/testca.pem" -CAkey "$P/ca.key" \
		-CAcreateserial -days 2 -extfile "$P/ext" -out "$P/cert.pem" &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=untrusted.provider.test \
		-addext subjectAltName=DNS:untrusted.provider.test \
		-keyout "$P/ukey.pem" -out "$P/ucert.pem"; } >"$P/openssl.log" 2>&1; then
	echo "Bail out! openssl cannot make the provider's certificates: $(tail -3 "$P/openssl.log")"
	exit 1
fi
cat >"$P/provider.py" <<'EOF'
import os, socket, ssl, sys, threading, time

d = sys.argv[1]

def rec(name, what):
    with open(os.path.join(d, name + ".log"), "a") as f:
        f.write(what + "\n")

def read_until(conn, data, marker):
    while marker not in data:
        chunk = conn.recv(4096)
        if not chunk:
            raise EOFError("closed")
        data += chunk
    return data

def h_up(hdr):
    return ",".join(hdr.get("upgrade", [])).lower() == "websocket"

def upgraded(name, conn, hdr, method, path, rest):
    """A WebSocket's opening, accepted (101) with bytes of its own right
    after the head; then every chunk that comes echoed as b"echo:" + it
    (the bytes, not frames: the proxy reads neither), to the end."""
    rec(name, "%s %s upgrade auth=%s conn=%s upgrade=%s early=%r" % (
        method, path, ",".join(hdr.get("authorization", ["-"])),
        ",".join(hdr.get("connection", ["-"])), ",".join(hdr.get("upgrade", ["-"])), rest))
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\n\r\nearly-up;")
    if rest:
        conn.sendall(b"echo:" + rest + b";")
    total = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        total += len(chunk)
        # the two small messages echoed marked, the large one as it is
        conn.sendall(b"echo:" + chunk + b";" if total <= 14 else chunk)
    rec(name, "upgraded end, %d bytes after the opening" % (len(rest) + total))
    return False, False, b""

def one_request(name, conn, rest, n):
    """One request from REST and CONN, answered: False if it was the last."""
    data = read_until(conn, rest, b"\r\n\r\n")
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode(errors="replace").split("\r\n")
    method, target = lines[0].split(" ")[:2]
    path, _, query = target.partition("?")
    hdr = {}
    for l in lines[1:]:
        k, v = l.split(":", 1)
        hdr.setdefault(k.strip().lower(), []).append(v.strip())
    body, trailers = b"", []
    if "content-length" in hdr:
        size = int(hdr["content-length"][0])
        while len(rest) < size:
            rest += conn.recv(4096)
        body, rest = rest[:size], rest[size:]
    elif hdr.get("transfer-encoding") == ["chunked"]:
        while True:
            rest = read_until(conn, rest, b"\r\n")
            size, rest = rest.split(b"\r\n", 1)
            size = int(size.split(b";")[0], 16)
            while len(rest) < size + 2:
                rest += conn.recv(4096)
            if size == 0:
                # the trailer section, to its blank line
                rest = read_until(conn, rest, b"\r\n")
                while not rest.startswith(b"\r\n"):
                    line, rest = rest.split(b"\r\n", 1)
                    trailers.append(line.decode(errors="replace"))
                    rest = read_until(conn, rest, b"\r\n")
                rest = rest[2:]
                break
            body += rest[:size]
            rest = rest[size + 2:]
    if h_up(hdr) and path == "/v1/ws":
        return upgraded(name, conn, hdr, method, path, rest)
    # what else comes before the answer (a pipelined request must not)
    if path.startswith("/v1/held"):
        conn.settimeout(1)
        try:
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                rest += chunk
        except (socket.timeout, ssl.SSLError, OSError):
            pass
        conn.settimeout(10)
    def h(k):
        return ",".join(hdr.get(k, ["-"]))
    rec(name, "%s %s host=%s auth=%s xkey=%s conn=%s body=%r after=%r resumed=%s n=%d" % (
        method, path, h("host"), h("authorization"), h("x-api-key"), h("connection"),
        body, rest, conn.session_reused, n) +
        ("".join(" trailer=" + t for t in trailers)))
    out = b'{"provider":"%s","path":"%s","n":%d}\n' % (name.encode(), path.encode(), n)
    last = h("connection").lower() == "close" or rest != b"" or query in ("frame=close", "then=close")
    then_close = query == "then=close"
    # the answer framed by its length, by chunks (frame=chunked), or by
    # the close (frame=close); then=close: framed, then the connection
    # closes unannounced, as an upstream's idle connection does
    if query == "frame=chunked":
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (5, out[:5], len(out) - 5, out[5:]))
    elif query == "frame=close":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + out)
    else:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n%s\r\n" % (len(out),
                     b"Connection: close\r\n" if last and query != "then=close" else b"") + out)
    return not last, then_close, rest

def serve_one(name, conn):
    """Requests on CONN until it ends; each one answered and recorded."""
    then_close = False
    try:
        conn.settimeout(10)
        rest, n = b"", 0
        while True:
            # between two requests, the proxy may end the connection
            try:
                rest = read_until(conn, rest, b"\r\n\r\n")
            except (EOFError, socket.timeout, ssl.SSLError, OSError):
                if rest == b"" and n > 0:
                    break
                raise
            n += 1
            more, then_close, rest = one_request(name, conn, rest, n)
            if not more:
                break
    except Exception as e:
        rec(name + "_errors", "error " + repr(e))
    finally:
        # a close_notify first, as web servers end a connection (without
        # it, the client must take the end for a truncation, and may not
        # resume the session); of its own accord (then=close), without
        # waiting for the other's
        try:
            if then_close:
                conn.setblocking(False)
            conn.unwrap()
        except (OSError, ValueError):
            pass
        try:
            conn.close()
        except OSError:
            pass
        if then_close:
            # for a client in the sandbox, which waits for it ($W/ro)
            open(os.path.join(d, "..", "ro", name + "-closed-%d" % n), "w").close()

def serve(name, port, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(d, cert), os.path.join(d, key))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("11.1.1.1", port))
    s.listen(64)
    def handshake_then_serve(c):
        # each handshake in its connection's thread, as servers do: the
        # proxy begins its own beside the command's, and finishes it later;
        # given up after 3 s, sooner than the proxy waits for a first
        # request (the test of a slow command's first request)
        try:
            c.settimeout(3)
            c = ctx.wrap_socket(c, server_side=True)
            c.settimeout(10)
        except Exception as e:
            rec(name + "_errors", "tls error " + repr(e))
            c.close()
            # for a client in the sandbox, which waits for it ($W/ro)
            open(os.path.join(d, "..", "ro", name + "-tls-error"), "w").close()
            return
        serve_one(name, c)
    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=handshake_then_serve, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()

serve("provider", 9443, "cert.pem", "key.pem")
serve("untrusted", 9444, "ucert.pem", "ukey.pem")
open(os.path.join(d, "ready"), "w").close()
time.sleep(float(sys.argv[2]))
EOF
"$PYTHON" "$P/provider.py" "$P" 300 >"$P/out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
	[ -e "$P/ready" ] && break
	sleep 0.05
done
[ -e "$P/ready" ] || { echo "Bail out! the provider did not start: $(cat "$P/out")"; exit 1; }
chmod 644 "$P/testca.pem"

# the provider's log in $W, for mark/saw/saw_nothing; a poke from outside
ln -sf "$P/provider.log" "$W/provider.log"
ln -sf "$P/untrusted.log" "$W/untrusted.log"

PCA=$P/testca.pem PLOG=$P/provider.log
KEY=provider-key-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
PU=https://api.provider.test:9443
S=(--secret-header 'api.provider.test:9443=Authorization: Bearer ${PROVIDER_KEY}'
	--allow-request 'api.provider.test:9443=POST /v1/responses'
	--allow-request 'api.provider.test:9443=POST /v1/held*'
	--allow-request 'api.provider.test:9443=GET /v1/models/*')
# landrun trusts the test CA (its own environment); the command is given
# PROVIDER_KEY by the policy, which makes it the placeholder
sec() { # ARGS...: landrun with the secret header, the key in its environment
	run env SSL_CERT_FILE="$P/testca.pem" PROVIDER_KEY="$KEY" "$LANDRUN" "${G[@]}" "${A[@]}" \
		"${S[@]}" --env PROVIDER_KEY "$@"
}
curl_p() { # PATH [CURL ARGS...]: a command line for sh -c: curl to the provider, with the
	# harness's own Authorization (its PROVIDER_KEY), printing "HTTP STATUS" last
	local path=$1
	shift
	printf 'curl -sS -m 10 -o - -w %q %q -H "Authorization: Bearer $PROVIDER_KEY"' \
		'\nHTTP %{http_code}\n' "$PU$path"
	printf ' %q' "$@"
}

sec --explain -- /bin/true
assert "--explain names the intercepted host, the header and its variable, and the rules" \
	out_has "intercepted api.provider.test:9443: the proxy ends its TLS.*sets Authorization from \$PROVIDER_KEY.*only POST /v1/responses, POST /v1/held\*, GET /v1/models/\*"
assert "--explain: the key is not in it" eval '! grep -q "$KEY" "$W/out" "$W/err"'
sec --explain=json -- /bin/true
assert "--explain=json: intercepted, with the header's name and variables only" \
	out_has '"intercepted":\[{"host":"api.provider.test","port":9443,"header":"Authorization","variables":\["PROVIDER_KEY"\],"requests":\["POST /v1/responses","POST /v1/held\*","GET /v1/models/\*"\]}\]'

# the request the harness makes: it reaches the provider with the real key
mark provider
sec --log-level info -- /bin/sh -c "$(curl_p /v1/responses -d '{"input":"hi"}')"
expect "intercepted: curl POST /v1/responses (the command trusts the run's CA)" 0
assert "... answered by the provider" out_has '"provider":"provider","path":"/v1/responses"'
assert "... HTTP 200" out_has "^HTTP 200$"
saw "intercepted: the allowed request" provider
if tail -n 1 "$W/provider.log" | grep -qF "POST /v1/responses host=api.provider.test:9443 auth=Bearer $KEY xkey=- conn=- body=b'{\"input\":\"hi\"}' after=b''"; then
	tap_ok "... the provider got the real key (set by the proxy), the body, no Connection"
else
	tap_not_ok "... the provider got: $(tail -n 1 "$W/provider.log")"
fi
assert "... logged as intercepted and allowed, without the key" \
	eval 'grep -q "egress: allowed POST api.provider.test:9443" "$W/err" && ! grep -q "$KEY" "$W/err"'

# the command's side holds no key: its environment, arguments, the bundle,
# dumped from inside and searched outside; the control: the same search finds
# the key where the policy passes it as it is
# (the shell's /proc entries: its pid is landrun's, whose /proc/self the grants name)
CHECK='cat /proc/$$/environ /proc/$$/cmdline "${SSL_CERT_FILE:-/dev/null}" | tr "\0" "\n"
	echo "CERTS $(grep -c "BEGIN CERTIFICATE" "${SSL_CERT_FILE:-/dev/null}")"'
SELF=(--ro /proc/self/environ,/proc/self/cmdline)
run env PROVIDER_KEY="$KEY" "$LANDRUN" "${G[@]}" "${SELF[@]}" "${A[@]}" --env PROVIDER_KEY -- \
	/bin/sh -c "$CHECK"
assert "control: without --secret-header the command's environment has the key (the search finds it)" \
	eval 'grep -q "$KEY" "$W/out" && grep -q "^PROVIDER_KEY=$KEY$" "$W/out"'
sec "${SELF[@]}" -- /bin/sh -c "$CHECK"
assert "intercepted: the command's environment, argv and CA bundle hold no key" \
	eval '! grep -q "$KEY" "$W/out" && grep -q "^CERTS" "$W/out"'
assert "... PROVIDER_KEY=landrun-placeholder" out_has "^PROVIDER_KEY=landrun-placeholder$"
assert "... SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE: one bundle" \
	eval 'b=$(sed -n "s/^SSL_CERT_FILE=//p" "$W/out"); [ -n "$b" ] && for v in NODE_EXTRA_CA_CERTS REQUESTS_CA_BUNDLE CURL_CA_BUNDLE; do grep -qx "$v=$b" "$W/out" || exit 1; done'
assert "... the bundle: the system's CAs (here, SSL_CERT_FILE's: the test CA) and the run's" \
	out_has "^CERTS 2$"
assert "... and no private key" eval '! grep -q "PRIVATE KEY" "$W/out"'
# the run's CA, as the command gets it: a CA for the intercepted hosts only
sed -n '/landrun: the run.s CA/,$p' "$W/out" | sed -n '/BEGIN CERT/,/END CERT/p' >"$W/runca.pem"
openssl x509 -in "$W/runca.pem" -noout -text >"$W/runca.txt" 2>&1
if grep -q "ASN1 OID: prime256v1" "$W/runca.txt" && grep -q "CA:TRUE, pathlen:0" "$W/runca.txt" &&
	grep -A1 "X509v3 Key Usage: critical" "$W/runca.txt" | grep -q "Certificate Sign" &&
	grep -A3 "X509v3 Name Constraints: critical" "$W/runca.txt" | grep -q "DNS:api.provider.test"; then
	tap_ok "the run's CA: EC P-256, CA:TRUE with pathlen 0, keyCertSign, name constraints for api.provider.test only"
else
	tap_not_ok "the run's CA: $(grep -E "OID|CA:|Sign|Constraints|DNS" "$W/runca.txt" | tr '\n' '|')"
fi
# the same variable's value under another name is replaced too
run env SSL_CERT_FILE="$P/testca.pem" PROVIDER_KEY="$KEY" COPY="x-$KEY-y" "$LANDRUN" "${G[@]}" \
	"${A[@]}" "${S[@]}" --env COPY -- /bin/sh -c 'echo "COPY=$COPY"'
assert "... and a variable holding the key under another name gets the placeholder" \
	out_has "^COPY=landrun-placeholder$"

# the key's variable unset, or a malformed setting: one line, 125, nothing run
rm -f "$W/ran"
run env SSL_CERT_FILE="$P/testca.pem" "$LANDRUN" "${G[@]}" "${A[@]}" "${S[@]}" --rw "$W" -- \
	"$TRY" create "$W/ran"
expect "--secret-header with \${PROVIDER_KEY} unset: refused" 125
assert "... in one line naming the variable" \
	eval '[ "$(wc -l <"$W/err")" = 1 ] && grep -q "secret-header api.provider.test:9443: \${PROVIDER_KEY} is not set" "$W/err"'
assert "... and the command did not run" test ! -e "$W/ran"
sec --secret-header 'api.provider.test:9443 Authorization: x' -- "$TRY" create "$W/ran"
expect "a malformed --secret-header: refused" 125
assert "... in one line naming it" \
	eval '[ "$(wc -l <"$W/err")" = 1 ] && grep -q "^landrun: --secret-header api.provider.test:9443 Authorization: x=...: not HOST=NAME: VALUE" "$W/err"'
sec --allow-request 'api.provider.test:9443=post /x' -- "$TRY" create "$W/ran"
expect "a malformed --allow-request: refused" 125
assert "... and the command did not run" test ! -e "$W/ran"

# what the proxy refuses, the provider never sees: another key, another
# path or method (each beside the allowed request above)
refused_p() { # DESC WANT CURL-COMMAND [STATUS]
	local status=${4:-403}
	mark provider
	sec -- /bin/sh -c "$3"
	if out_has "^HTTP $status$" && out_has "$2"; then
		tap_ok "intercepted: $1 -> $status ($2)"
	else
		tap_not_ok "intercepted: $1 -> $status ($2)"
	fi
	saw_nothing "intercepted: $1" provider
}
refused_p "a request with another key (Authorization)" \
	"a credential of the command's own (Authorization)" \
	"curl -sS -m 10 -w '\nHTTP %{http_code}\n' $PU/v1/responses -H 'Authorization: Bearer sk-attacker' -d '{}'"
refused_p "a request with another key (x-api-key, beside the placeholder)" \
	"a credential of the command's own (x-api-key)" \
	"$(curl_p /v1/responses -H 'x-api-key: sk-attacker' -d '{}')"
refused_p "POST /v1/files (a path not allowed)" \
	"POST /v1/files on api.provider.test:9443 is not in --allow-request" \
	"$(curl_p /v1/files -d '{}')"
refused_p "GET /v1/responses (a method not allowed)" "GET /v1/responses on" "$(curl_p /v1/responses)"
refused_p "POST /v1/responses/../files (a path an upstream would normalise)" \
	"a '.' or '..' segment in the path" "$(curl_p /v1/responses/../files --path-as-is -d '{}')" 400
mark provider
sec -- /bin/sh -c "$(curl_p /v1/models/m1)"
assert "control: GET /v1/models/m1 (a prefix rule) is allowed" out_has "^HTTP 200$"
saw "control: GET /v1/models/*" provider
refused_p "a plain http:// request to the intercepted host:port (past its TLS)" \
	"api.provider.test:9443 is intercepted: https:// only" \
	"curl -sS -m 10 -w '\nHTTP %{http_code}\n' http://api.provider.test:9443/v1/responses -d '{}'"

# each request of a connection judged on its own, its body as framed: a
# second request pipelined after a Content-Length's body, or after a chunked
# body's end, is read as a request, and refused (not allowed), and the
# provider never sees it
cat >"$W/ro/tlsraw.py" <<'EOF'
import ast, os, socket, ssl, sys
data = ast.literal_eval(sys.argv[1])
ph, pp = os.environ["HTTPS_PROXY"].split("//")[1].rsplit(":", 1)
s = socket.create_connection((ph, int(pp)), timeout=10)
s.sendall(b"CONNECT api.provider.test:9443 HTTP/1.1\r\nHost: api.provider.test:9443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200"), "no tunnel"
ctx = ssl.create_default_context()  # SSL_CERT_FILE: the bundle landrun made
t = ctx.wrap_socket(s, server_hostname="api.provider.test")
t.sendall(data)
got = b""
while True:
    try:
        chunk = t.recv(4096)
    except (ssl.SSLError, OSError):
        break
    if not chunk:
        break
    got += chunk
print("STATUS", got.split(b" ")[1].decode() if b" " in got else "none")
print(got.decode(errors="replace").split("\r\n\r\n")[-1].strip())
EOF
last_has() { tail -n 1 "$W/$1.log" | grep -qF -- "$2"; }	# NAME TEXT: its last line has TEXT
held_p() { # DESC BYTES WANT-IN-THE-PROVIDER'S-LINE
	mark provider
	sec -- "$PYTHON" "$W/ro/tlsraw.py" "$2"
	assert "intercepted: $1: answered" out_has "STATUS 200"
	assert "intercepted: $1: the second refused" \
		out_has "POST /v1/files on api.provider.test:9443 is not in --allow-request"
	if wait_count provider $((BEFORE + 1)) && tail -n 1 "$W/provider.log" | grep -qF -- "$3"; then
		tap_ok "intercepted: $1: the provider got $3"
	else
		tap_not_ok "intercepted: $1: the provider got: $(tail -n 1 "$W/provider.log")"
	fi
	BEFORE=$((BEFORE + 1))
	saw_nothing "intercepted: $1: the second request" provider
}
HP="POST /v1/held HTTP/1.1\r\nHost: api.provider.test:9443\r\n"
SECOND="POST /v1/files HTTP/1.1\r\nHost: api.provider.test:9443\r\nContent-Length: 2\r\n\r\n{}"
held_p "a second request pipelined after a Content-Length body" \
	"b'${HP}Content-Length: 5\r\n\r\nhello$SECOND'" "auth=Bearer $KEY xkey=- conn=- body=b'hello' after=b''"
held_p "a second request pipelined after a chunked body" \
	"b'${HP}Transfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n$SECOND'" \
	"body=b'hello' after=b''"
# a trailer field after a chunked body: the proxy judged the head only, so it
# passes none (an Authorization there would be the command's own credential,
# past the judge); the same body without one is the control
HR="POST /v1/responses HTTP/1.1\r\nHost: api.provider.test:9443\r\nConnection: close\r\n"
HR="${HR}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
mark provider
sec -- "$PYTHON" "$W/ro/tlsraw.py" "b'$HR\r\n'"
assert "intercepted: control: a chunked body without a trailer -> 200" out_has "STATUS 200"
saw "intercepted: control: a chunked body without a trailer" provider
assert "... with its body" last_has provider "body=b'hello' after=b''"
mark provider
sec -- "$PYTHON" "$W/ro/tlsraw.py" "b'${HR}Authorization: Bearer sk-own\r\n\r\n'"
assert "intercepted: an Authorization trailer field -> 403" out_has "STATUS 403"
assert "... saying why" out_has "a trailer field in the request"
saw_nothing "intercepted: an Authorization trailer field" provider
mark provider
sec -- "$PYTHON" "$W/ro/tlsraw.py" "b'${HR}X-Checksum: 1\r\n\r\n'"
assert "intercepted: any trailer field -> 403" out_has "STATUS 403"
saw_nothing "intercepted: a trailer field" provider
mark provider
sec -- "$PYTHON" "$W/ro/tlsraw.py" "b'${HP}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'"
assert "intercepted: Content-Length and chunked both -> 400" out_has "STATUS 400"
saw_nothing "intercepted: two framings" provider

# Expect: 100-continue is the proxy's to answer (curl waits for it)
mark provider
sec -- /bin/sh -c "$(curl_p /v1/responses -H 'Expect: 100-continue' -d '{"e":1}')"
assert "intercepted: Expect: 100-continue, answered by the proxy: the request goes through" \
	out_has "^HTTP 200$"
saw "intercepted: Expect: 100-continue" provider
assert "... with its body" last_has provider "body=b'{\"e\":1}'"

# the proxy resumes its TLS session with an upstream: in one run, the
# second request's handshake is a resumed one (the provider says so), and
# the first, the control, was a full one, its certificate verified; a new
# run (a new helper) starts with a full one again
mark provider
sec -- /bin/sh -c "$(curl_p /v1/responses -d '{"n":1}') && $(curl_p /v1/responses -d '{"n":2}')"
assert "intercepted: two requests in one run: both answered" \
	eval '[ "$(grep -c "^HTTP 200$" "$W/out")" = 2 ]'
if wait_count provider $((BEFORE + 2)) &&
	tail -n 2 "$W/provider.log" | head -n 1 | grep -qF "body=b'{\"n\":1}' after=b'' resumed=False" &&
	tail -n 1 "$W/provider.log" | grep -qF "body=b'{\"n\":2}' after=b'' resumed=True"; then
	tap_ok "... the first made a full handshake with the provider (control), the second resumed it"
else
	tap_not_ok "... the provider saw: $(tail -n 2 "$W/provider.log" | tr '\n' ' ')"
fi
mark provider
sec -- /bin/sh -c "$(curl_p /v1/responses -d '{"n":3}')"
if wait_count provider $((BEFORE + 1)) && last_has provider "body=b'{\"n\":3}' after=b'' resumed=False"; then
	tap_ok "... a new run starts with a full handshake (a session never outlives its helper)"
else
	tap_not_ok "... a new run: the provider saw: $(tail -n 1 "$W/provider.log")"
fi

# a connection kept: its requests, one after the other, each judged on its
# own, over one connection to the provider while the provider keeps it
cat >"$W/ro/tlskeep.py" <<'EOF'
import ast, os, socket, ssl, sys, time
# each argument a request (a bytes literal) sent once the answer before it
# is read as framed; "wait:PATH": until PATH exists
ph, pp = os.environ["HTTPS_PROXY"].split("//")[1].rsplit(":", 1)
s = socket.create_connection((ph, int(pp)), timeout=10)
s.sendall(b"CONNECT api.provider.test:9443 HTTP/1.1\r\nHost: api.provider.test:9443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200"), "no tunnel"
t = ssl.create_default_context().wrap_socket(s, server_hostname="api.provider.test")
buf = b""
def fill():
    global buf
    c = t.recv(65536)
    if not c:
        raise EOFError("closed")
    buf += c
def answer():
    global buf
    while b"\r\n\r\n" not in buf:
        fill()
    head, buf = buf.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    hdr = {l.split(b":", 1)[0].lower(): l.split(b":", 1)[1].strip() for l in lines[1:]}
    if b"content-length" in hdr:
        n = int(hdr[b"content-length"])
        while len(buf) < n:
            fill()
        body, buf = buf[:n], buf[n:]
    elif hdr.get(b"transfer-encoding") == b"chunked":
        body = b""
        while True:
            while b"\r\n" not in buf:
                fill()
            size, buf = buf.split(b"\r\n", 1)
            size = int(size, 16)
            while len(buf) < size + 2:
                fill()
            body, buf = body + buf[:size], buf[size + 2:]
            if size == 0:
                break
    else:
        try:
            while True:
                fill()
        except (EOFError, OSError):
            pass
        body, buf = buf, b""
    return lines[0].split(b" ")[1].decode(), body
for arg in sys.argv[1:]:
    if arg.startswith("wait:"):
        end = time.monotonic() + 10
        while not os.path.exists(arg[5:]) and time.monotonic() < end:
            time.sleep(0.01)
        continue
    try:
        t.sendall(ast.literal_eval(arg))
        status, body = answer()
    except (EOFError, OSError):
        print("CLOSED")
        break
    print("STATUS", status, body.decode(errors="replace").strip())
EOF
keep() { sec -- "$PYTHON" "$W/ro/tlskeep.py" "$@"; }
rq() { # METHOD TARGET BODY [HEADER]: a request, as a bytes literal
	local crlf='\r\n'
	printf "b'%s %s HTTP/1.1%sHost: api.provider.test:9443%s%sContent-Length: %d%s%s%s'" \
		"$1" "$2" "$crlf" "$crlf" "${4:+$4$crlf}" "${#3}" "$crlf" "$crlf" "$3"
}
kept() { # DESC LINES...: the answers' lines, in order, each starting with its LINE
	local desc=$1 got i=0 ok=true
	shift
	mapfile -t got < <(grep -E "^(STATUS|CLOSED)" "$W/out")
	[ ${#got[@]} = $# ] || ok=false
	for want in "$@"; do
		[[ "${got[i]}" == "$want"* ]] || ok=false
		i=$((i + 1))
	done
	if $ok; then
		tap_ok "kept alive: $desc"
	else
		tap_not_ok "kept alive: $desc: got $(printf '%s|' "${got[@]}") err $(tr '\n' '|' <"$W/err")"
	fi
}
A200='{"provider":"provider","path":"/v1/responses","n":'
mark provider
keep "$(rq POST /v1/responses k1)" "$(rq POST /v1/responses k2)"
kept "two requests on one connection: both answered, on one of the provider's" \
	"STATUS 200 ${A200}1}" "STATUS 200 ${A200}2}"
if wait_count provider $((BEFORE + 2)) &&
	tail -n 2 "$W/provider.log" | head -n 1 |
	grep -qF "auth=Bearer $KEY xkey=- conn=- body=b'k1' after=b'' resumed=False n=1" &&
	last_has provider "auth=Bearer $KEY xkey=- conn=- body=b'k2' after=b'' resumed=False n=2"; then
	tap_ok "... each with the real key, the second on the provider's first connection"
else
	tap_not_ok "... the provider saw: $(tail -n 2 "$W/provider.log" | tr '\n' ' ')"
fi
kept_refused() { # WHAT REQUEST WANT: the second request refused
	mark provider
	keep "$(rq POST /v1/responses k1)" "$2" "$(rq POST /v1/responses k3)"
	kept "a second request with $1: refused, and the connection ends" \
		"STATUS 200 ${A200}1}" "$3" CLOSED
	wait_count provider $((BEFORE + 1)) >/dev/null
	BEFORE=$((BEFORE + 1))
	saw_nothing "kept alive: a second request with $1" provider
}
kept_refused "POST /v1/files (not allowed)" "$(rq POST /v1/files k2)" \
	"STATUS 403 landrun: POST /v1/files on api.provider.test:9443 is not in --allow-request"
kept_refused "another key" "$(rq POST /v1/responses k2 'Authorization: Bearer sk-attacker')" \
	"STATUS 403 landrun: a credential of the command's own (Authorization) for api.provider.test:9443, where landrun sets Authorization"
mark provider
keep "$(rq POST '/v1/responses?frame=chunked' k1)" "$(rq POST /v1/responses k2)"
kept "an answer in chunks, then the next request" "STATUS 200 ${A200}1}" "STATUS 200 ${A200}2}"
mark provider
keep "$(rq POST '/v1/responses?frame=close' k1)" "$(rq POST /v1/responses k2)"
kept "an answer to the close: the connection ends with it" "STATUS 200 ${A200}1}" CLOSED
saw "kept alive: an answer to the close" provider
BEFORE=$((BEFORE + 1))
saw_nothing "kept alive: after an answer to the close" provider
mark provider
keep "$(rq POST /v1/responses k1 'Connection: close')" "$(rq POST /v1/responses k2)"
kept "Connection: close: the command's last request" "STATUS 200 ${A200}1}" CLOSED
if wait_count provider $((BEFORE + 1)) && last_has provider "conn=close body=b'k1'"; then
	tap_ok "... and the provider's: it got Connection: close"
else
	tap_not_ok "... the provider got: $(tail -n 1 "$W/provider.log")"
fi
# the provider closes its connection between two requests (as it does an
# idle one): the next goes on a new connection, which resumes the session
rm -f "$W/ro/provider-closed-1"
mark provider
keep "$(rq POST '/v1/responses?then=close' k1)" "wait:$W/ro/provider-closed-1" \
	"$(rq POST /v1/responses k2)"
kept "the provider closed between two requests: the second on a new connection" \
	"STATUS 200 ${A200}1}" "STATUS 200 ${A200}1}"
if wait_count provider $((BEFORE + 2)) && test -e "$W/ro/provider-closed-1" &&
	last_has provider "body=b'k2' after=b'' resumed=True n=1"; then
	tap_ok "... which resumed the TLS session (the control: the first closed it)"
else
	tap_not_ok "... the provider saw: $(tail -n 2 "$W/provider.log" | tr '\n' ' ')"
fi

# a WebSocket (RFC 6455): its opening judged as WEBSOCKET (its own rule: a
# rule for GET does not allow it), then both ways as they come, bytes the
# proxy does not read: what each side sent right after the opening first,
# then a small message each way, then a large one that takes many records
cat >"$W/ro/tlsws.py" <<'EOF'
import os, socket, ssl, sys
path, auth = sys.argv[1], sys.argv[2]
ph, pp = os.environ["HTTPS_PROXY"].split("//")[1].rsplit(":", 1)
s = socket.create_connection((ph, int(pp)), timeout=10)
s.sendall(b"CONNECT api.provider.test:9443 HTTP/1.1\r\nHost: api.provider.test:9443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200"), "no tunnel"
t = ssl.create_default_context().wrap_socket(s, server_hostname="api.provider.test")
t.sendall(("GET %s HTTP/1.1\r\nHost: api.provider.test:9443\r\nUpgrade: websocket\r\n"
           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZQ==\r\n"
           "Sec-WebSocket-Version: 13\r\nAuthorization: %s\r\n\r\n" % (path, auth)).encode()
          + b"early-cmd")
got = b""
def until(want):
    global got
    while want not in got:
        chunk = t.recv(65536)
        if not chunk:
            break
        got += chunk
    return want in got
until(b"\r\n\r\n")
print("STATUS", got.split(b" ")[1].decode())
if not got.startswith(b"HTTP/1.1 101"):
    until(b"}")
    print(got.decode(errors="replace").split("\r\n\r\n")[-1].strip())
    sys.exit(0)
print("EARLY", until(b"early-up;") and until(b"echo:early-cmd;"))
t.sendall(b"ping1")
print("SMALL", until(b"echo:ping1;"))
big = os.urandom(300000)
t.sendall(big)
print("LARGE", until(big))
t.close()
EOF
WSRULE=(--allow-request 'api.provider.test:9443=WEBSOCKET /v1/ws')
mark provider
sec "${WSRULE[@]}" -- "$PYTHON" "$W/ro/tlsws.py" /v1/ws "Bearer landrun-placeholder"
assert "intercepted: a WebSocket under a WEBSOCKET rule: 101, and both ways as they come" \
	eval 'grep -qx "STATUS 101" "$W/out" && grep -qx "EARLY True" "$W/out" &&
		grep -qx "SMALL True" "$W/out" && grep -qx "LARGE True" "$W/out"'
if wait_count provider $((BEFORE + 2)) &&
	grep -qF "GET /v1/ws upgrade auth=Bearer $KEY conn=Upgrade upgrade=websocket" "$W/provider.log" &&
	last_has provider "upgraded end, 300014 bytes after the opening"; then
	tap_ok "... the provider got the opening with the real key, and every byte after it"
else
	tap_not_ok "... the provider saw: $(tail -n 2 "$W/provider.log" | tr '\n' ' ')"
fi
refused_ws() { # DESC WANT PATH AUTH
	local ws_want=$2
	mark provider
	sec "${WSRULE[@]}" -- "$PYTHON" "$W/ro/tlsws.py" "$3" "$4"
	assert "intercepted: a WebSocket $1: 403" \
		eval 'grep -qx "STATUS 403" "$W/out" && grep -qF -- "$ws_want" "$W/out"'
	saw_nothing "intercepted: a WebSocket $1" provider
}
refused_ws "where a rule allows GET only (/v1/models/*)" \
	"WEBSOCKET /v1/models/x on api.provider.test:9443 is not in --allow-request" \
	/v1/models/x "Bearer landrun-placeholder"
refused_ws "with another key" "a credential of the command's own (Authorization)" \
	/v1/ws "Bearer sk-attacker"

# the upstream's handshake is begun with the tunnel; an upstream that gives
# it up before the command's first request comes (the provider's 3 s
# timeout, here) is connected to again for it, not the request lost
cat >"$W/ro/tlsslow.py" <<'EOF'
import os, socket, ssl, sys, time
mark = sys.argv[1]
ph, pp = os.environ["HTTPS_PROXY"].split("//")[1].rsplit(":", 1)
s = socket.create_connection((ph, int(pp)), timeout=60)
s.sendall(b"CONNECT api.provider.test:9443 HTTP/1.1\r\nHost: api.provider.test:9443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200"), "no tunnel"
t = ssl.create_default_context().wrap_socket(s, server_hostname="api.provider.test")
for _ in range(600):  # until the provider gave up the proxy's handshake
    if os.path.exists(mark):
        break
    time.sleep(0.1)
print("GAVE-UP", os.path.exists(mark))
t.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: api.provider.test:9443\r\n"
          b"Content-Length: 4\r\nConnection: close\r\n\r\nslow")
got = t.makefile("rb").read()  # to the proxy's close
print("STATUS", got.split(b" ")[1].decode() if b" " in got else "none")
EOF
rm -f "$W/ro/provider-tls-error"
mark provider
sec -- "$PYTHON" "$W/ro/tlsslow.py" "$W/ro/provider-tls-error"
assert "intercepted: a first request after the upstream gave up the handshake begun for it: 200" \
	eval 'grep -qx "GAVE-UP True" "$W/out" && grep -qx "STATUS 200" "$W/out"'
if wait_count provider $((BEFORE + 1)) && last_has provider "POST /v1/responses host=api.provider.test:9443 auth=Bearer $KEY" &&
	last_has provider "body=b'slow'"; then
	tap_ok "... on a new connection, with the real key"
else
	tap_not_ok "... the provider saw: $(tail -n 1 "$W/provider.log")"
fi

# a host not intercepted still tunnels, end to end (its own certificate)
mark allowed_tls
sec -- curl -sS -m 10 --cacert "$W/ro/cert.pem" https://allowed.test:8443/not-intercepted
expect "control: a host not intercepted is a plain tunnel (its own certificate, checked by the command)" 0
saw "a plain tunnel beside an intercepted host" allowed_tls

# the upstream is verified: without the test CA in landrun's SSL_CERT_FILE,
# the provider is not trusted (502), and gets no request
mark provider
run env PROVIDER_KEY="$KEY" "$LANDRUN" "${G[@]}" "${A[@]}" "${S[@]}" --env PROVIDER_KEY -- \
	/bin/sh -c "$(curl_p /v1/responses -d '{}')"
assert "the provider's CA not trusted by landrun: 502, certificate not trusted" \
	eval 'grep -q "^HTTP 502$" "$W/out" && grep -q "certificate is not trusted" "$W/out"'
saw_nothing "an untrusted upstream" provider
mark untrusted
sec --secret-header 'untrusted.provider.test:9444=Authorization: Bearer ${PROVIDER_KEY}' -- \
	/bin/sh -c 'curl -sS -m 10 -w "\nHTTP %{http_code}\n" https://untrusted.provider.test:9444/v1/x -d "{}"'
assert "a self-signed provider: 502" out_has "^HTTP 502$"
saw_nothing "a self-signed provider" untrusted

# Node (Claude Code, OpenCode's Bun): NODE_EXTRA_CA_CERTS makes it trust the
# run's CA (a CONNECT of its own, as Node before 22.21 ignores the proxy
# variables)
if [ -n "$NODE" ]; then
	mark provider
	sec -- "$NODE" -e '
const http = require("http"), tls = require("tls");
const proxy = new URL(process.env.HTTPS_PROXY);
http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT",
               path: "api.provider.test:9443" }).on("connect", (res, socket) => {
  const s = tls.connect({ socket, servername: "api.provider.test" }, () => {
    s.write("POST /v1/responses HTTP/1.1\r\nHost: api.provider.test:9443\r\n" +
            "Authorization: Bearer " + process.env.PROVIDER_KEY + "\r\n" +
            "Content-Length: 2\r\n\r\n{}");
  });
  let body = ""; s.on("data", (d) => body += d);
  s.on("end", () => { console.log(body); process.exit(0); });
  s.on("error", (e) => { console.log("TLS", e.message); process.exit(3); });
}).on("error", (e) => { console.log(e.message); process.exit(2); }).end();
'
	expect "node: TLS to the intercepted host, trusting NODE_EXTRA_CA_CERTS" 0
	assert "... answered by the provider" out_has '"provider":"provider"'
	saw "node, intercepted" provider
	assert "... with the real key" eval 'tail -n 1 "$W/provider.log" | grep -qF "auth=Bearer $KEY "'
else
	skip "node through an intercepted host" "Node.js is not installed (Debian: nodejs)"
fi

# the audit log: the decisions, never the key
AUD=$TMP/t/audit-sec.jsonl
rm -f "$AUD"
sec --audit-log "$AUD" -- /bin/sh -c "$(curl_p /v1/responses -d '{}'); $(curl_p /v1/files -d '{}')"
assert "--audit-log: the intercepted requests' decisions are recorded" \
	eval 'grep -q "\"decision\":\"allowed\",\"request\":\"POST\",\"host\":\"api.provider.test\"" "$AUD" && grep -q "POST /v1/files on api.provider.test:9443 is not in --allow-request" "$AUD"'
assert "--audit-log: the key is not in it" eval '! grep -q "$KEY" "$AUD"'

# ---------------------------------------------------------------------------
# 7. The real OpenCode, its model behind an allowed name.

# the harness tests' library (the OpenCode configuration, waiting for a
# file), which has TAP functions and counters of its own: ours are kept
tap_state="N=$N PASSED=$PASSED FAILED=$FAILED TODOS=$TODOS; $(declare -f skip)"
. "$BIN/harness-lib.sh"
eval "$tap_state"
OC=$BIN/opencode
if [ ! -x "$OC" ]; then
	skip "OpenCode through the proxy" "OpenCode is not installed in ~/.cache/landrun-harness (the harness tests install it)"
else
	H=$TMP/t/oc-home P=$TMP/t/oc-proj
	mkdir -p "$H/.config/opencode" "$H/.config/landrun/profiles" "$P" || exit 1
	cp "$BIN/base.conf" "$BIN/opencode.conf" "$H/.config/landrun/profiles/" || exit 1
	echo '[{"name": "bash", "arguments": {"command": "echo agent-step-ran; curl -fsS -m 5 http://forbidden.test:8080/ ; echo LR-EXIT=$?", "description": "landrun egress step"}}]' >"$W/script.json"
	"$PYTHON" "$BIN/fake_model.py" --host 11.1.1.1 --script "$W/script.json" \
		--log "$W/requests.jsonl" --port-file "$W/model.port" --lifetime 200 &
	PIDS+=($!)
	lr_wait_file "$W/model.port" 10 || { echo "Bail out! the fake model did not start"; exit 1; }
	MPORT=$(cat "$W/model.port")
	lr_opencode_config "$H" "$MPORT" '"permission": { "*": "allow" }'
	# the model by its name: through the proxy
	chmod u+w "$H/.config/opencode" "$H/.config/opencode/opencode.json" &&
		sed -i "s#http://127.0.0.1:$MPORT#http://api.fake.test:$MPORT#" \
			"$H/.config/opencode/opencode.json" &&
		chmod -R a-w "$H/.config/opencode" || exit 1
	(cd "$P" && env -i PATH=/usr/bin:/bin HOME="$H" TERM=dumb LANG=C.UTF-8 \
		OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
		OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_CLAUDE_CODE=1 \
		timeout 200 "$LANDRUN" --log-level info --profile opencode \
		--allow-domain "api.fake.test:$MPORT" -- "$OC" run "Run the landrun egress test." \
		>"$W/out" 2>"$W/err")
	RC=$?
	expect "OpenCode (opencode run) with its model at api.fake.test:$MPORT" 0
	nreq=$(grep -c . "$W/requests.jsonl" 2>/dev/null || echo 0)
	if [ "$nreq" -ge 2 ] && err_has "egress: allowed POST api.fake.test:$MPORT"; then
		tap_ok "OpenCode reached its model through the proxy ($nreq requests)"
	else
		tap_not_ok "OpenCode reached its model through the proxy ($nreq requests)"
	fi
	result=$("$PYTHON" "$BIN/fake_model.py" tool-result "$W/requests.jsonl" call_1 2>/dev/null)
	if grep -q agent-step-ran <<<"$result" && grep -q 'LR-EXIT=[1-9]' <<<"$result" &&
		grep -q 'error: 403' <<<"$result" && ! grep -q 'upstream forbidden' <<<"$result"; then
		tap_ok "OpenCode's bash tool ran; its curl to forbidden.test was refused"
	else
		tap_not_ok "OpenCode's bash tool ran; its curl to forbidden.test was refused"
		printf '%s\n' "$result" | head -5 | sed 's/^/#   tool result: /'
	fi
fi

# ---------------------------------------------------------------------------
# 8. No user namespaces: the plan says net.egress-domains is lost.
#
# user.max_user_namespaces=0 in a user namespace of the test's own (a
# container's seccomp profile, AppArmor's rule and the sysctl all end in the
# same place: landrun cannot make its user namespace).  Inside, landrun runs
# without CAP_SYS_ADMIN: as nobody, or as root without it.

no_userns() { # ARGS...: run ARGS with user namespaces disabled
	local drop=(--inh-caps=-all --ambient-caps=-all)
	[ "$(id -u)" = 0 ] && drop=(--bounding-set=-sys_admin --inh-caps=-all --ambient-caps=-all)
	run unshare --user --map-user="$(id -u)" --map-group="$(id -g)" --keep-caps -- \
		/bin/sh -c 'echo 0 >/proc/sys/user/max_user_namespaces || exit 200
			exec setpriv "$@"' sh "${drop[@]}" -- "$@"
}
no_userns "$LANDRUN" "${G[@]}" --explain=json "${A[@]}" -- /bin/true
ABI=$("$TRY" abi 2>/dev/null) || ABI=0
denied_fb() { # DESC WANT SERVER ARGS
	local desc=$1 want=$2 server=$3
	shift 3
	mark "$server"
	no_userns "$LANDRUN" "${G[@]}" "$@"
	expect "$desc" "$want"
	saw_nothing "$desc" "$server"
}
if [ "$RC" = 200 ]; then
	skip "no user namespaces: the fallback" "needs user namespaces, nested (user.max_user_namespaces could not be set in one of the test's own): $(cat "$W/err")"
elif [ "$ABI" -ge 4 ]; then
	# Landlock's TCP rules: the broker connects the command to the proxy,
	# whose port is no rule of the command's
	expect "no user namespaces: --explain=json" 0
	if out_has '"id":"net.egress-domains","requested":true,"enforced":true,"layer":"broker"' &&
		out_has '"egress":{"mode":"loopback","proxy":null,"netns_errno":"ENOSPC","brokered":true}'; then
		tap_ok "no user namespaces: explain says net.egress-domains is the broker's, mode loopback (ENOSPC)"
	else
		tap_not_ok "no user namespaces: explain says net.egress-domains is the broker's, mode loopback (ENOSPC)"
	fi
	no_userns "$LANDRUN" "${G[@]}" --explain "${A[@]}" -- /bin/true
	assert "no user namespaces: explain (text) says the broker connects to the proxy" \
		out_has "mode loopback, brokered: no network namespace"
	rm -f "$W/ran"
	no_userns "$LANDRUN" "${G[@]}" --rw "$W" --on-unsupported=error "${A[@]}" -- "$TRY" create "$W/ran"
	expect "no user namespaces, --on-unsupported=error: runs (nothing is lost)" 0
	assert "... and the command ran" test -e "$W/ran"
	mark allowed
	no_userns "$LANDRUN" "${G[@]}" --on-unsupported=error "${A[@]}" -- curl -sS -m 10 \
		http://allowed.test:8080/fallback
	expect "no user namespaces: curl through the proxy, which the broker connected" 0
	assert "... the allowed server answered" out_has "path=/fallback"
	saw "brokered: allowed" allowed
	# no writable grant at all (not even G's /dev/null): a broker for the
	# connects alone
	mark allowed
	no_userns "$LANDRUN" "${G[@]:0:6}" --on-unsupported=error "${A[@]}" -- curl -sS -m 10 \
		http://allowed.test:8080/connects-only
	expect "no user namespaces, no writable grant (a broker for the connects alone): curl through the proxy" 0
	saw "brokered, no writable grant: allowed" allowed
	mark allowed
	no_userns "$LANDRUN" "${G[@]}" --rw "$W" "${A[@]}" -- curl -sS -m 10 \
		http://allowed.test:8080/brokered-too
	expect "no user namespaces, a writable grant too (its broker): curl through the proxy" 0
	saw "brokered, with a writable grant: allowed" allowed
	mark forbidden
	no_userns "$LANDRUN" "${G[@]}" "${A[@]}" -- "$PYTHON" "$W/ro/client.py" connect forbidden.test:8080
	assert "no user namespaces: CONNECT forbidden.test still refused (403)" out_has "STATUS 403"
	saw_nothing "brokered: forbidden" forbidden
	# the key held outside works the same through the broker's connects
	mark provider
	no_userns env SSL_CERT_FILE="$PCA" PROVIDER_KEY="$KEY" "$LANDRUN" "${G[@]}" \
		--on-unsupported=error "${A[@]}" "${S[@]}" --env PROVIDER_KEY -- \
		/bin/sh -c "$(curl_p /v1/responses -d '{"input":"brokered"}')"
	expect "no user namespaces: an intercepted request through the brokered connect" 0
	assert "... HTTP 200" out_has "^HTTP 200$"
	saw "brokered: intercepted" provider
	if tail -n 1 "$PLOG" | grep -qF "auth=Bearer $KEY xkey=- conn=- body=b'{\"input\":\"brokered\"}'"; then
		tap_ok "... the provider got the real key, set outside"
	else
		tap_not_ok "... the provider got: $(tail -n 1 "$PLOG")"
	fi
	denied_fb "no user namespaces: direct TCP to 11.1.1.1:8080 (Landlock: not a port of the command's)" \
		13 allowed "${A[@]}" -- "$NET" tcp-connect 11.1.1.1 8080
	# what the loopback mode without the broker leaves open: the proxy's
	# port on any other address
	no_userns "$LANDRUN" "${G[@]}" "${A[@]}" -- /bin/sh -c \
		'p=${HTTPS_PROXY##*:}; exec "$1" tcp-connect 11.2.2.2 "$p"' sh "$NET"
	expect "no user namespaces: the proxy's port on 11.2.2.2 is denied (EACCES)" 13
	no_userns "$LANDRUN" "${G[@]}" "${A[@]}" -- /bin/sh -c \
		'p=${HTTPS_PROXY##*:}; exec "$1" tcp-connect 127.0.0.2 "$p"' sh "$NET"
	expect "no user namespaces: ... and on 127.0.0.2 (EACCES)" 13
	no_userns "$LANDRUN" "${G[@]}" "${A[@]}" -- /bin/sh -c \
		'p=${HTTPS_PROXY##*:}; exec "$1" tcp-connect 127.0.0.1 "$p"' sh "$NET"
	expect "control: no user namespaces: the proxy's own address connects (the broker's)" 0
	# a second thread flips the address between the proxy's and 11.2.2.2
	# (where nothing listens: a connect that got there is refused by its
	# host, ECONNREFUSED) while the first connects, a thousand times
	no_userns "$LANDRUN" "${G[@]}" "${A[@]}" -- /bin/sh -c \
		'p=${HTTPS_PROXY##*:}; exec "$1" connect-race 127.0.0.1 11.2.2.2 "$p" 1000' sh "$NET"
	if [ "$RC" = 0 ] && grep -Eq '^good=[1-9][0-9]* refused=[1-9][0-9]* other=0$' "$W/out"; then
		tap_ok "no user namespaces: an address rewritten during connect never reaches 11.2.2.2 ($(cat "$W/out"))"
	else
		tap_not_ok "no user namespaces: an address rewritten during connect never reaches 11.2.2.2 (rc $RC: $(cat "$W/out" "$W/err" | head -3))"
	fi

	# and pidfd_getfd refused too, as Docker's and podman's default
	# profiles do without CAP_SYS_PTRACE (lr-fakeabi nopidfd): the broker
	# connects a socket of its own and puts it in the command's place
	NP=("$FAKE" nopidfd -- "$LANDRUN" "${G[@]}" --on-unsupported=error "${A[@]}")
	no_userns "${NP[@]}" --explain -- /bin/true
	expect "no user namespaces, no pidfd_getfd: --explain" 0
	assert "... says the broker connects a socket of its own" \
		out_has "mode loopback, brokered: .*pidfd_getfd is refused here"
	mark allowed
	no_userns "${NP[@]}" -- curl -sS -m 10 http://allowed.test:8080/own-socket
	expect "no user namespaces, no pidfd_getfd, --on-unsupported=error: curl (a non-blocking connect) through the proxy" 0
	assert "... the allowed server answered" out_has "path=/own-socket"
	saw "no pidfd_getfd: allowed" allowed
	mark allowed
	no_userns "${NP[@]}" -- "$PYTHON" -c 'import socket, os, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
s.connect(("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])))
s.sendall(b"GET http://allowed.test:8080/blocking HTTP/1.1\r\nHost: allowed.test:8080\r\n\r\n")
print(s.recv(4096).decode().split("\r\n")[0], s.getpeername()[0])'
	expect "no user namespaces, no pidfd_getfd: a blocking connect to the proxy" 0
	assert "... answered through it, from the proxy's address" out_has "^HTTP/1.1 200 OK 127.0.0.1$"
	saw "no pidfd_getfd: allowed (blocking)" allowed
	# non-blocking, and connect called again to learn how it ended (the
	# socket in place is the broker's: that one, not a new one)
	mark allowed
	no_userns "${NP[@]}" -- "$PYTHON" -c 'import socket, os, select
a = ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
s = socket.socket(); s.setblocking(False)
first = s.connect_ex(a); select.select([], [s], [], 10); again = s.connect_ex(a)
s.setblocking(True)
s.sendall(b"GET http://allowed.test:8080/again HTTP/1.1\r\nHost: allowed.test:8080\r\n\r\n")
print(os.strerror(first), os.strerror(again), s.recv(4096).decode().split("\r\n")[0])'
	expect "no user namespaces, no pidfd_getfd: a non-blocking connect, and connect again" 0
	assert "... EINPROGRESS or done, then connected, and answered through it" \
		out_has "^[A-Za-z ]* \(Transport endpoint is already connected\|Success\) HTTP/1.1 200 OK$"
	saw "no pidfd_getfd: allowed (connect again)" allowed
	mark forbidden
	no_userns "${NP[@]}" -- "$PYTHON" "$W/ro/client.py" connect forbidden.test:8080
	assert "no user namespaces, no pidfd_getfd: CONNECT forbidden.test refused (403)" out_has "STATUS 403"
	saw_nothing "no pidfd_getfd: forbidden" forbidden
	mark allowed
	no_userns "${NP[@]}" -- "$NET" tcp-connect 11.1.1.1 8080
	expect "no user namespaces, no pidfd_getfd: direct TCP to 11.1.1.1:8080 (EACCES)" 13
	saw_nothing "no pidfd_getfd: direct" allowed
	no_userns "${NP[@]}" -- /bin/sh -c \
		'p=${HTTPS_PROXY##*:}; exec "$1" tcp-connect 127.0.0.2 "$p"' sh "$NET"
	expect "no user namespaces, no pidfd_getfd: the proxy's port on 127.0.0.2 is denied (EACCES)" 13
	no_userns "${NP[@]}" -- /bin/sh -c \
		'p=${HTTPS_PROXY##*:}; exec "$1" connect-race 127.0.0.1 11.2.2.2 "$p" 1000' sh "$NET"
	if [ "$RC" = 0 ] && grep -Eq '^good=[1-9][0-9]* refused=[1-9][0-9]* other=0$' "$W/out"; then
		tap_ok "no user namespaces, no pidfd_getfd: an address rewritten during connect never reaches 11.2.2.2 ($(cat "$W/out"))"
	else
		tap_not_ok "no user namespaces, no pidfd_getfd: an address rewritten during connect never reaches 11.2.2.2 (rc $RC: $(cat "$W/out" "$W/err" | head -3))"
	fi
else
	expect "no user namespaces: --explain=json" 0
	if out_has '"id":"net.egress-domains","requested":true,"enforced":false,"layer":null' &&
		out_has '"egress":{"mode":"loopback","proxy":null,"netns_errno":"ENOSPC","brokered":false}'; then
		tap_ok "no user namespaces: explain says net.egress-domains is lost, mode loopback (ENOSPC)"
	else
		tap_not_ok "no user namespaces: explain says net.egress-domains is lost, mode loopback (ENOSPC)"
	fi
	no_userns "$LANDRUN" "${G[@]}" --explain "${A[@]}" -- /bin/true
	assert "no user namespaces: explain (text) says the proxy's port is reachable on any address" \
		out_has "mode loopback: NO network namespace"
	rm -f "$W/ran"
	no_userns "$LANDRUN" "${G[@]}" --rw "$W" --on-unsupported=error "${A[@]}" -- "$TRY" create "$W/ran"
	expect "no user namespaces, --on-unsupported=error: refused" 125
	assert "... naming net.egress-domains" err_has "cannot enforce net.egress-domains"
	assert "... and the command did not run" test ! -e "$W/ran"
	mark allowed
	no_userns "$LANDRUN" "${G[@]}" --on-unsupported=warn "${A[@]}" -- curl -sS -m 10 \
		http://allowed.test:8080/fallback
	expect "no user namespaces, warn: curl through the proxy on the host's loopback" 0
	assert "... the allowed server answered" out_has "path=/fallback"
	assert "... with a warning naming net.egress-domains" err_has "not enforced: net.egress-domains"
	saw "fallback: allowed" allowed
	mark forbidden
	no_userns "$LANDRUN" "${G[@]}" "${A[@]}" -- "$PYTHON" "$W/ro/client.py" connect forbidden.test:8080
	assert "no user namespaces: CONNECT forbidden.test still refused (403)" out_has "STATUS 403"
	saw_nothing "fallback: forbidden" forbidden
fi

tap_done
