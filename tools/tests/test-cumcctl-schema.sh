#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/cumcctl.schema.json and its validator, selftests/json_schema.py, on
# the host: a document of each kind that cumcctl writes passes, and each of
# the mistakes the schema is there to catch (a device that is a string, a
# fabric-wide row with a device, a key of no kind, a wrong type) fails, as
# does a schema keyword the validator does not know. selftests/cumcctl.sh
# validates cumcctl's real output in the VM. Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
schema=$repo/tools/cumcctl.schema.json
validator=$repo/selftests/json_schema.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

# want STATUS NAME DEF JSON [--lines]: the validator's exit status.
want() {
	local status=$1 name=$2 def=$3 got
	printf '%s\n' "$4" >"$tmp/doc"
	python3 "$validator" "$schema" "$def" "$tmp/doc" ${5:+"$5"} 2>"$tmp/err"
	got=$?
	[ "$got" = "$status" ] || sed 's/^/# /' "$tmp/err"
	tap_result $((got != status)) "$name"
}

dev='{"device": 0, "uuid": "37f3cd9f-9f8b-4f21-96af-fa59b6f0f0f3", "name": "cumc \"H100\"", "pci_bus": 0, "mem_total": 85899345920, "mem_free": 85899345920, "backend": "pci", "lost": false, "fabric_state": "not-supported"}'
stat='"objects": 0, "bound_bytes": 0, "binds": 0, "maps": 0, "waits": 0, "faults": 0'

echo "TAP version 13"
want 0 "dev: a device" dev "[$dev]"
want 0 "dev: a GPU of a multi-node fabric" dev \
	"[${dev%\}}, \"node\": 1, \"cluster_uuid\": \"00000000-0000-0000-0000-000000000001\", \"clique_id\": 7}]"
want 1 "dev: ordinal in place of device is refused" dev "[${dev/\"device\"/\"ordinal\"}]"
want 1 "dev: a backend of no kind is refused" dev "[${dev/\"pci\"/\"gpu\"}]"
want 0 "obj: a team with its bindings" obj \
	'[{"id": 1, "team_size": 2, "length": 2097152, "state": "ready", "fm_pending": false, "members": [{"device": 0, "binds": [{"mc_offset": 0, "length": 2097152, "mem_offset": 0}]}, {"device": 1, "binds": []}]}]'
want 1 "obj: a member's device as a string is refused" obj \
	'[{"id": 1, "team_size": 1, "length": 2097152, "state": "ready", "fm_pending": false, "members": [{"device": "0", "binds": []}]}]'
want 0 "stats: a device row and the fabric row" stats \
	"[{\"scope\": \"device\", \"device\": 0, $stat}, {\"scope\": \"fabric\", $stat}]"
want 1 "stats: device \"fabric\" (the old form) is refused" stats \
	"[{\"device\": \"fabric\", $stat}]"
want 1 "stats: a fabric row with a device is refused" stats \
	"[{\"scope\": \"fabric\", \"device\": 0, $stat}]"
want 1 "stats: a device row without its device is refused" stats \
	"[{\"scope\": \"device\", $stat}]"
want 1 "stats: a counter that is negative is refused" stats \
	"[{\"scope\": \"fabric\", ${stat/\"maps\": 0/\"maps\": -1}}]"
want 0 "fault: a device fault and a fabric-wide one" fault \
	'[{"type": "mem-exhausted", "scope": "device", "device": 1, "mode": "every", "value": 3, "hits": 0}, {"type": "import-eperm", "scope": "fabric", "mode": "once", "value": 0, "hits": 0}]'
want 1 "fault: device as a string (the old form) is refused" fault \
	'[{"type": "mem-exhausted", "device": "1", "mode": "every", "value": 3, "hits": 0}]'
want 0 "fabric: a node of no fabric" fabric \
	'{"node": 0, "state": "not-supported", "cluster_uuid": null, "clique_id": null, "imex_attached": false}'
want 1 "fabric: clique_id as a string is refused" fabric \
	'{"node": 0, "state": "completed", "cluster_uuid": null, "clique_id": "3", "imex_attached": true}'
want 0 "fm: mode and timeout" fm '{"mode": "kernel", "timeout_ms": 5000}'
want 0 "event: each kind, a line each" event \
	'{"event": "mc-create", "timestamp": "2026-11-27T00:40:12.123456Z", "id": 4, "team_size": 2, "length": 2097152}
{"event": "bind", "id": 4, "device": 0, "mc_offset": 0, "length": 2097152}
{"event": "device-lost", "device": 3}
{"event": "team-setup-req", "id": 5, "req_id": 9}
{"event": "node-lost", "id": 0, "node": 6}' --lines
want 1 "event: a key of no event is refused" event '{"event": "bind", "devices": 0}' --lines
want 1 "event: a timestamp of another form is refused" event \
	'{"event": "bind", "timestamp": "1764204012.123456"}' --lines
want 2 "a file that is no JSON is an error" fm '{"mode": '
# A schema keyword the validator does not implement fails loudly.
python3 - "$schema" "$tmp/schema.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["$defs"]["fm"]["propertyNames"] = {"pattern": "^[a-z_]+$"}
json.dump(s, open(sys.argv[2], "w"))
EOF
printf '{"mode": "kernel", "timeout_ms": 1}\n' >"$tmp/doc"
python3 "$validator" "$tmp/schema.json" fm "$tmp/doc" 2>/dev/null
tap_result $(($? != 2)) "a keyword the validator does not know is an error, not a pass"
tap_end
