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
# the exit statuses. All traffic is on the loopback. Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fake=$repo/build/tests/cumc-imex-fake
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

printf '# the domain\n127.0.0.1\n127.0.0.2  # b\n\n127.0.0.3\n127.0.0.4\n' >nodes.cfg
cat >imex.cfg <<EOF
IMEX_NODE_CONFIG_FILE=nodes.cfg
SERVER_PORT=$port
HEARTBEAT_INTERVAL_MS=100
PEER_TIMEOUT_MS=1500
EOF

# start NAME NODE [VAR=VALUE...]: node NAME's daemon, of index NODE, on
# its address; stdout (the fake kernel's lines) to NAME.out, stderr to
# NAME.err, which keep what earlier runs of NAME wrote.
start() {
	local name=$1 node=$2

	shift 2
	[ -p "$name.ctl" ] || mkfifo "$name.ctl"
	env CUMC_FAKE_NODE="$node" CUMC_FAKE_CTL="$name.ctl" "$@" \
		"$fake" -c imex.cfg -a "${addr[$name]}" >>"$name.out" 2>>"$name.err" &
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
	send_raw 127.0.0.2 127.0.0.3 "$port" "$(hdr 1 3 1 $((16384 + 1)))"
	wait_for c.err "cumc-imex: 127.0.0.2: garbage received: Message too long"
	result "a length over the largest drops it at once"
	send_raw 127.0.0.2 127.0.0.3 "$port" "$(hdr 2 1 1 16)00112233445566778899aabbccddeeff"
	wait_for c.err "cumc-imex: 127.0.0.2: refused: protocol version 2, not 1"
	result "another protocol version is refused"
	send_raw 127.0.0.2 127.0.0.3 "$port" "$(hdr 1 2 0 0)"
	wait_for c.err "cumc-imex: 127.0.0.2: a PING before HELLO"
	result "a PING before HELLO drops the connection"
	send_raw 127.0.0.9 127.0.0.3 "$port" "$(hdr 1 2 0 0)"
	wait_for c.err "cumc-imex: refused a connection from 127.0.0.9: not in the node list"
	result "an address not in the node list is refused"
	send_raw 127.0.0.3 127.0.0.1 "$port" "$(hdr 1 2 0 0)"
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
wait_for a.err "cumc-imex: 127.0.0.4: refused: it says it is node 0, connected from 127.0.0.2"
result "a daemon with an index already connected is refused"
stop d
start d 5 CUMC_FAKE_CLUSTER=ffeeddccbbaa99887766554433221100
wait_for a.err "cumc-imex: 127.0.0.4: refused: cluster ffeeddcc-bbaa-9988-7766-554433221100, not this node's 00112233-4455-6677-8899-aabbccddeeff"
result "a daemon of another cluster is refused, both clusters named"
stop d
test "$(grep -c '127.0.0.4: refused: cluster' a.err)" = 1
result "refusals are logged once, not every reconnection"
test "$(grep -c 'node [0-9]* connected (' a.err)" = 4 -a \
	"$(grep -c 'node [0-9]* lost (' a.err)" = 2
result "nothing was lost or connected that should not have been"

# Failing starts. A daemon that did listen would run on: timeout ends it.
timeout 120 "$fake" -c imex.cfg -a 127.0.0.1 >other.out 2>other.err </dev/null
status=$?
test "$status" = 2 && \
	grep -q "cannot listen on 127.0.0.1 port $port: Address already in use" other.err
result "a second daemon on the same address cannot listen: exit 2"
printf '127.0.0.7\n' >alone.cfg
printf 'IMEX_NODE_CONFIG_FILE=alone.cfg\nSERVER_PORT=%s\n' $((port + 1)) >alone-imex.cfg
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
	"$fake" --version | grep -q "protocol 1"
result "--help and --version exit 0"

# This node's address from the interfaces, in a network namespace of its
# own whose loopback has 127.0.0.1 only.
if unshare -n true 2>/dev/null; then
	printf '127.0.0.5\n127.0.0.1\n' >found.cfg
	printf 'IMEX_NODE_CONFIG_FILE=found.cfg\nSERVER_PORT=%s\n' "$port" >found-imex.cfg
	printf '127.0.0.5\n127.0.0.6\n' >none.cfg
	printf 'IMEX_NODE_CONFIG_FILE=none.cfg\n' >none-imex.cfg
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
