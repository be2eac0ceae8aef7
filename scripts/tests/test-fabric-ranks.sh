#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-fabric-ranks.sh: scripts/fabric-run as a job launcher
# (--procs-per-node, --user, --env, a clean environment), and NCCL's MNNVL
# decision on its ranks (build/tests/mnnvl_check). Two runs of 2 nodes with
# their IMEX daemons, 4 processes per node as nobody, each rank saying its
# uid and variables, then what NCCL decides and whether an import of a
# fabric handle from the other node works: first one IMEX domain, with a
# stray CUMC_IMEX_CHANNEL on the host, a variable given with --env and one
# rank exiting 7; then one domain per node with another MASTER_PORT; then
# an NVLink partition and a domain per node, with one GPU and rank each;
# last, 2 ranks in one VM of scripts/vm-run, outside any fabric. Runs on
# the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

dir=$(mktemp -d "$top/build/fabric-ranks.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# Each rank, in the guest: its identity on one line, then mnnvl_check;
# the rank --env names exits 7 after that. Unset variables print "unset".
# shellcheck disable=SC2016 # expanded in the guest
rank_cmd='echo "env uid=$(id -u) RANK=$RANK WORLD_SIZE=$WORLD_SIZE LOCAL_RANK=$LOCAL_RANK LOCAL_WORLD_SIZE=$LOCAL_WORLD_SIZE MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT node=$CUMC_NODE stray=${CUMC_TEST_STRAY-unset} channel=${CUMC_IMEX_CHANNEL-unset} given=${FR_GIVEN-unset}"
build/tests/mnnvl_check || exit
[ "$RANK" != "${FR_FAIL_RANK-}" ] || exit 7'

# run NAME ENV... -- ARGS...: fabric-run ARGS from the repository (where
# rank_cmd finds the program) with the host variables ENV, its output in
# NAME.log, its status in NAME.status.
run() {
	local name=$1 start status=0 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	start=$(date +%s)
	(cd "$top" && env ${envs[@]+"${envs[@]}"} timeout -k 10 1200 \
		scripts/fabric-run --nodes 2 --procs-per-node 4 --user nobody \
		--timeout 1100 "$@" -- sh -c "$rank_cmd" \
		>"$dir/$name.log" 2>&1) || status=$?
	echo "$status" >"$dir/$name.status"
	echo "# $name: $(($(date +%s) - start)) s, status $status"
}

# says NAME R TEXT: rank R's line TEXT is in run NAME's output, once, with
# its node's prefix and its own.
says() {
	[ "$(grep -cxF "node $(($2 / 4)): rank $2: $3" "$dir/$1.log")" = 1 ]
}

# every_rank NAME TEXT: says NAME R TEXT for each rank R of 0-7, with
# {r} in TEXT replaced by R, {k} by its node, {l} by its local rank and
# {p} by the rank it imports from (the same local rank, other node).
every_rank() {
	local r text
	for r in 0 1 2 3 4 5 6 7; do
		text=${2//\{r\}/$r}
		text=${text//\{k\}/$((r / 4))}
		text=${text//\{l\}/$((r % 4))}
		text=${text//\{p\}/$(((r + 4) % 8))}
		says "$1" "$r" "$text" || { echo "# rank $r did not say: $text"; return 1; }
	done
}

# why NAME: run NAME's output, for a failed test.
why() {
	grep -E 'rank [0-9]+: |status|fabric-node|vm-run' "$dir/$1.log" | head -n 60 | sed 's/^/# /'
}

echo "TAP version 13"
if ! [ -x "$top/build/tests/mnnvl_check" ] || ! [ -x "$top/build/tools/cumc-imex" ]; then
	tap_skip_all "no build/tests/mnnvl_check or build/tools/cumc-imex (run make)"
fi

# ---- One IMEX domain. ----
run one CUMC_IMEX_CHANNEL=99 CUMC_TEST_STRAY=leaked -- \
	--env FR_GIVEN=yes --env FR_FAIL_RANK=6
every_rank one 'env uid=65534 RANK={r} WORLD_SIZE=8 LOCAL_RANK={l} LOCAL_WORLD_SIZE=4 MASTER_ADDR=10.77.0.1 MASTER_PORT=29500 node={k} stray=unset channel=unset given=yes' &&
	[ "$(grep -c ': env uid=' "$dir/one.log")" = 8 ]
tap_result $? "8 ranks as nobody, each with its RANK, LOCAL_RANK and node, WORLD_SIZE 8, LOCAL_WORLD_SIZE 4, MASTER_ADDR 10.77.0.1, MASTER_PORT 29500" ||
	why one
! grep -qE ': env .*(stray|channel)=[^u]' "$dir/one.log" && grep -q ': env .*stray=unset' "$dir/one.log"
tap_result $? "the host's CUMC_IMEX_CHANNEL=99 and CUMC_TEST_STRAY reach no rank"
[ "$(grep -c ': env .* given=yes$' "$dir/one.log")" = 8 ]
tap_result $? "--env FR_GIVEN=yes reaches every rank"
[ "$(cat "$dir/one.status")" = 7 ] && grep -qx 'node 0: status 0' "$dir/one.log" &&
	grep -qx 'node 1: status 7' "$dir/one.log" &&
	grep -qx 'node 1: fabric-node: rank 6 exited 7' "$dir/one.log" &&
	[ "$(grep -c 'fabric-node: rank [0-9]* exited' "$dir/one.log")" = 1 ]
tap_result $? "rank 6 exiting 7 fails node 1 and the run with 7, node 0 passes (status $(cat "$dir/one.status"))" ||
	grep -E '^node [01]: (status|fabric-node)' "$dir/one.log" | sed 's/^/# /'
cluster=$(sed -n 's/^node 0: rank 0: fabric info: .* cluster \([0-9a-f-]*\) .*/\1/p' "$dir/one.log")
[ -n "$cluster" ] && [ "$cluster" != 00000000-0000-0000-0000-000000000000 ] &&
	every_rank one "fabric info: Success, state 3 status 0 cluster $cluster clique 1"
tap_result $? "each rank's GPU: NVML fabric info COMPLETED (3), status success, one cluster ($cluster), clique 1" ||
	why one
every_rank one 'MNNVL cliqueId 1 cliqueSize 8 cliqueRank {r}'
tap_result $? "one IMEX domain: NCCL's rule says MNNVL on every rank, a clique of 8, the self-test passing" ||
	why one
every_rank one 'import from rank {p}: CUDA_SUCCESS'
tap_result $? "one IMEX domain: each rank imports a fabric handle of the other node's rank" ||
	why one

# ---- One IMEX domain per node: NVML cannot tell, the daemons can. ----
run two -- --domain 0 --domain 1 --master-port 29555
[ "$(cat "$dir/two.status")" = 0 ] &&
	every_rank two 'env uid=65534 RANK={r} WORLD_SIZE=8 LOCAL_RANK={l} LOCAL_WORLD_SIZE=4 MASTER_ADDR=10.77.0.1 MASTER_PORT=29555 node={k} stray=unset channel=unset given=unset'
tap_result $? "--master-port 29555 reaches every rank; the first run's --env does not; every rank passes (status $(cat "$dir/two.status"))" ||
	why two
every_rank two 'MNNVL cliqueId 1 cliqueSize 8 cliqueRank {r}'
tap_result $? "a domain per node: NCCL's rule still says MNNVL (one cluster, one clique: NVML knows no IMEX domain)" ||
	why two
every_rank two 'import from rank {p}: CUDA_ERROR_INVALID_HANDLE'
tap_result $? "a domain per node: the import from the other node is CUDA_ERROR_INVALID_HANDLE, what NCCL would meet next" ||
	why two

# ---- Two NVLink partitions, a domain each, one GPU and rank per node:
# each node's GPU is the only one of its clique, which NVML tells. ----
run parts -- --partition 0 --partition 1 --domain 0 --domain 1 \
	--gpus-per-node 1 --procs-per-node 1
said=0
for k in 0 1; do
	if grep -qx "node $k: fabric info: Success, state 3 status 0 cluster [0-9a-f-]* clique $((k + 1))" "$dir/parts.log" &&
	   grep -qx "node $k: not MNNVL: no other rank in this rank's clique" "$dir/parts.log"; then
		said=$((said + 1))
	fi
done
[ "$(cat "$dir/parts.status")" = 0 ] && [ "$said" = 2 ]
tap_result $? "a partition and a domain per node: cliques 1 and 2, NCCL's rule says not MNNVL on both ranks (status $(cat "$dir/parts.status"))" ||
	why parts
grep -qx 'node 0: import from rank 1: CUDA_ERROR_INVALID_HANDLE' "$dir/parts.log" &&
	grep -qx 'node 1: import from rank 0: CUDA_ERROR_INVALID_HANDLE' "$dir/parts.log"
tap_result $? "a partition per node: neither node can import the other's fabric handle" ||
	why parts

# ---- No fabric: one VM of scripts/vm-run, whose GPUs are in no NVLink
# domain (NVML: NOT_SUPPORTED, as on an H200 board); 2 ranks on it. ----
# shellcheck disable=SC2016 # expanded in the guest
(cd "$top" && timeout -k 10 600 scripts/vm-run --timeout 500 -- sh -c '
	x=$(mktemp -d) && export CUMC_FABRIC_XCHG=$x WORLD_SIZE=2 LOCAL_WORLD_SIZE=2
	RANK=0 LOCAL_RANK=0 build/tests/mnnvl_check >"$x/out0" 2>&1 & p0=$!
	RANK=1 LOCAL_RANK=1 build/tests/mnnvl_check >"$x/out1" 2>&1 & p1=$!
	wait $p0; s0=$?; wait $p1; s1=$?
	sed "s/^/rank 0: /" "$x/out0"; sed "s/^/rank 1: /" "$x/out1"
	[ "$s0$s1" = 00 ]') >"$dir/none.log" 2>&1
status=$?
[ "$status" = 0 ] &&
	grep -qx 'rank 0: not MNNVL: a rank.s fabric state is not COMPLETED' "$dir/none.log" &&
	grep -qx 'rank 1: not MNNVL: a rank.s fabric state is not COMPLETED' "$dir/none.log" &&
	[ "$(grep -c 'fabric info: Success, state 0 status 0 cluster 00000000-0000-0000-0000-000000000000 clique 0$' "$dir/none.log")" = 2 ]
tap_result $? "no fabric (one VM): NVML's fabric state NOT_SUPPORTED, NCCL's rule says not MNNVL on both ranks (status $status)" ||
	grep -E '^rank|vm-run' "$dir/none.log" | sed 's/^/# /'
tap_end
