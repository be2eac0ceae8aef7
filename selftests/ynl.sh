#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The family's YNL spec (Documentation/netlink/specs/cumc.yaml) with the
# kernel's own ynl tooling (tools/net/ynl of Debian's linux-source-6.12,
# which the Makefile extracts into build/ynl): the spec against the
# genetlink-legacy schema and against uapi/linux/cumc_netlink.h, then real
# requests to the loaded module (run as root in the VM): dumps, a fault set
# and cleared, the extack message of refusals, events through --subscribe,
# and all of it again from a network namespace of its own (netnsok).
# Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ynl=$repo/build/ynl
spec=$repo/Documentation/netlink/specs/cumc.yaml
schema=$ynl/Documentation/netlink/genetlink-legacy.yaml
cli=$ynl/tools/net/ynl/cli.py
team=$repo/build/selftests/helpers/cumc_team
ctl=$repo/build/tools/cumcctl
# Debian's python3 (python3-yaml, python3-jsonschema), which an
# unprivileged user may run too.
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

echo "TAP version 13"
[ -f "$cli" ] || tap_skip_all "no $cli (make extracts it from linux-source-6.12)"

# ynl ARGS...: cli.py with the spec (validated once, above: slow in a
# VM without KVM), JSON out, into $tmp/out.
ynl() {
	"$py" "$cli" --spec "$spec" --no-schema --output-json "$@" \
		>"$tmp/out" 2>"$tmp/err"
}

# json_true EXPR: the JSON in $tmp/out, as j, makes the Python EXPR true.
json_true() {
	"$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))' \
		"$tmp/out" "$2" 2>/dev/null || {
		echo "# $1: $(head -c 600 "$tmp/out") $(head -c 300 "$tmp/err")"
		return 1
	}
}

# The spec: valid against the schema, and naming every command and
# attribute of the UAPI header with its value.
"$py" - "$ynl/tools/net/ynl" "$spec" "$schema" \
	"$repo/uapi/linux/cumc_netlink.h" >"$tmp/spec.log" 2>&1 <<'EOF'
import re, sys
sys.path.insert(0, sys.argv[1])
from lib.nlspec import SpecFamily

family = SpecFamily(sys.argv[2], sys.argv[3])
header = open(sys.argv[4]).read()

def uapi(enum, prefix):
    body = re.search(r'enum %s \{(.*?)\};' % enum, header, re.S).group(1)
    names = re.findall(r'^\s*(%s\w+)' % prefix, body, re.M)
    return [n[len(prefix):].lower().replace('_', '-') for n in names
            if not n.startswith('__') and not n.endswith('_MAX')]

def check(what, want, got):
    if want != got:
        sys.exit('%s: header %s, spec %s' % (what, want, got))

check('commands', uapi('cumc_nl_cmd', 'CUMC_CMD_'),
      [m.name for m in family.msgs.values()])
check('command values', list(range(len(family.msgs))),
      [m.value for m in family.msgs.values()])
for aset, enum, prefix in (('cumc', 'cumc_nl_attr', 'CUMC_A_'),
                           ('member', 'cumc_nl_member_attr', 'CUMC_MEMBER_A_'),
                           ('bind', 'cumc_nl_bind_attr', 'CUMC_BIND_A_')):
    attrs = family.attr_sets[aset].attrs
    check(aset, uapi(enum, prefix), list(attrs))
    check(aset + ' values', list(range(len(attrs))),
          [a.value for a in attrs.values()])
EOF
tap_result $? "spec: valid against genetlink-legacy.yaml, matches cumc_netlink.h" ||
	sed 's/^/# /' "$tmp/spec.log"

if [ "$(id -u)" != 0 ] || [ ! -e /dev/cumc ]; then
	tap_skip "requests to the module" "needs root and the module loaded (run it with scripts/vm-run)"
	tap_end
	exit
fi

num_devices=$(cat /sys/module/cumc/parameters/num_devices)
num_devices=$((num_devices + $(ls /sys/bus/pci/drivers/cumc 2>/dev/null | grep -c :)))

# driver MODE [PREFIX...]: the requests, through the ynl library in one
# Python process (each start reads the spec: slow in the VM), run under
# PREFIX. MODE admin: reads, a fault set and cleared, and the extack of
# refusals; netns: the same from a namespace of its own, and the IMEX
# daemon's commands refused there; unprivileged: reads work, changes are
# refused with the reason. Its "ok NAME"/"not ok NAME" lines become TAP.
driver() {
	local mode=$1 line
	shift
	"$@" "$py" - "$ynl/tools/net/ynl" "$spec" "$mode" "$num_devices" \
		>"$tmp/driver" 2>&1 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily, NlError

mode, num_devices = sys.argv[3], int(sys.argv[4])
ynl = YnlFamily(sys.argv[2], '')
suffix = {'admin': '', 'netns': ' (own netns)'}.get(mode, ' (%s)' % mode)

def result(name, ok, diag=''):
    print('%s %s%s' % ('ok' if ok else 'not ok', name, suffix))
    if not ok:
        print('# %s' % diag)

def check(name, fn, test):
    try:
        got = fn()
    except Exception as e:
        return result(name, False, repr(e))
    try:
        ok = test(got)
    except Exception as e:
        ok = False
    result(name, ok, repr(got)[:600])

def refused(name, errno_, msg, op, attrs):
    try:
        got = ynl.do(op, attrs)
    except NlError as e:
        text = (e.nl_msg.extack or {}).get('msg', '')
        return result(name, e.error == errno_ and msg in text,
                      'errno %d, extack %r' % (e.error, e.nl_msg.extack))
    result(name, False, 'accepted: %r' % (got,))

import errno
devs = lambda: ynl.dump('dev-get', {})
check('dev-get dump lists every device', devs,
      lambda j: sorted(d['dev-ordinal'] for d in j) == list(range(num_devices))
      and all('dev-name' in d and 'dev-uuid' in d for d in j))
check('stats-get dump: each device, then the fabric',
      lambda: ynl.dump('stats-get', {}),
      lambda j: len(j) == num_devices + 1
      and sum('dev-ordinal' not in s for s in j) == 1
      and all('stat-binds' in s for s in j))
check('fm-get', lambda: ynl.do('fm-get', {}),
      lambda j: j['fm-mode'] in ('kernel', 'external') and j['fm-timeout-ms'] > 0)
check('fabric-get', lambda: ynl.do('fabric-get', {}),
      lambda j: 'fabric-state' in j)

arm = {'fault-type': 'mem-exhausted', 'fault-mode': 'every-nth',
       'fault-value': 3, 'dev-ordinal': 1}
if mode in ('admin', 'netns'):
    ynl.do('fault-set', arm)
    check('fault-set arms a fault, fault-get shows it',
          lambda: ynl.dump('fault-get', {}),
          lambda j: [f for f in j if f.get('dev-ordinal') == 1
                     and f['fault-type'] == 'mem-exhausted'
                     and f['fault-mode'] == 'every-nth'
                     and f['fault-value'] == 3])
    ynl.do('fault-set', {'fault-type': 'mem-exhausted', 'fault-mode': 'off',
                         'dev-ordinal': 1})
    check('fault-set mode off clears it', lambda: ynl.dump('fault-get', {}),
          lambda j: not [f for f in j if f.get('dev-ordinal') == 1])
else:
    for op, attrs in (('fault-set', arm), ('fm-set', {'fm-timeout-ms': 100}),
                      ('fm-respond', {'fm-req-id': 1, 'fm-result': 'ok'})):
        refused('extack: %s refused' % op, errno.EPERM,
                'needs CAP_NET_ADMIN in the initial user namespace', op, attrs)

if mode == 'admin':
    node = ynl.do('fabric-get', {})['fabric-node']
    for name, err, msg, op, attrs in (
        ('every-nth without N', errno.EINVAL, 'every-nth needs',
         'fault-set', {'fault-type': 'bind-no-resources', 'fault-mode': 'every-nth'}),
        ('probability over 100', errno.EINVAL, '1 to 100',
         'fault-set', {'fault-type': 'bind-no-resources',
                       'fault-mode': 'probability', 'fault-value': 101}),
        ('no such device', errno.ENODEV, 'no device of that ordinal',
         'fault-set', {'fault-type': 'bind-no-resources', 'fault-mode': 'once',
                       'dev-ordinal': 127}),
        ('missing fault-mode', errno.EINVAL, 'needs fault-type and fault-mode',
         'fault-set', {'fault-type': 'bind-no-resources'}),
        ('fm-respond to no request', errno.ENOENT, 'no team setup request',
         'fm-respond', {'fm-req-id': 999999, 'fm-result': 'ok'}),
        ('imex-call-respond to no call', errno.ENOENT, 'no IMEX call',
         'imex-call-respond', {'imex-req-id': 999999, 'imex-result': 0}),
        ('a node cannot lose itself', errno.EINVAL, 'cannot lose itself',
         'imex-node-lost', {'imex-node': node}),
        # The policy's own refusal carries the netlink core's message.
        ('the policy range check', errno.ERANGE, 'out of range',
         'fm-set', {'fm-timeout-ms': 0})):
        refused('extack: ' + name, err, msg, op, attrs)
if mode == 'netns':
    refused('extack: imex-attach refused', errno.EPERM,
            'initial network namespace only', 'imex-attach', {})
EOF
	grep -q '^ok \|^not ok ' "$tmp/driver" ||
		{ tap_not_ok "driver $mode ran"; sed 's/^/# /' "$tmp/driver" | tail -n 20; return; }
	while read -r line; do
		case "$line" in
		"ok "*) tap_ok "${line#ok }" ;;
		"not ok "*) tap_not_ok "${line#not ok }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$tmp/driver"
}

# monitor PREFIX...: subscribe to the monitor group as cli.py --subscribe
# does (YnlFamily.ntf_subscribe), under PREFIX (a namespace); once
# subscribed, run a team's life; the events it heard, as JSON, in $tmp/out.
monitor() {
	rm -f "$tmp/ready"
	"$@" "$py" - "$ynl/tools/net/ynl" "$spec" "" "$tmp/ready" \
		>"$tmp/out" 2>"$tmp/err" <<'EOF' &
import json, sys, time
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily

ynl = YnlFamily(sys.argv[2], sys.argv[3])
ynl.ntf_subscribe('monitor')
open(sys.argv[4], 'w').close()
deadline = time.time() + 30
while time.time() < deadline and len(ynl.async_msg_queue) < 5:
    ynl.check_ntf()
    time.sleep(0.05)
print(json.dumps([{'name': m['name'], 'msg': m['msg']}
                  for m in ynl.async_msg_queue]))
EOF
	local pid=$! i
	for i in $(seq 300); do
		[ -e "$tmp/ready" ] && break
		sleep 0.1
	done
	"$team" >/dev/null 2>&1
	wait "$pid"
}

# events IN PREFIX...: a team's events in order, monitored under PREFIX.
events() {
	local in=$1
	shift
	monitor "$@"
	json_true "events" "[m['name'] for m in j] == ['mc-create-ntf', 'team-ready-ntf', 'bind-ntf', 'unbind-ntf', 'mc-delete-ntf'] and j[2]['msg']['dev-ordinal'] == 0"
	tap_result $? "monitor: a team's events in order$in"
}

# The CLI itself, as a user types it: a dump, and a refusal's reason.
ynl --dump dev-get &&
	json_true "cli.py dev-get" "sorted(d['dev-ordinal'] for d in j) == list(range($num_devices))"
tap_result $? "cli.py --dump dev-get"
if ynl --do fault-set --json '{"fault-type": "bind-no-resources", "fault-mode": "every-nth"}'; then
	tap_not_ok "cli.py prints the extack message of a refusal"
else
	grep -q "'msg': 'mode every-nth needs a fault-value" "$tmp/out"
	tap_result $? "cli.py prints the extack message of a refusal" ||
		echo "# $(tr '\n' ' ' <"$tmp/out")"
fi

driver admin
events "" env

# cli.py --subscribe itself: once subscribed it sleeps 5 s, then prints
# what came; a team lives each second until it is done.
"$py" "$cli" --spec "$spec" --no-schema --output-json --subscribe monitor \
	--sleep 5 >"$tmp/out" 2>"$tmp/err" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	"$team" >/dev/null 2>&1
	sleep 1
done
wait "$pid"
json_true "cli.py --subscribe" "'mc-create-ntf team-ready-ntf bind-ntf unbind-ntf mc-delete-ntf' in ' '.join(m['name'] for m in j)"
tap_result $? "cli.py --subscribe monitor prints a team's events"
driver unprivileged setpriv --reuid=65534 --regid=65534 --clear-groups

# A network namespace of its own, as a container has.
if ! unshare -n true 2>/dev/null; then
	tap_skip "network namespaces" "unshare -n failed"
	tap_end
	exit
fi
driver netns unshare -n
events " (own netns)" unshare -n
# scripts/vm-run's guest runs chrooted into the host's root, where the
# kernel refuses a new user namespace (EPERM): this one skips there.
if unshare -U -r -n true 2>"$tmp/err"; then
	driver userns unshare -U -r -n
else
	tap_skip "a user namespace's root may not change state" \
		"unshare -U -r -n failed: $(tr '\n' ' ' <"$tmp/err")"
fi
if [ -x "$ctl" ]; then
	unshare -n "$ctl" dev >"$tmp/out" 2>&1
	tap_result $? "cumcctl dev in its own netns" || echo "# $(tr '\n' ' ' <"$tmp/out")"
fi
echo "# took $SECONDS s"
tap_end
