#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-run-tests.sh: scripts/run-tests's JUnit XML, from a
# tiny fake test set (TAP passes, failures and skips, a Check summary with a
# failure, a crash after a pass), parsed with python3's xml.etree: counts
# and names per <testsuite>, as the summary line counts them; the summary
# line and the exit status as they always were, the failed cases named
# above it; VMs (a stand-in) N at a time and beside the host tests, one
# more at a time once the host tests have ended, their output after the
# host tests', their results counted on the host. Host only; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
command -v python3 >/dev/null || tap_skip_all "needs python3"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/tap_mixed" <<'T'
#!/bin/sh
echo "TAP version 13"
echo "1..4"
echo "ok 1 first"
echo "ok 2 - second <&>"
echo "not ok 3 third # expected 1, got 2"
echo "ok 4 fourth # SKIP no device"
exit 1
T
cat >"$dir/tap_pass" <<'T'
#!/bin/sh
echo "1..1"
echo "ok 1 alone"
T
cat >"$dir/tap_skip_unnamed" <<'T'
#!/bin/sh
echo "1..1"
echo "ok 1 # SKIP no fail-nth"
T
cat >"$dir/check_like" <<'T'
#!/bin/sh
echo "Running suite(s): fake"
echo "x.c:12:F:core:test_broken:0: Assertion 'a == b' failed"
echo "66%: Checks: 3, Failures: 1, Errors: 0"
exit 1
T
cat >"$dir/crash" <<'T'
#!/bin/sh
echo "ok 1 before the crash"
exit 139
T
# A host test hands Check's TAP log file on to the programs it runs, in
# the VMs it boots too: a file in their /tmp (their own), which any of
# their users may create.
cat >"$dir/tap_log_in_tmp" <<'T'
#!/bin/sh
case $CK_TAP_LOG_FILE_NAME in
"${TMPDIR:-/tmp}"/*/*) echo "not ok 1 Check's TAP log in /tmp: $CK_TAP_LOG_FILE_NAME" ;;
"${TMPDIR:-/tmp}"/*) echo "ok 1 Check's TAP log in /tmp" ;;
*) echo "not ok 1 Check's TAP log in /tmp: $CK_TAP_LOG_FILE_NAME" ;;
esac
T
chmod +x "$dir"/*

junit=$dir/junit.xml
began=$(date -u +%Y-%m-%dT%H:%M:%S)
out=$(CUMC_JUNIT=$junit "$top/scripts/run-tests" \
	--host "$dir/tap_mixed $dir/tap_pass $dir/check_like $dir/crash $dir/tap_skip_unnamed" 2>&1)
status=$?
ended=$(date -u +%Y-%m-%dT%H:%M:%S)
tap_result $((status != 1)) "run-tests fails when a test failed (status $status)"
last=$(tail -n 1 <<<"$out")
[ "$last" = "6 passed, 3 failed, 2 skipped" ]
tap_result $? "the summary line is last and unchanged" || echo "# got '$last'"
failed=$(sed -n '/^=== failed$/,$p' <<<"$out" | sed '1d;$d')
want="$dir/tap_mixed: third: expected 1, got 2
$dir/check_like: core.test_broken: x.c:12: Assertion 'a == b' failed
$dir/crash: $dir/crash: exited with status 139"
[ "$failed" = "$want" ]
tap_result $? "each failed case by name, above the summary line" ||
	echo "# got: $(tr '\n' '|' <<<"$failed")"
grep -qx "=== JUnit XML: $junit" <<<"$out"
tap_result $? "the JUnit file's path is printed"

# suite: tests failures skipped, then its case names with their status.
got=$(python3 - "$junit" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print("total", root.get("tests"), root.get("failures"), root.get("skipped"))
for ts in root.iter("testsuite"):
    name = ts.get("name").rsplit("/", 1)[-1]
    cases = ts.findall("testcase")
    assert int(ts.get("tests")) == len(cases)
    print(name, ts.get("tests"), ts.get("failures"), ts.get("skipped"))
    for tc in cases:
        st = "fail" if tc.find("failure") is not None else \
            "skip" if tc.find("skipped") is not None else "pass"
        print(" ", st, tc.get("name").rsplit("/", 1)[-1])
PY
)
tap_result $? "the JUnit file parses" || echo "# $got"

# Each program's start, in UTC, within the run and in the order they ran.
python3 - "$junit" "$began" "$ended" <<'PY'
import sys
import xml.etree.ElementTree as ET
stamps = [ts.get("timestamp") for ts in ET.parse(sys.argv[1]).getroot().iter("testsuite")]
assert len(stamps) == 5 and None not in stamps, stamps
assert stamps == sorted(stamps), stamps
assert sys.argv[2] <= stamps[0] and stamps[-1] <= sys.argv[3], (sys.argv[2:], stamps)
PY
tap_result $? "each suite's timestamp: its start, in the run, in order"

# check NAME EXPECTED: a line of the parsed summary.
check() {
	grep -qxF -- "$2" <<<"$got"
	tap_result $? "$1" || echo "# no line '$2' in: $(tr '\n' '|' <<<"$got")"
}
check "totals match the summary line" "total 11 3 2"
check "one suite per program, TAP counts" "tap_mixed 4 1 1"
check "a passing TAP case by its name" "  pass first"
check "a TAP name with ' - ' and XML characters" "  pass second <&>"
check "a failing TAP case" "  fail third"
check "a skipped TAP case" "  skip fourth"
check "a passing program" "tap_pass 1 0 0"
check "a Check summary's counts" "check_like 3 1 0"
check "a Check failure by its tcase and test" "  fail core.test_broken"
check "a crash after a pass: the pass and the crash" "crash 2 1 0"
check "the crash is a failure named by the program" "  fail crash"
check "an unnamed skip ('ok 1 # SKIP why'): one case" "tap_skip_unnamed 1 0 1"
check "an unnamed skip is named by its number" "  skip test 1"

# A real Check program: every test by TCASE.TEST, from Check's TAP log.
cat >"$dir/ck.c" <<'C'
#include <check.h>
START_TEST(good) { ck_assert_int_eq(1, 1); } END_TEST
START_TEST(bad) { ck_assert_int_eq(1, 2); } END_TEST
int main(void)
{
	Suite *s = suite_create("fake");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, good);
	tcase_add_test(tc, bad);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
C
# shellcheck disable=SC2046 # the flags are words
if pkg-config --exists check &&
   cc -o "$dir/ck" "$dir/ck.c" $(pkg-config --cflags --libs check) 2>/dev/null; then
	CUMC_JUNIT=$junit "$top/scripts/run-tests" --host "$dir/ck" >/dev/null 2>&1
	got=$(python3 -c 'import sys, xml.etree.ElementTree as E
for tc in E.parse(sys.argv[1]).getroot().iter("testcase"):
    print(tc.get("name"), "fail" if tc.find("failure") is not None else "pass")' "$junit")
	[ "$got" = "core.good pass"$'\n'"core.bad fail" ]
	tap_result $? "a Check program's tests by name, from its TAP log" ||
		echo "# got: $(tr '\n' '|' <<<"$got")"
else
	tap_skip "a Check program's tests by name, from its TAP log" "no libcheck"
fi

# All passing: status 0, a JUnit file without failures.
out=$(CUMC_JUNIT=$junit "$top/scripts/run-tests" --host "$dir/tap_pass $dir/tap_log_in_tmp" 2>&1)
status=$?
tap_result "$status" "run-tests succeeds when everything passed" ||
	grep '^not ok' <<<"$out" | sed 's/^/# /'

[ "$(tail -n 1 <<<"$out")" = "2 passed, 0 failed" ] &&
	python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(not (r.get("tests") == "2" and r.get("failures") == "0"))' "$junit"
tap_result $? "a passing run's summary and JUnit file"

# Programs that run at once: one waits (10 s at most) for a file the
# other writes, so it passes only when both run together. The VM is a
# stand-in for scripts/vm-run that runs the command here, with spies in
# front of the tools that counting results takes: under TCG each process
# costs a fifth of a second or more, so inside a VM run-tests starts only
# the programs and tee, and the host counts.
mkdir "$dir/spy"
for tool in grep awk sed tail date mktemp rm python3; do
	printf '#!/bin/sh\necho %s >>"%s/spawned"\nexec %s "$@"\n' \
		"$tool" "$dir" "$(command -v "$tool")" >"$dir/spy/$tool"
done
cat >"$dir/vm-run" <<T
#!/bin/sh
echo "stand-in VM: \$1"
while [ "\$1" != -- ]; do shift; done
shift
PATH=$dir/spy:\$PATH exec "\$@"
T
cat >"$dir/waits" <<T
#!/bin/sh
for i in \$(seq 100); do
	[ -e "$dir/written" ] && { echo "ok 1 met"; exit 0; }
	sleep 0.1
done
echo "not ok 1 met"
T
cat >"$dir/writes" <<T
#!/bin/sh
touch "$dir/written"
echo "ok 1 wrote"
T
chmod +x "$dir/vm-run" "$dir/waits" "$dir/writes" "$dir"/spy/*
# met NAME ORDER ARGS...: run-tests with ARGS, where $dir/waits passes
# only when $dir/writes runs at the same time: both passed, and the output
# of the VMs and programs came in ORDER.
met() {
	local name=$1 want=$2 summary=${summary:-2 passed, 0 failed} out status order
	shift 2
	rm -f "$dir/written"
	out=$(CUMC_JUNIT=$junit CUMC_RUN_TESTS_VM_RUN=$dir/vm-run "$top/scripts/run-tests" "$@" 2>&1)
	status=$?
	[ "$status" = 0 ] && [ "$(tail -n 1 <<<"$out")" = "$summary" ]
	tap_result $? "$name: at once (status $status)" ||
		echo "# got: $(grep -E '^(not )?ok' <<<"$out" | tr '\n' '|')"
	order=$(grep -E '^(=== scripts|stand-in|=== /|ok 1)' <<<"$out" | tr '\n' '|')
	[ "$order" = "$want" ]
	tap_result $? "$name: each one's output whole, in order" ||
		echo "# got: $order"
}
# --vm-jobs 2: the VMs' output in the VMs' order, though the second ends
# first.
met "--vm-jobs 2, two VMs" \
	"=== scripts/vm-run first|stand-in VM: first|=== $dir/waits|ok 1 met|=== scripts/vm-run second|stand-in VM: second|=== $dir/writes|ok 1 wrote|" \
	--vm-jobs 2 --vm-args first --vm "$dir/waits" --vm-args second --vm "$dir/writes"
# The VMs start with the host tests; the host tests' output comes first.
met "a VM beside the host tests" \
	"=== $dir/waits|ok 1 met|=== scripts/vm-run lane|stand-in VM: lane|=== $dir/writes|ok 1 wrote|" \
	--host "$dir/waits" --vm-args lane --vm "$dir/writes"
# Once the host tests have ended, one VM more at a time: the second VM
# starts while the first still waits for it.
summary="3 passed, 0 failed" met "one VM more once the host tests end" \
	"=== $dir/tap_pass|ok 1 alone|=== scripts/vm-run first|stand-in VM: first|=== $dir/waits|ok 1 met|=== scripts/vm-run second|stand-in VM: second|=== $dir/writes|ok 1 wrote|" \
	--host "$dir/tap_pass" --vm-args first --vm "$dir/waits" --vm-args second --vm "$dir/writes"
[ ! -e "$dir/spawned" ]
tap_result $? "inside a VM only the programs and tee start" ||
	echo "# started: $(sort "$dir/spawned" | uniq -c | tr '\n' ' ')"
tap_end
