#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cumc-imex's daemons as a mesh, on the host, without the module: the
# daemon built with a fake kernel (tools/tests/imex_fake_kernel.c, whose
# header says what it prints and how its calls answer) runs as three nodes
# on 127.0.0.1-3 (a fourth address listed, for the daemons that must be
# refused), each told its address with -a. Calls there and back, payloads
# up to the largest, the daemon's own answers, nodes lost by a closed
# connection and by silence, reconnection, refusals, garbage on the port,
# the exit statuses. Authentication: a rogue connection from a node's
# address neither cuts the node off nor gets a call run, a daemon with
# another secret never joins, a key file others may read is refused. A
# flood of calls keeps the daemon's memory bounded. All traffic is on the
# loopback. Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fake=$repo/build/tests/cumc-imex-fake
rogue=$repo/tools/tests/imex-rogue
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

[ -x "$fake" ] || tap_skip_all "build $fake first (make tests)"
work=$(mktemp -d /tmp/test-imex-mesh.XXXXXX)
port=$((20000 + $$ % 20000))
declare -A pid addr
addr=([a]=127.0.0.1 [b]=127.0.0.2 [c]=127.0.0.3 [d]=127.0.0.4)
cleanup() {
	local n

	for n in "${!pid[@]}"; do
		kill -CONT "${pid[$n]}" 2>/dev/null
		kill -KILL "${pid[$n]}" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1

printf '# the domain\n127.0.0.1 2\n127.0.0.2 0  # b\n\n127.0.0.3 1\n127.0.0.4 3\n' >nodes.cfg
# The domain's secret; another one, for a daemon that must not join.
(umask 077; od -An -tx1 -N32 /dev/urandom >key; od -An -tx1 -N32 /dev/urandom >other.key)
cat >imex.cfg <<EOF
IMEX_NODE_CONFIG_FILE=nodes.cfg
IMEX_AUTH_SECRET_FILE=key
SERVER_PORT=$port
HEARTBEAT_INTERVAL_MS=100
PEER_TIMEOUT_MS=1500
EOF
sed 's/^IMEX_AUTH_SECRET_FILE=key/IMEX_AUTH_SECRET_FILE=other.key/' imex.cfg >other.cfg
declare -A cfg_of

# start NAME NODE [VAR=VALUE...]: node NAME's daemon, of index NODE, on
# its address; stdout (the fake kernel's lines) to NAME.out, stderr to
# NAME.err, which keep what earlier runs of NAME wrote.
start() {
	local name=$1 node=$2

	shift 2
	[ -p "$name.ctl" ] || mkfifo "$name.ctl"
	env CUMC_FAKE_NODE="$node" CUMC_FAKE_CTL="$name.ctl" "$@" \
		"$fake" -c "${cfg_of[$name]:-imex.cfg}" -a "${addr[$name]}" \
		>>"$name.out" 2>>"$name.err" &
	pid[$name]=$!
}

# ctl NAME LINE...: the fake kernel of NAME sends these IMEX_CALL_REQs.
ctl() {
	local name=$1

	shift
	printf '%s\n' "$@" >"$name.ctl"
}

# wait_for FILE TEXT [COUNT [SECONDS]]: until FILE has COUNT lines with TEXT.
# The bound ends a hang; the default is far above what a loaded host takes.
wait_for() {
	local i

	for ((i = 0; i < ${4:-120} * 10; i++)); do
		[ "$(grep -cF -- "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
		sleep 0.1
	done
	return 1
}

# result NAME: the TAP line of the last command's status; on failure,
# every log.
result() {
	local status=$? f

	tap_result "$status" "$1" && return 0
	for f in *.err *.out; do
		[ -f "$f" ] && sed "s|^|# $f: |" "$f"
	done
	return 1
}

# stop NAME [SIGNAL]: the daemon's exit status, once it exited.
stop() {
	local status

	kill "-${2:-TERM}" "${pid[$1]}"
	wait "${pid[$1]}"
	status=$?
	unset "pid[$1]"
	return $status
}

start a 2
start b 0
start c 1
wait_for a.err "cumc-imex: ready (node 2, 4 nodes in the domain)" && \
	wait_for b.err "cumc-imex: ready (node 0, 4 nodes in the domain)" && \
	wait_for c.err "cumc-imex: ready (node 1, 4 nodes in the domain)"
result "three daemons are ready, each with its node index and the domain's size"
wait_for a.err "cumc-imex: node 0 connected (127.0.0.2)" && \
	wait_for a.err "cumc-imex: node 1 connected (127.0.0.3)" && \
	wait_for b.err "cumc-imex: node 2 connected (127.0.0.1)" && \
	wait_for b.err "cumc-imex: node 1 connected (127.0.0.3)" && \
	wait_for c.err "cumc-imex: node 2 connected (127.0.0.1)" && \
	wait_for c.err "cumc-imex: node 0 connected (127.0.0.2)"
result "each says both others connected, with their addresses"

ctl a "call 7 0 1 61626364"
wait_for b.out "fake: call from 2 op 1 4:61626364" && \
	wait_for a.out "fake: respond 7 0 4:61626364"
result "a call runs on its node for the caller, and its reply comes back"
ctl a "call 8 0 1" "call 9 0 1 -"
wait_for a.out "fake: respond 8 0 none" && \
	wait_for a.out "fake: respond 9 0 0:" && \
	wait_for b.out "fake: call from 2 op 1 none" && \
	wait_for b.out "fake: call from 2 op 1 0:"
result "no payload and an empty one stay apart, both ways"
ctl a "call 10 1 2 05" "call 11 1 3"
wait_for a.out "fake: respond 10 5 none" && \
	wait_for a.out "fake: respond 11 1 none"
result "the call's result and the IMEX_CALL's own error come back as results"
ctl a "call 12 0 1 x16384" "call 13 1 4"
wait_for a.out "fake: respond 12 0 16384:sum=" && \
	wait_for a.out "fake: respond 13 0 16384:sum=" && \
	sum=$(grep -o 'call from 2 op 1 16384:sum=[0-9]*' b.out | cut -d= -f2) && \
	grep -qx "fake: respond 12 0 16384:sum=$sum" a.out && \
	grep -qx "fake: respond 13 0 16384:sum=$sum" a.out
result "the largest payload goes there and back"
ctl a "call 14 2 1" "call 15 9 1"
wait_for a.out "fake: respond 14 22 none" && \
	wait_for a.out "fake: respond 15 113 none"
result "a call to this node itself is EINVAL, to a node never seen EHOSTUNREACH"
ctl b "call 0 1 1 0a0b" "call 0 9 1" "call 16 1 1 0c"
wait_for c.out "fake: call from 0 op 1 2:0a0b" && \
	wait_for b.out "fake: respond 16 0 1:0c" && \
	! grep -q "respond 0 " b.out
result "a one-way call runs and gets no answer, nor does one to nowhere"
lines=()
for i in $(seq 100 399); do lines+=("call $i 1 1 x$((i * 50))"); done
ctl a "${lines[@]}"
# One connection, in order: the last answered, all are.
wait_for a.out "fake: respond 399 " && \
	test "$(grep -c 'fake: respond [1-3][0-9][0-9] 0 ' a.out)" = 300
result "300 calls sent at once are all answered"
# Op 5 keeps b's kernel 3 s, twice PEER_TIMEOUT_MS: b still beats.
ctl a "call 20 0 5 1e" "call 21 0 1 2c"
wait_for a.out "fake: respond 21 0 1:2c" && \
	grep -A1 -x "fake: respond 20 0 1:1e" a.out | grep -qx "fake: respond 21 0 1:2c" && \
	! grep -q "lost" a.err c.err
result "a call that keeps the kernel past the peer timeout loses no node; the next waits its turn"

# A rogue on node b's host: connections from b's address to c, which
# accepts those from addresses below its own. Nothing of them is run, and
# b stays connected.
uuid=00112233445566778899aabbccddeeff
if command -v python3 >/dev/null; then
	"$rogue" connect 127.0.0.2 127.0.0.3 "$port" 2 >rogue.out
	ctl c "call 30 0 1 3a"
	wait_for c.out "fake: respond 30 0 1:3a" && \
		! grep -q "node 0 lost" c.err b.err
	result "a connection from a node's address, silent, does not cut the node off"
	"$rogue" call 127.0.0.2 127.0.0.3 "$port" 1 0 1 "$uuid" 77 0a0b >rogue.out
	"$rogue" call 127.0.0.2 127.0.0.3 "$port" 2 0 1 "$uuid" 77 0a0b >>rogue.out
	! grep -q "got REPLY" rogue.out && ! grep -q "op 77" c.out && \
		grep -q "cumc-imex: 127.0.0.2: refused: protocol version 1, not 2" c.err && \
		grep -q "cumc-imex: 127.0.0.2: refused: a wrong proof (not this domain's secret)" c.err
	result "a rogue HELLO as node 0 then a CALL: refused, nothing run, with or without authentication"
	ctl c "call 31 0 1 3b"
	wait_for c.out "fake: respond 31 0 1:3b" && \
		! grep -q "node 0 lost" c.err b.err
	result "and node 0 is still connected"
	"$rogue" call 127.0.0.2 127.0.0.3 "$port" 2 3 1 "$uuid" 77 0a >rogue.out
	grep -q "cumc-imex: 127.0.0.2: refused: it says it is node 3, but the node list has 127.0.0.2 as node 0" c.err
	result "a HELLO of another node's index from this address is refused"
else
	for t in silent hello-call still-up index; do
		tap_skip "rogue peer: $t" "no python3"
	done
fi

# A flood of small calls from a to c, one-way and two-way, behind one that
# keeps c's kernel 3 s: c reads a's connection while fewer than 256 wait,
# its memory stays bounded, every call runs, and c serves b meanwhile.
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
before=$(hwm "${pid[c]}")
lines=("call 0 1 5 1e")
for i in $(seq 1 8000); do
	if ((i % 8)); then lines+=("call 0 1 5 00"); else lines+=("call $((1000 + i)) 1 5 00"); fi
done
ctl a "${lines[@]}"
ctl b "call 40 1 1 4a"
wait_for b.out "fake: respond 40 0 1:4a" 1 60
result "c answers another node while a floods it"
wait_for c.out "fake: call from 2 op 5" 8001 && \
	wait_for a.out "fake: respond 9000 0 1:00"
result "every one of a's 8000 calls runs, and the two-way ones are answered"
after=$(hwm "${pid[c]}")
kill -USR1 "${pid[c]}"
wait_for c.err "node 2 (127.0.0.1): connected, 0 calls queued (at most 256)" && \
	test $((after - before)) -lt 16384
result "c's memory grew by $((after - before)) KiB (under 16 MiB), at most 256 calls queued"
! grep -q "lost" a.err c.err
result "the flood lost no node"

# A node whose daemon dies.
stop b KILL
wait_for a.err "cumc-imex: node 0 lost (127.0.0.2: connection closed)" && \
	wait_for a.out "fake: lost 0" && \
	wait_for c.err "cumc-imex: node 0 lost" && \
	wait_for c.out "fake: lost 0"
result "a closed connection loses the node: logged, told to the kernel"
ctl a "call 17 0 1"
wait_for a.out "fake: respond 17 112 none"
result "a call to a lost node is EHOSTDOWN"

# Raw connections to c's port, from b's address while b is down.
send_raw() {
	python3 - "$@" <<'EOF'
import socket, sys
src, dst, port, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), bytes.fromhex(sys.argv[4])
s = socket.socket()
s.bind((src, 0))
s.connect((dst, port))
s.sendall(data)
s.settimeout(5)
try:
    while s.recv(4096):
        pass
except OSError:
    pass
EOF
}
hdr() { # VERSION TYPE FLAGS LENGTH: a header, the rest 0, in hex
	printf '434d5849%02x%02x%04x%08x%040d' "$1" "$2" "$3" "$4" 0
}
if command -v python3 >/dev/null; then
	send_raw 127.0.0.2 127.0.0.3 "$port" 474554202f20485454502f312e300d0a0d0a
	wait_for c.err "cumc-imex: 127.0.0.2: garbage received: Bad message"
	result "garbage on the port drops that connection"
	send_raw 127.0.0.2 127.0.0.3 "$port" "$(hdr 2 3 3 $((16384 + 1)))"
	wait_for c.err "cumc-imex: 127.0.0.2: garbage received: Message too long"
	result "a length over the largest drops it at once"
	send_raw 127.0.0.2 127.0.0.3 "$port" "$(hdr 3 1 1 48)$(printf '%096d' 0)"
	wait_for c.err "cumc-imex: 127.0.0.2: refused: protocol version 3, not 2"
	result "another protocol version is refused"
	send_raw 127.0.0.2 127.0.0.3 "$port" "$(hdr 2 2 2 0)$(printf '%064d' 0)"
	wait_for c.err "cumc-imex: 127.0.0.2: a PING before the handshake was done"
	result "a PING before the handshake drops the connection"
	send_raw 127.0.0.9 127.0.0.3 "$port" "$(hdr 2 2 2 0)"
	wait_for c.err "cumc-imex: refused a connection from 127.0.0.9: not in the node list"
	result "an address not in the node list is refused"
	send_raw 127.0.0.3 127.0.0.1 "$port" "$(hdr 2 2 2 0)"
	wait_for a.err "cumc-imex: refused a connection from 127.0.0.3: a higher address, this node connects to it"
	result "a higher address, which a connects to itself, is refused"
else
	for t in garbage oversized version ping-first stranger higher; do
		tap_skip "raw connection: $t" "no python3"
	done
fi
ctl a "call 18 1 1 ee"
wait_for a.out "fake: respond 18 0 1:ee" && \
	test "$(grep -c "node 2 lost" c.err)" = 0
result "c's mesh is untouched by all that"

start b 0
wait_for a.err "cumc-imex: node 0 connected (127.0.0.2)" 2 && \
	wait_for c.err "cumc-imex: node 0 connected (127.0.0.2)" 2
result "a node that comes back connects again"
wait_for a.out "fake: joined 0" 2 && wait_for c.out "fake: joined 0" 2 && \
	grep "fake: lost 0\|fake: joined 0" a.out | tail -2 | tr '\n' , | \
	grep -qx "fake: lost 0,fake: joined 0,"
result "its kernel hears it joined again (IMEX_NODE_JOIN), after it was lost"
ctl a "call 19 0 1 ab"
wait_for a.out "fake: respond 19 0 1:ab"
result "and answers calls again"

# A node that stops answering, with a call waiting on it.
kill -STOP "${pid[c]}"
ctl a "call 20 1 1 cd"
wait_for a.err "cumc-imex: node 1 lost (127.0.0.3: silent for 1" && \
	wait_for a.out "fake: lost 1" && \
	wait_for a.out "fake: respond 20 112 none"
result "a silent node is lost after PEER_TIMEOUT_MS; its waiting call gets EHOSTDOWN"
kill -CONT "${pid[c]}"
wait_for a.err "cumc-imex: node 1 connected (127.0.0.3)" 2 && \
	wait_for b.err "cumc-imex: node 1 connected (127.0.0.3)" 2
result "once it answers again it connects again"
ctl a "call 21 1 1 ef"
wait_for a.out "fake: respond 21 0 1:ef"
result "and answers calls again"

# Daemons that must be refused, on the fourth address.
start d 0
wait "${pid[d]}"
status=$?
unset "pid[d]"
test "$status" = 1 && \
	grep -qx "cumc-imex: nodes.cfg: 127.0.0.4 is node 3 in the node list, but this node's kernel says it is node 0" d.err
result "a daemon whose node index is not its address's in the node list exits: 1"
cfg_of[d]=other.cfg
start d 3
wait_for a.err "cumc-imex: 127.0.0.4: refused: a wrong proof (not this domain's secret)" && \
	wait_for d.err "cumc-imex: 127.0.0.1: refused: a wrong proof (not this domain's secret)"
result "a daemon with another secret is refused, both ways"
ctl a "call 22 3 1"
wait_for a.out "fake: respond 22 113 none" && ! grep -q "node 3 connected" a.err b.err c.err
result "and never joins: calls to it are EHOSTUNREACH"
stop d
unset "cfg_of[d]"
start d 3 CUMC_FAKE_CLUSTER=ffeeddccbbaa99887766554433221100
wait_for a.err "cumc-imex: 127.0.0.4: refused: cluster ffeeddcc-bbaa-9988-7766-554433221100, not this node's 00112233-4455-6677-8899-aabbccddeeff"
result "a daemon of another cluster is refused, both clusters named"
stop d
test "$(grep -c '127.0.0.4: refused: cluster' a.err)" = 1
result "refusals are logged once, not every reconnection"
test "$(grep -c 'node [0-9]* connected (' a.err)" = 4 -a \
	"$(grep -c 'node [0-9]* lost (' a.err)" = 2 -a \
	"$(grep -c 'fake: joined' a.out)" = 4
result "nothing was lost or connected that should not have been"

# Failing starts. A daemon that did listen would run on: timeout ends it.
timeout 120 "$fake" -c imex.cfg -a 127.0.0.1 >other.out 2>other.err </dev/null
status=$?
test "$status" = 2 && \
	grep -q "cannot listen on 127.0.0.1 port $port: Address already in use" other.err
result "a second daemon on the same address cannot listen: exit 2"
printf '127.0.0.7 0\n' >alone.cfg
printf 'IMEX_NODE_CONFIG_FILE=alone.cfg\nIMEX_AUTH_SECRET_FILE=key\nSERVER_PORT=%s\n' $((port + 1)) >alone-imex.cfg
mkfifo alone.ctl
CUMC_FAKE_NODE=0 CUMC_FAKE_CTL=alone.ctl CUMC_FAKE_ATTACH=16 \
	"$fake" -c alone-imex.cfg -a 127.0.0.7 2>other.err
status=$?
test "$status" = 2 && \
	grep -qx "cumc-imex: another IMEX daemon is attached to this node's kernel" other.err
result "another daemon attached (EBUSY): said so, exit 2"
printf 'IMEX_NODE_CONFIG_FILE=nodes.cfg\nSERVER_PORT=0\n' >bad.cfg
"$fake" -c bad.cfg 2>other.err
status=$?
test "$status" = 1 && \
	grep -qx "cumc-imex: bad.cfg:2: SERVER_PORT: '0' is not a number from 1 to 65535" other.err
result "a bad config: file and line named, exit 1"
printf 'IMEX_NODE_CONFIG_FILE=nodes.cfg\n' >bad.cfg
"$fake" -c bad.cfg 2>other.err
status=$?
test "$status" = 1 && \
	grep -qx "cumc-imex: bad.cfg: IMEX_AUTH_SECRET_FILE is not set: every daemon of a domain needs the domain's secret" other.err
result "no secret: exit 1"
cp -p key open.key
chmod 644 open.key
sed 's/^IMEX_AUTH_SECRET_FILE=key/IMEX_AUTH_SECRET_FILE=open.key/' imex.cfg >bad.cfg
"$fake" -c bad.cfg -a 127.0.0.1 2>other.err
status=$?
test "$status" = 1 && \
	grep -qx "cumc-imex: open.key: mode 0644: group or others may read or write the domain's secret: refused (chmod 600 'open.key')" other.err
result "a key file others may read: refused, exit 1"
if [ "$(id -u)" = 0 ]; then
	chmod 600 open.key
	chown 65534 open.key
	"$fake" -c bad.cfg -a 127.0.0.1 2>other.err
	status=$?
	test "$status" = 1 && \
		grep -qx "cumc-imex: open.key: owned by uid 65534, not by root: refused (chown root 'open.key')" other.err
	result "a key file not root's: refused, exit 1"
else
	tap_skip "a key file not root's" "not root"
fi
"$fake" -c imex.cfg -a 127.0.0.8 2>other.err
status=$?
test "$status" = 1 && \
	grep -qx "cumc-imex: nodes.cfg: 127.0.0.8 is not one of its addresses" other.err
result "an address not in the node list: exit 1"
"$fake" 2>other.err
status=$?
test "$status" = 1 && \
	grep -q "^usage: cumc-imex -c CONFIG" other.err
result "no config: the usage, exit 1"
"$fake" --help >/dev/null && \
	"$fake" --version | grep -q "protocol 2"
result "--help and --version exit 0"

# This node's address from the interfaces, in a network namespace of its
# own whose loopback has 127.0.0.1 only.
if unshare -n true 2>/dev/null; then
	printf '127.0.0.5 0\n127.0.0.1 3\n' >found.cfg
	printf 'IMEX_NODE_CONFIG_FILE=found.cfg\nIMEX_AUTH_SECRET_FILE=key\nSERVER_PORT=%s\n' "$port" >found-imex.cfg
	printf '127.0.0.5 0\n127.0.0.6 1\n' >none.cfg
	printf 'IMEX_NODE_CONFIG_FILE=none.cfg\nIMEX_AUTH_SECRET_FILE=key\n' >none-imex.cfg
	# shellcheck disable=SC2016 # expanded by the inner shell
	CUMC_FAKE_NODE=3 CUMC_FAKE_CTL=alone.ctl unshare -n bash -c \
		"$(declare -f wait_for)"'
		 ip link set lo up; "$0" -c found-imex.cfg 2>found.err &
		 wait_for found.err "cumc-imex: ready ("; kill $!; wait $!
		 echo "status $?" >>found.err; "$0" -c none-imex.cfg 2>none.err; echo "status $?" >>none.err' \
		"$fake"
	grep -qx "cumc-imex: ready (node 3, 2 nodes in the domain)" found.err && \
		grep -qx "status 0" found.err
	result "without -a, the listed address this host has is found"
	grep -qx "cumc-imex: none.cfg: none of its 2 addresses is an address of this host" none.err && \
		grep -qx "status 1" none.err
	result "none of the list on this host: said so, exit 1"
else
	tap_skip "the address found from the interfaces" "unshare -n not permitted"
	tap_skip "none of the list on this host" "unshare -n not permitted"
fi

stop a
sa=$?
stop b
sb=$?
stop c INT
sc=$?
test "$sa$sb$sc" = 000 && \
	grep -q "cumc-imex: stopping" a.err && \
	grep -q "cumc-imex: stopping" c.err
result "SIGTERM and SIGINT stop the daemons: exit 0, 'stopping'"
tap_end
