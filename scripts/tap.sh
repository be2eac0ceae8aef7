# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP for the shell tests: source it ('. "$top/scripts/tap.sh"'), report
# each test with tap_result, tap_ok, tap_not_ok, tap_check or tap_skip, and
# end with tap_end (the plan after the tests) or tap_plan N before them and
# tap_status at the end. The tests run inside the VM too, where the host's
# root and so this file are visible read-only.

tap_n=0
tap_failed=0

# tap_ok NAME, tap_not_ok NAME: the next test passed, or failed.
tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1"
}

tap_not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $1"
	return 1
}

# tap_result STATUS NAME: ok when STATUS is 0. Returns 1 when not ok, as do
# tap_not_ok and tap_check, so that a caller can add a diagnostic with ||.
tap_result() {
	if [ "$1" = 0 ]; then tap_ok "$2"; else tap_not_ok "$2"; fi
}

# tap_check NAME CMD...: ok when CMD succeeds.
tap_check() {
	local name=$1
	shift
	if "$@"; then tap_ok "$name"; else tap_not_ok "$name"; fi
}

# tap_skip NAME REASON: the next test is skipped.
tap_skip() {
	tap_ok "$1 # SKIP $2"
}

# tap_diag TITLE ITEMS: the lines of ITEMS, if any, as a diagnostic under
# TITLE: what a failing test names.
tap_diag() {
	local item

	[ -n "$2" ] || return 0
	echo "# $1"
	while read -r item; do
		echo "#   $item"
	done <<<"$2"
}

# tap_skip_all REASON: plan no test and exit 0.
tap_skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# tap_need_vm_root: skip all unless root with the module loaded (as in the
# VM scripts/vm-run boots).
tap_need_vm_root() {
	if [ "$(id -u)" != 0 ] || [ ! -e /dev/cumc ]; then
		tap_skip_all "needs root and the module loaded (run it with scripts/vm-run)"
	fi
}

# tap_json NAME FILE EXPR: a test that FILE holds JSON that makes the
# Python EXPR true, with the document as j and the file's text as text.
# FILE is kept as it is now; tap_json_results judges every one kept, in one
# python3: Python takes seconds to start under TCG.
tap_json_names=()
tap_json_specs=()
tap_json() {
	local keep

	[ -n "${tap_json_dir:-}" ] || tap_json_dir=$(mktemp -d)
	keep=$tap_json_dir/${#tap_json_names[@]}
	cp "$2" "$keep" 2>/dev/null || : >"$keep"
	tap_json_names+=("$1")
	tap_json_specs+=("$keep" "$3")
}

# tap_json_results: the results of tap_json, a test each in their order;
# a failure shows why and the document.
tap_json_results() {
	local i=0 verdict

	[ "${#tap_json_names[@]}" != 0 ] || return 0
	while IFS= read -r verdict; do
		if [ "$verdict" = ok ]; then
			tap_ok "${tap_json_names[i]}"
		else
			tap_not_ok "${tap_json_names[i]}"
			echo "# $verdict"
			sed 's/^/# /' "${tap_json_specs[2 * i]}"
		fi
		i=$((i + 1))
	done < <(python3 - "${tap_json_specs[@]}" <<'PY'
import json, sys
specs = sys.argv[1:]
for path, expr in zip(specs[::2], specs[1::2]):
    try:
        text = open(path).read()
        j = json.loads(text)
        print("ok" if eval(expr) else "false: %s" % expr)
    except Exception as e:
        print(("%s: %s" % (type(e).__name__, e)).replace("\n", " "))
PY
	)
	[ "$i" = "${#tap_json_names[@]}" ] ||
		tap_not_ok "python3 judged $i of the ${#tap_json_names[@]} JSON documents"
	rm -rf "$tap_json_dir"
	tap_json_dir=
	tap_json_names=()
	tap_json_specs=()
}

# tap_plan N: the plan, 1..N.
tap_plan() {
	echo "1..$1"
}

# tap_status: 0 when no test failed, else 1.
tap_status() {
	[ "$tap_failed" = 0 ]
}

# tap_end: the plan of the tests reported so far, then tap_status.
tap_end() {
	tap_plan "$tap_n"
	tap_status
}

# cuda_toolkit_include: the CUDA toolkit's include directory, the one of
# $CUDA_HOME, else the one next to nvcc on PATH; nothing when neither has
# a cuda.h.
cuda_toolkit_include() {
	local nvcc root

	if [ -n "${CUDA_HOME:-}" ] && [ -f "$CUDA_HOME/include/cuda.h" ]; then
		echo "$CUDA_HOME/include"
	elif nvcc=$(command -v nvcc 2>/dev/null); then
		root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
		if [ -f "$root/include/cuda.h" ]; then echo "$root/include"; fi
	fi
	return 0
}

# cuda_toolkit_stubs INCLUDE: the directory of the toolkit's -lcuda stub
# (stubs/libcuda.so) beside INCLUDE; nothing when it has none.
cuda_toolkit_stubs() {
	local d

	for d in "$1/../lib64/stubs" "$1/../lib/stubs"; do
		if [ -e "$d/libcuda.so" ]; then
			(cd "$d" && pwd)
			return 0
		fi
	done
	return 0
}

# need_cuda_toolkit_stubs: set toolkit_include and stubs, or skip all:
# the preamble of the tests that build programs against the toolkit alone.
need_cuda_toolkit_stubs() {
	toolkit_include=$(cuda_toolkit_include)
	[ -n "$toolkit_include" ] ||
		tap_skip_all "no CUDA toolkit (set CUDA_HOME or put nvcc on PATH)"
	stubs=$(cuda_toolkit_stubs "$toolkit_include")
	[ -n "$stubs" ] ||
		tap_skip_all "the toolkit at $toolkit_include/.. has no stubs/libcuda.so"
}

# need_nvcc: need_cuda_toolkit_stubs, and toolkit, its directory, when it
# has nvcc; or skip all: the preamble of the tests that build CUDA programs.
need_nvcc() {
	need_cuda_toolkit_stubs
	toolkit=$(cd "$toolkit_include/.." && pwd)
	[ -x "$toolkit/bin/nvcc" ] || tap_skip_all "no nvcc in $toolkit/bin"
}
