# SPDX-License-Identifier: GPL-2.0
#
# make            the module, libcumc (shared and static), its pkg-config
#                 file and the tests
# make demo       the demo: a multicast all-reduce against a ring in the VM,
#                 report and plot in build/demo/; NODES=2: across 2 node
#                 VMs of one fabric, 4 GPUs each
# make check      build, run the host unit tests, then the selftests inside
#                 the VM on PCI devices and again on system-memory ones,
#                 then on the debug kernel (CHECK_DEBUG=0: not); ends with
#                 'N passed, N failed'; the system-memory VM also runs the
#                 old tests of COMPAT_REV (the compat lane)
# make compat-check  the compat lane alone: the tests of COMPAT_REV, built
#                 from its sources, against the current module and libcumc
# make lint       checkpatch and sparse over kmod/
# make fuzz       the ioctl fuzzer in the VM for FUZZ_CALLS calls, then
#                 trinity for TRINITY_CALLS
# make check-debug  the VM tests on a debug kernel (KASAN, lockdep, kmemleak,
#                 fail-nth) built once by scripts/debug-kernel; DEBUG_TESTS="PROGS"
#                 runs only those; make check-fail-nth: fail-nth alone
# make check-kcsan  the selftests on the data-race detector's kernel (KCSAN,
#                 lockdep), built once by scripts/debug-kernel --kcsan
#
# KDIR selects the kernel headers the module builds against: by default those
# of the Debian kernel scripts/vm-run boots.

KVER ?= $(shell scripts/vm-kernel 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
O := build

VERSION := 1.2.0
SOVERSION := 1

CC ?= cc
OBJCOPY ?= objcopy
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Iinclude/cumc -Iuapi
# The kselftest harness is built the kernel's way: -Wall, not -Wextra.
# Selftests share lib/tests/{fdpass,objects,probe}.h with the library's tests.
SELFTEST_CFLAGS := -std=gnu11 -Wall -Werror -D_GNU_SOURCE -Iuapi -Ilib/tests
SELFTEST_HEADERS := selftests/cumc_selftest.h lib/tests/fdpass.h \
	lib/tests/objects.h lib/tests/probe.h lib/tests/unplug.h

LIB_SRCS := $(wildcard lib/*.c)
LIB_HDRS := $(wildcard lib/*.h include/cumc/*.h uapi/linux/*.h)
LIB_OBJS := $(LIB_SRCS:lib/%.c=$(O)/lib/%.o)
# The table of entry points (Documentation/api.md, "The table of entry
# points") and what scripts/entry-table makes of it: the version script, the
# names the implementations take, and the X-macro lists of entry_points.h.
ENTRY_TABLE := lib/entry_points.table
LIB_MAP := $(O)/lib/libcumc.map
ENTRY_H := $(O)/lib/entry_points.h
# libcumc-ptx (ptx/): the PTX loader and executor, a static archive of
# position-independent objects that libcumc links in (Documentation/ptx.md).
PTX_SRCS := $(wildcard ptx/*.c)
PTX_OBJS := $(PTX_SRCS:ptx/%.c=$(O)/ptx/%.o)
PTX_A := $(O)/libcumc-ptx.a
LIB_SO := $(O)/libcumc.so.$(VERSION)
LIB_A := $(O)/libcumc.a

# Check tests: HOST ones need no device; VM ones run where /dev/cumc is.
CHECK_HOST_TESTS := test_version test_error test_device_attr test_procaddr
CHECK_HOST_TESTS += test_multimem_ops test_imex_config test_imex_wire
CHECK_HOST_TESTS += test_imex_auth
# PTX parsing and execution on the host (ptx/tests).
CHECK_HOST_TESTS += test_ptx
# The PTX corpus on libcumc-ptx against the answers of an H200
# (conformance/ptx, Documentation/ptx.md).
CHECK_HOST_TESTS += test_ptx_corpus test_ptx_corpus_interp test_ptx_corpus_tcg
# libcumc-ptx where libLLVM cannot be opened: the interpreter runs all.
CHECK_HOST_TESTS += test_ptx_nollvm
CHECK_VM_TESTS := test_init test_device test_context test_memory test_share
CHECK_VM_TESTS += test_va test_pointer test_copy test_vmm_samples
# Arrays, 2D and 3D copies, 2D sets (issue 34, family arrays).
CHECK_VM_TESTS += test_array
CHECK_VM_TESTS += test_multimem test_multimem_team test_faults
# Plain and host allocation, peer access, context flags, device code (branch alloc).
CHECK_VM_TESTS += test_alloc test_peer
# Streams, events, stream memory operations.
CHECK_VM_TESTS += test_stream test_event test_stream_ptds
# Stream-ordered allocator: memory pools
CHECK_VM_TESTS += test_mempool
# Graphs and stream capture.
CHECK_VM_TESTS += test_graph
# Device code: PTX modules and kernel launches (ptx/).
CHECK_VM_TESTS += test_module test_ptx_multimem test_link
# CUMC_LOG (lib/log.h): the host test loads build/cuda/libcuda.so.1 too.
CHECK_HOST_TESTS += test_log
CHECK_VM_TESTS += test_log_vm
# NVML (nvml/, build/cuda/libnvidia-ml.so.1) beside the driver API.
CHECK_VM_TESTS += test_nvml
# Green contexts, checkpoint, coredump, cuLogs*, profiler; NVRTC on libcumc.
CHECK_VM_TESTS += test_breadth test_nvrtc
# The CUDA runtime's export tables (Documentation/runtime.md): the hash of
# its integrity check on the host, the tables in the VM.
CHECK_HOST_TESTS += test_integrity
CHECK_VM_TESTS += test_export_tables
# Managed memory, legacy IPC and the driver API's odds and ends (issue 34).
CHECK_VM_TESTS += test_managed test_ipc
# Run on every node of a multi-node fabric (scripts/tests/test-multinode.sh).
CHECK_NODE_TESTS := test_multinode
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
# JSON (cumcctl's -j, the benchmarks' --json, the demo's figures) goes
# through json-c.
JSON_CFLAGS = $(shell pkg-config --cflags json-c 2>/dev/null)
JSON_LIBS = $(shell pkg-config --libs json-c 2>/dev/null)

# The GPU-loss tests lose GPUs for good: they run last in their VM.
# cumc_bus loses system-memory GPUs it adds itself: it runs last in the
# system-memory VM too.
SELFTESTS := $(filter-out cumc_unplug cumc_bus,$(patsubst selftests/%.c,%,$(wildcard selftests/*.c)))
UNPLUG_TESTS := $(O)/selftests/cumc_unplug $(O)/tests/test_unplug \
	$(O)/tests/test_nvml_unplug $(O)/selftests/cumc_bus
KSFT_DIR := $(O)/kselftest
KSFT_HEADERS := $(KSFT_DIR)/kselftest_harness.h $(KSFT_DIR)/kselftest.h
# 6.1's, the kernel the VM boots (scripts/deps installs it; 6.12's is for ynl).
LINUX_SOURCE = $(wildcard /usr/src/linux-source-6.1.tar.xz)
LINUX_SOURCE_TOP = $(patsubst %.tar.xz,%,$(notdir $(LINUX_SOURCE)))

all: kmod lib tests tools

deps:
	@scripts/deps

kmod:
	@test -e $(KDIR)/Makefile || { echo "no kernel headers at KDIR=$(KDIR) (run scripts/deps)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod CUMC_VERSION=$(VERSION) CUMC_WERROR=y modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/kmod CUMC_WERROR=y modules

lib: $(LIB_SO) $(O)/cuda/libcuda.so.1 $(LIB_A) $(O)/libcumc.pc

# The objects of lib/*.c call the entry points they define by the names
# $(O)/lib/impl.syms gives them; the exported names are entry_points.o's
# functions, which CUMC_LOG logs through (lib/log.h), and which it hands
# cuGetProcAddress: that object alone keeps the exported names. Every
# object may include lib/entry.h, and through it $(ENTRY_H).
LIB_RENAME = --redefine-syms=$(O)/lib/impl.syms
$(O)/lib/entry_points.o: LIB_RENAME :=

$(O)/lib/%.o: lib/%.c $(LIB_HDRS) ptx/cumc_ptx.h $(O)/lib/impl.syms $(ENTRY_H) | $(O)/lib
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Iptx -I$(O)/lib -fPIC -c -o $@.tmp $<
	$(OBJCOPY) $(LIB_RENAME) $@.tmp $@
	rm $@.tmp

$(O)/lib/impl.syms: $(ENTRY_TABLE) scripts/entry-table | $(O)/lib
	scripts/entry-table syms $(ENTRY_TABLE) >$@.tmp
	mv $@.tmp $@

$(LIB_MAP): $(ENTRY_TABLE) scripts/entry-table | $(O)/lib
	scripts/entry-table map $(ENTRY_TABLE) >$@.tmp
	mv $@.tmp $@

$(ENTRY_H): $(ENTRY_TABLE) scripts/entry-table | $(O)/lib
	scripts/entry-table header $(ENTRY_TABLE) >$@.tmp
	mv $@.tmp $@

# The data path's loops are written to be vectorised.
$(O)/lib/multimem_ops.o: CFLAGS += -O3

$(LIB_SO): $(LIB_OBJS) $(PTX_A) $(LIB_MAP)
	$(CC) -shared -Wl,-soname,libcumc.so.$(SOVERSION) \
		-Wl,--version-script=$(LIB_MAP) -Wl,-z,defs $(LDFLAGS) \
		-o $@ $(LIB_OBJS) $(PTX_A) -lpthread -lm -ldl
	ln -sf libcumc.so.$(VERSION) $(O)/libcumc.so.$(SOVERSION)
	ln -sf libcumc.so.$(SOVERSION) $(O)/libcumc.so

# libcuda.so.1, the name the toolkit's -lcuda and loaders ask for, in a
# directory of its own: only who puts it on the library path (scripts/vm-run
# does) gets libcumc for NVIDIA's driver.
$(O)/cuda/libcuda.so.1: $(LIB_SO)
	mkdir -p $(O)/cuda
	ln -sf ../libcumc.so.$(SOVERSION) $@

# libnvidia-ml.so.1: NVML answered from /dev/cumc and the control plane
# (nvml/, Documentation/nvml.md), beside libcuda.so.1 and for the same
# reason: only who puts build/cuda on the library path gets it. Built on
# include/cumc/nvml.h, not NVIDIA's header, which only its ABI test needs.
NVML_SO := $(O)/cuda/libnvidia-ml.so.1
NVML_SRCS := $(wildcard nvml/*.c) tools/cumc_nl.c
$(NVML_SO): $(NVML_SRCS) $(wildcard nvml/*.h) nvml/nvml.map include/cumc/nvml.h \
		tools/cumc_nl.h uapi/linux/cumc.h uapi/linux/cumc_netlink.h
	mkdir -p $(O)/cuda
	$(CC) $(BASE_CFLAGS) $(NL_CFLAGS) $(CFLAGS) -DNVML_NO_UNVERSIONED_FUNC_DEFS \
		-DCUMC_VERSION='"$(VERSION)"' -Itools -fPIC -shared \
		-Wl,-soname,libnvidia-ml.so.1 -Wl,--version-script=nvml/nvml.map \
		-Wl,-z,defs $(LDFLAGS) -o $@ $(NVML_SRCS) $(NL_LIBS) -lpthread
lib: $(NVML_SO)

# The static library carries libcumc-ptx's objects: one archive to link.
$(LIB_A): $(LIB_OBJS) $(PTX_OBJS)
	rm -f $@
	ar rcs $@ $^

# Floating point under the PTX rounding modes: no folding across fesetround.
$(O)/ptx/%.o: ptx/%.c $(wildcard ptx/*.h) | $(O)/ptx
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -frounding-math -fPIC -c -o $@ $<

# The translator's files include LLVM's C API headers (llvm-14-dev); jit.c
# loads libLLVM itself at run time: nothing links against it.
LLVM_CONFIG ?= llvm-config-14
PTX_LLVM_OBJS := $(patsubst %,$(O)/ptx/%.o,jit jit_cache jit_forms \
	jit_translate jit_warp)
$(PTX_LLVM_OBJS): private BASE_CFLAGS += -I$(shell $(LLVM_CONFIG) --includedir)

$(PTX_A): $(PTX_OBJS)
	rm -f $@
	ar rcs $@ $^

$(O)/tests/test_ptx: ptx/tests/test_ptx.c $(PTX_A) \
		$(O)/tests/librelfatbin.so | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -Iptx \
		-DPTX_TEST_DATA='"$(CURDIR)/ptx/tests/data"' \
		-DRELFATBIN_LIB='"$(CURDIR)/$(O)/tests/librelfatbin.so"' \
		-o $@ $< $(PTX_A) $(CHECK_LIBS) -lpthread -lm -ldl

# A library with relocatable device code as nvcc -rdc leaves one.
$(O)/tests/librelfatbin.so: ptx/tests/relfatbin.c | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fPIC -shared -o $@ $<

# libcumc-ptx's sources built in, with an LLVM library name no machine has.
$(O)/tests/test_ptx_nollvm: ptx/tests/test_ptx_nollvm.c $(PTX_SRCS) \
		$(wildcard ptx/*.h) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -Iptx \
		-I$(shell $(LLVM_CONFIG) --includedir) -frounding-math \
		-DPTX_JIT_LIBRARY='"libLLVM-missing.so.1"' \
		-DPTX_TEST_DATA='"$(CURDIR)/ptx/tests/data"' -o $@ $< \
		$(PTX_SRCS) $(CHECK_LIBS) -lpthread -lm -ldl

# The corpus three times: compiled where the JIT covers a kernel
# (test_ptx_corpus), all interpreted (test_ptx_corpus_interp), and compiled
# as for the VM's CPU (test_ptx_corpus_tcg), each against the answers.
$(O)/tests/test_ptx_corpus_interp: CORPUS_DEFS := -DCORPUS_INTERPRETED
$(O)/tests/test_ptx_corpus_tcg: CORPUS_DEFS := -DCORPUS_TCG_TARGET
$(O)/tests/test_ptx_corpus $(O)/tests/test_ptx_corpus_interp \
		$(O)/tests/test_ptx_corpus_tcg: \
		conformance/ptx/corpus.c conformance/ptx/run_cumc.c \
		conformance/ptx/corpus.h $(PTX_A) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Iptx -DCORPUS_CHECK $(CORPUS_DEFS) \
		-DCORPUS_DIR='"$(CURDIR)/conformance/ptx"' -o $@ \
		conformance/ptx/corpus.c conformance/ptx/run_cumc.c $(PTX_A) \
		-lpthread -lm -ldl

$(O)/libcumc.pc: lib/libcumc.pc.in | $(O)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< >$@

tests: $(CHECK_HOST_TESTS:%=$(O)/tests/%) $(CHECK_VM_TESTS:%=$(O)/tests/%) \
	$(CHECK_NODE_TESTS:%=$(O)/tests/%) \
	$(SELFTESTS:%=$(O)/selftests/%) $(UNPLUG_TESTS) vm-run-test-module

# Linked statically: unit tests reach the library's internal functions too.
$(O)/tests/%: lib/tests/%.c $(wildcard lib/tests/*.h) $(LIB_A) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(TEST_DEFS) $(CHECK_CFLAGS) -Ilib -I$(O)/lib -Ilib/tests \
		-o $@ $< $(LIB_A) $(CHECK_LIBS) -lpthread -lm -ldl

$(O)/tests/test_log $(O)/tests/test_log_vm: $(O)/cuda/libcuda.so.1

# Inherited by prerequisites like any target variable: only test rules use it.
$(O)/tests/test_module $(O)/tests/test_ptx_multimem $(O)/tests/test_link \
$(O)/tests/test_vmm_samples $(O)/tests/test_graph $(O)/tests/test_export_tables: \
	TEST_DEFS := -DPTX_TEST_DATA='"$(CURDIR)/ptx/tests/data"'
# The names the CUDA runtime asked NVIDIA's driver for (Documentation/runtime.md).
$(O)/tests/test_procaddr: TEST_DEFS := \
	-DRUNTIME_LOG='"$(CURDIR)/conformance/export_tables/580.159.04-runtime-shared.log"'

# A per-thread default stream program, linked against the shared library
# as a toolkit-built one is against libcuda: the _ptds/_ptsz names must be
# exported.
$(O)/tests/test_stream_ptds: lib/tests/test_stream_ptds.c $(wildcard lib/tests/*.h) \
		$(LIB_SO) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) \
		-DCUDA_API_PER_THREAD_DEFAULT_STREAM -Ilib -Ilib/tests -o $@ $< \
		-L$(O) -lcumc -Wl,-rpath,$(CURDIR)/$(O) $(CHECK_LIBS) -lpthread

$(O)/selftests/%: selftests/%.c $(SELFTEST_HEADERS) $(KSFT_HEADERS) \
		uapi/linux/cumc.h | $(O)/selftests
	$(CC) $(SELFTEST_CFLAGS) $(CFLAGS) -I$(KSFT_DIR) -o $@ $< -lpthread

# The harness comes from Debian's linux-source package, extracted once.
$(KSFT_HEADERS) &:
	@test -n "$(LINUX_SOURCE)" || { echo "no linux-source tarball (run scripts/deps)"; exit 1; }
	mkdir -p $(KSFT_DIR)
	tar -xf $(LINUX_SOURCE) -I 'xz -T0' --occurrence=1 --strip-components=4 \
		-C $(KSFT_DIR) \
		$(patsubst %,$(LINUX_SOURCE_TOP)/tools/testing/selftests/%, \
			kselftest_harness.h kselftest.h)
	touch $(KSFT_HEADERS)

# The kernel's ynl tooling (tools/net/ynl) and the netlink spec schemas
# came after 6.1: selftests/ynl.sh takes them from Debian's
# linux-source-6.12, extracted once into build/ynl.
YNL_SOURCE := /usr/src/linux-source-6.12.tar.xz
YNL_TOP := linux-source-6.12
YNL_STAMP := $(O)/ynl/.extracted
tests: $(YNL_STAMP)
$(YNL_STAMP):
	@test -f $(YNL_SOURCE) || { echo "no $(YNL_SOURCE) (run scripts/deps)"; exit 1; }
	mkdir -p $(O)/ynl
	tar -xf $(YNL_SOURCE) -I 'xz -T0' --strip-components=1 -C $(O)/ynl \
		$(YNL_TOP)/tools/net/ynl/cli.py $(YNL_TOP)/tools/net/ynl/lib \
		$(patsubst %,$(YNL_TOP)/Documentation/netlink/%.yaml, \
			genetlink genetlink-c genetlink-legacy)
	touch $@

vm-run-test-module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/vm-run modules

$(O) $(O)/lib $(O)/ptx $(O)/tests $(O)/selftests:
	mkdir -p $@

# make check's VMs, one after the other beside the host tests, two at a
# time once they have ended (--vm-jobs 2 from the start is slower on 2
# cores: see Documentation/testing.md): the suite on PCI devices (vm-run's
# default), ending with the GPU-loss tests, which lose GPUs for the rest of the boot;
# the debug lane (see check-debug) unless CHECK_DEBUG=0; the suite again
# on the system-memory backend (--gpus 0), with the compat lane; the
# fail-nth and KCSAN lanes (check-fail-nth, check-kcsan) unless
# CHECK_DEBUG=0; NCCL's. The debug lanes add 4-14 minutes, and about 12
# more the first time, when scripts/debug-kernel builds their two kernels.
# The debug lane, the longest, comes second: third, it started as the host
# tests ended and ran alone its last 3 minutes, the other lanes done. It
# runs slower beside them: one fresh run each way, 43 min 44 s second and
# 43 min 2 s third (Documentation/testing.md).
CHECK_DEBUG ?= 1
# NCCL's all-reduce (lib/tests/abi/nccl.sh) in a VM of its own, last: its
# 129 MB of PTX parse into 1.7 GB, more than the other VMs' 2 GiB leave.
NCCL_VM_MEM := 4096
# Check stops a test after 4 s unless its case says otherwise: under KASAN,
# TCG and a loaded host that failed tests that were only slow. Timeouts are
# there to end hangs: 60 s by default, and every limit 10 times longer on
# the debug kernels.
CHECK_TIMEOUTS = CK_DEFAULT_TIMEOUT=60 CK_TIMEOUT_MULTIPLIER=$(if $(filter-out 0,$(CHECK_DEBUG)),10,1)
VM_TESTS = $(SELFTESTS:%=$(O)/selftests/%) $(CHECK_VM_TESTS:%=$(O)/tests/%)
# The compat lane: the selftests and VM library tests of COMPAT_REV, built
# from its own sources by scripts/compat-build into $(O)/compat, run in make
# check's system-memory VM (they predate PCI devices: they count devices by
# num_devices) against the current module and libcumc. COMPAT_REV is the last
# commit before the module and library were restructured (files split,
# functions renamed, the UAPI extended size-first): binaries built from it
# must keep working. It needs the history: not a shallow clone.
COMPAT_REV := 96f91fe58ccedc6a27024ab3b3561ff578b91dc8
COMPAT_VM_TESTS = $$(cat $(O)/compat/vm-tests)
DEBUG_VM_ARGS = --kernel $$(ls $$dir/vmlinuz-*) --module $(DEBUG_KMOD)/kmod/cumc.ko
KCSAN_VM_ARGS = --kernel $$(ls $$kcsan/vmlinuz-*) --module $(KCSAN_KMOD)/kmod/cumc.ko
# Both debug kernels' directories (built by check-builds: here, the cache's).
DEBUG_DIRS = dir=$$(scripts/debug-kernel) && kcsan=$$(scripts/debug-kernel --kcsan) &&
# make check's builds, as one make of as many jobs as cores unless given -j:
# the tree, the compat lane's, the cuda-python environment and both debug
# kernels with their modules. A kernel's build leaves a core idle while it
# unpacks, configures and links; the other builds fill it.
CHECK_BUILDS = all compat-build check-python-env \
	$(if $(filter-out 0,$(CHECK_DEBUG)),debug-kmod kcsan-kmod)
BUILD_JOBS = $(if $(findstring --jobserver,$(MAKEFLAGS)),,-j$(shell nproc))
check:
	@scripts/deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) $(CHECK_BUILDS)
	@$(if $(filter-out 0,$(CHECK_DEBUG)),$(DEBUG_DIRS)) \
	$(CHECK_TIMEOUTS) scripts/run-tests \
		--host "$(CHECK_HOST_TESTS:%=$(O)/tests/%) lib/tests/abi/abi_check.sh \
			lib/tests/abi/nvml_abi.sh \
			lib/tests/abi/api_doc.sh lib/tests/abi/runtime_build.sh \
			lib/tests/abi/samples_build.sh lib/tests/abi/nccl_build.sh \
			conformance/errors/check.sh \
			selftests/vm-run/test-vm-run.sh scripts/tests/test-kvm-probe.sh \
			scripts/tests/test-imex-channel-names.sh scripts/tests/test-dkms.sh \
			scripts/tests/test-deb-build.sh scripts/tests/test-kmod-calls.sh \
			scripts/tests/test-lib-calls.sh scripts/tests/test-entry-table.sh \
			scripts/tests/test-pci-probe.sh scripts/tests/test-fabric-run.sh \
			scripts/tests/test-fabric-ranks.sh scripts/tests/test-vm-control.py \
			scripts/tests/test-fabric-supervise.py \
			scripts/tests/test-multinode.sh scripts/tests/test-run-tests.sh \
			tools/tests/test-imex-mesh.sh tools/tests/test-allreduce-nodes.sh \
			tools/tests/test-cumcctl-schema.sh \
			$(if $(filter-out 0,$(CHECK_DEBUG)),$(DEBUG_HOST_TESTS))" \
		--vm "$(VM_TESTS) lib/tests/abi/conformance.sh lib/tests/abi/libcuda.sh \
			lib/tests/abi/nvrtc.sh lib/tests/abi/every_entry_point.sh \
			lib/tests/python/cuda_python.sh conformance/check.sh \
			lib/tests/abi/samples.sh \
			lib/tests/abi/runtime.sh \
			scripts/tests/test-install.sh \
			tools/tests/test-allreduce.sh tools/tests/test-bench-json.sh \
			selftests/cumcctl.sh \
			selftests/cumcctl-batch.sh selftests/trinity.sh \
			selftests/ynl.sh selftests/cumc_trace.sh selftests/cumc_wire.sh \
			scripts/tests/test-modprobe-conf.sh $(UNPLUG_TESTS)" \
		$(if $(filter-out 0,$(CHECK_DEBUG)),--vm-args "$(DEBUG_VM_ARGS)" --vm "$(DEBUG_LANE_TESTS)") \
		--vm-args "--gpus 0" --vm "$(VM_TESTS) $(COMPAT_VM_TESTS) \
			$(O)/selftests/cumc_bus" \
		$(if $(filter-out 0,$(CHECK_DEBUG)),$(DEBUG_FAIL_NTH) \
			--vm-args "$(KCSAN_VM_ARGS)" --vm "$(KCSAN_VM_TESTS)") \
		--vm-args "--mem $(NCCL_VM_MEM)" --vm lib/tests/abi/nccl.sh

# The host unit tests alone, no VM and no device: what the Debian package's
# build runs (debian/rules, unless DEB_BUILD_OPTIONS=nocheck).
check-host: $(CHECK_HOST_TESTS:%=$(O)/tests/%)
	@scripts/run-tests --host "$(CHECK_HOST_TESTS:%=$(O)/tests/%)"

# The VM suite on PCI devices alone, from a source tree without git history,
# network or CUDA toolkit (no compat lane, cuda-python, ABI checks or debug
# kernel): the Debian package's autopkgtest (debian/tests/vm-suite).
CHECK_VM_SMALL = $(VM_TESTS) selftests/cumcctl.sh selftests/cumcctl-batch.sh \
	scripts/tests/test-install.sh scripts/tests/test-modprobe-conf.sh \
	selftests/cumc_wire.sh $(UNPLUG_TESTS)
check-vm:
	@scripts/deps
	@$(MAKE) --no-print-directory all
	@CK_DEFAULT_TIMEOUT=60 scripts/run-tests --vm "$(CHECK_VM_SMALL)"

.PHONY: check-host check-vm

# The virtual environment with cuda-python (pinned, from PyPI) that
# lib/tests/python/cuda_python.sh runs in the VM: scripts/python-env.
python-env:
	@scripts/python-env

check-python-env:
	@scripts/python-env >/dev/null || \
		echo "make check: no cuda-python environment: lib/tests/python/cuda_python.sh will fail" >&2

.PHONY: python-env check-python-env

# The compat lane alone: its build, then one VM running only its programs.
compat-build: lib $(KSFT_HEADERS)
	scripts/compat-build $(COMPAT_REV)

compat-check:
	@scripts/deps
	@$(MAKE) --no-print-directory kmod compat-build
	@scripts/run-tests --vm-args "--gpus 0" --vm "$(COMPAT_VM_TESTS)"

.PHONY: compat-build compat-check

# Benchmarks (bench/): figures, never a pass or fail. The data path runs
# natively too; everything that needs the module runs in one VM boot, with
# 72 PCI GPUs of 80 GiB (an NVL72 rack, for the team sizes) and 8 devices
# backed by system memory after them, which bench_backend compares with the
# PCI ones; then bench_fabric runs on both nodes of a 2-node fabric
# (scripts/fabric-run), fabric handles imported and mapped across nodes
# beside the same on one node, then cumc-allreduce across both nodes, beside
# its run on 8 GPUs of the first VM; see Documentation/performance.md.
BENCHES := bench_va bench_multimem bench_control bench_scaling bench_backend
BENCHES += bench_fabric
# Streams: a round trip through a stream's worker (bench_stream).
BENCHES += bench_stream
# Device code: compiled and interpreted kernels against C (bench_ptx).
BENCHES += bench_ptx
# Launching a kernel, in null system calls (bench_launch; also built
# against NVIDIA's driver: Documentation/performance.md says how).
BENCHES += bench_launch
# The multimem all-reduce kernel against the cumcMultimem* calls (the VM).
BENCHES += bench_mm_kernel
# Built with everything else: make check runs them short, for their JSON
# (tools/tests/test-bench-json.sh).
bench-progs: $(BENCHES:%=$(O)/bench/%)
all: bench-progs
.PHONY: bench-progs
BENCH_VM_PARAMS := --gpus 72 num_devices=8
# Under TCG, glibc's memcpy above a few KiB is rep movsb, which the emulator
# runs about ten times slower than the vector loop below it: keep the loop,
# for our stores and the memcpy baseline alike.
TCG_MEMCPY := GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295
# The all-reduce, on one node and across two, as 'make demo' runs it.
BENCH_ALLREDUCE := --sweep 64k:4M --ring -i 5 -w 1
bench: $(BENCHES:%=$(O)/bench/%) $(O)/tools/cumc-imex $(O)/tools/cumc-allreduce
	@scripts/deps
	$(O)/bench/bench_multimem --json $(O)/bench/bench_multimem-native.json
	$(O)/bench/bench_ptx --json $(O)/bench/bench_ptx.json
	scripts/vm-run $(BENCH_VM_PARAMS) -- sh -c '$(O)/bench/bench_va && \
		$(O)/bench/bench_control --json $(O)/bench/bench_control.json && \
		$(O)/bench/bench_scaling --json $(O)/bench/bench_scaling.json && \
		$(O)/bench/bench_stream --json $(O)/bench/bench_stream.json && \
		$(O)/bench/bench_launch --json $(O)/bench/bench_launch.json && \
		env $(TCG_MEMCPY) $(O)/bench/bench_multimem --device-only \
			--quick --max-bytes 4194304 \
			--json $(O)/bench/bench_multimem-vm.json && \
		env $(TCG_MEMCPY) $(O)/bench/bench_backend \
			--json $(O)/bench/bench_backend.json && \
		env $(TCG_MEMCPY) $(O)/bench/bench_mm_kernel \
			--json $(O)/bench/bench_mm_kernel.json && \
		env $(TCG_MEMCPY) $(O)/tools/cumc-allreduce $(BENCH_ALLREDUCE) \
			-n 8 --json $(O)/bench/allreduce-1node.json'
	scripts/fabric-run --nodes 2 --procs-per-node 1 -- sh -c 'env $(TCG_MEMCPY) \
		$(O)/bench/bench_fabric --json $(O)/bench/bench_fabric.json && \
		env $(TCG_MEMCPY) $(O)/tools/cumc-allreduce $(BENCH_ALLREDUCE) \
			--nodes 2 -n 8 --root 10.77.0.1 \
			--json $(O)/bench/allreduce-2nodes.json'
	bench/allreduce-nodes.sh $(O)/bench/allreduce-1node.json \
		$(O)/bench/allreduce-2nodes.json
	bench/plot.sh $(O)/bench

# Built like the data path's loops, so that baselines and ours compare fairly.
$(O)/bench/%: bench/%.c bench/bench.h bench/bench_json.h lib/tests/unplug.h $(LIB_A) | $(O)/bench
	$(CC) $(BASE_CFLAGS) $(JSON_CFLAGS) $(CFLAGS) -O3 -Ilib -o $@ $< \
		$(LIB_A) -lpthread -lm -ldl $(JSON_LIBS)

$(O)/bench/bench_ptx: private BASE_CFLAGS += -Iptx

# The kernel of cumc-allreduce --kernel, built in as the tool has it.
$(O)/bench/bench_mm_kernel: bench/bench_mm_kernel.c bench/bench.h \
		bench/bench_json.h $(O)/tools/allreduce_kernel_ptx.c $(LIB_A) | $(O)/bench
	$(CC) $(BASE_CFLAGS) $(JSON_CFLAGS) $(CFLAGS) -O3 -Ilib -o $@ $< \
		$(O)/tools/allreduce_kernel_ptx.c $(LIB_A) -lpthread -lm -ldl \
		$(JSON_LIBS)

$(O)/bench:
	mkdir -p $@

.PHONY: bench

# tools/: programs on libcumc's public API. 'make demo', the README's first
# command: an all-reduce over the multicast fabric against a unicast ring,
# 8 devices in the VM, with a report and a plot in build/demo/.
TOOLS := cumc-allreduce
tools: $(TOOLS:%=$(O)/tools/%)

$(TOOLS:%=$(O)/tools/%): $(O)/tools/%: tools/%.c $(LIB_A) include/cumc/cuda.h \
		include/cumc/cumc.h | $(O)/tools
	$(CC) $(BASE_CFLAGS) $(JSON_CFLAGS) $(CFLAGS) \
		-DCUMC_VERSION='"$(VERSION)"' -o $@ $(filter %.c,$^) $(LIB_A) \
		-lpthread -lm -ldl $(JSON_LIBS)

# cumc-allreduce --kernel: the PTX of tools/allreduce_kernel.cu (checked
# in, with the nvcc command in the .cu) built into the tool as a C string.
$(O)/tools/cumc-allreduce: $(O)/tools/allreduce_kernel_ptx.c
$(O)/tools/allreduce_kernel_ptx.c: tools/allreduce_kernel.ptx | $(O)/tools
	{ echo 'const char cumc_allreduce_ptx[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $<; \
	  echo ';'; } >$@.tmp
	mv $@.tmp $@

$(O)/tools:
	mkdir -p $@

# NODES=N: the same across N node VMs of one fabric, 4 GPUs each
# (Documentation/multinode.md).
NODES ?= 1
demo:
	@scripts/deps
	@$(MAKE) --no-print-directory all
	@NODES=$(NODES) tools/demo.sh

.PHONY: tools demo

# The control plane's programs (libnl-3): cumcctl; cumc-fm, the external
# fabric manager; cumc-imex, the IMEX daemon of a node of a multi-node
# fabric; and the netlink selftest, the one selftest that needs libnl.
NL_CFLAGS = $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS = $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)
CTL_TOOLS := cumcctl cumc-fm cumc-imex
all: ctl-tools
ctl-tools: $(CTL_TOOLS:%=$(O)/tools/%)

$(CTL_TOOLS:%=$(O)/tools/%): $(O)/tools/%: tools/%.c uapi/linux/cumc_netlink.h | $(O)/tools
	$(CC) $(BASE_CFLAGS) $(NL_CFLAGS) $(CFLAGS) -DCUMC_VERSION='"$(VERSION)"' \
		$(LDFLAGS) -o $@ $(filter %.c,$^) $(NL_LIBS)
$(CTL_TOOLS:%=$(O)/tools/%): tools/cumc_nl.c tools/cumc_nl.h
$(O)/tools/cumcctl: tools/cumcctl_batch.c tools/cumcctl_scenario.c tools/cumcctl.h uapi/linux/cumc.h
$(O)/tools/cumcctl: NL_CFLAGS += $(JSON_CFLAGS)
$(O)/tools/cumcctl: NL_LIBS += $(JSON_LIBS)

# cumc-imex: its config file and its TCP framing have files and unit tests
# of their own; its kernel side is behind tools/imex_kernel.h, which
# tools/tests/imex_fake_kernel.c also implements, so that daemons talk to
# each other on the host's loopback without the module
# (tools/tests/test-imex-mesh.sh, a host test of make check).
# Its peers' handshake and MACs are libcrypto's (OpenSSL, tools/imex_auth.h).
CRYPTO_CFLAGS = $(shell pkg-config --cflags libcrypto 2>/dev/null)
CRYPTO_LIBS = $(shell pkg-config --libs libcrypto 2>/dev/null)
IMEX_SRCS := tools/cumc-imex.c tools/imex_config.c tools/imex_wire.c \
	tools/imex_worker.c tools/imex_auth.c
IMEX_HDRS := tools/imex_config.h tools/imex_wire.h tools/imex_kernel.h \
	tools/imex_worker.h tools/imex_auth.h
$(O)/tools/cumc-imex: $(IMEX_SRCS) $(IMEX_HDRS) tools/imex_kernel.c
$(O)/tools/cumc-imex: NL_CFLAGS += $(CRYPTO_CFLAGS)
$(O)/tools/cumc-imex: NL_LIBS += $(CRYPTO_LIBS)

$(O)/tests/test_imex_%: tools/tests/test_imex_%.c tools/imex_%.c \
		tools/imex_%.h tools/imex_auth.h tools/imex_wire.h \
		uapi/linux/cumc_netlink.h lib/tests/check_run.h | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) $(CRYPTO_CFLAGS) \
		-Ilib/tests -Itools -o $@ $(filter %.c,$^) $(CHECK_LIBS) \
		$(CRYPTO_LIBS)

$(O)/tests/cumc-imex-fake: $(IMEX_SRCS) $(IMEX_HDRS) \
		tools/tests/imex_fake_kernel.c uapi/linux/cumc_netlink.h | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CRYPTO_CFLAGS) $(CFLAGS) -Itools -o $@ \
		$(filter %.c,$^) $(CRYPTO_LIBS)
tests: $(O)/tests/cumc-imex-fake

$(O)/selftests/cumc_netlink $(O)/selftests/cumc_unplug \
		$(O)/selftests/cumc_fail_nth $(O)/selftests/cumc_bus: \
		$(O)/selftests/%: selftests/%.c selftests/nl_monitor.h \
		selftests/cumc_lost.h $(SELFTEST_HEADERS) \
		tools/cumc_nl.c tools/cumc_nl.h $(KSFT_HEADERS) uapi/linux/cumc.h \
		uapi/linux/cumc_netlink.h | $(O)/selftests
	$(CC) $(SELFTEST_CFLAGS) $(NL_CFLAGS) $(CFLAGS) -I$(KSFT_DIR) -Itools -o $@ \
		$(filter %.c,$^) $(NL_LIBS) -lpthread

# NVML beside the driver API and the control plane: libcumc linked in,
# libnvidia-ml.so.1 as a program finds it, the netlink client to compare.
NVML_TESTS := test_nvml test_nvml_unplug
$(NVML_TESTS:%=$(O)/tests/%): $(O)/tests/%: lib/tests/%.c lib/tests/check_run.h \
		lib/tests/unplug.h tools/cumc_nl.c tools/cumc_nl.h \
		include/cumc/nvml.h $(LIB_A) $(NVML_SO) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) $(NL_CFLAGS) -Ilib \
		-Ilib/tests -Itools -o $@ $(filter %.c,$^) $(LIB_A) $(NVML_SO) \
		-Wl,-rpath,$(CURDIR)/$(O)/cuda $(CHECK_LIBS) $(NL_LIBS) -ldl -lpthread

# The scenario catalogue's selftest (Documentation/scenarios.md): libcumc
# linked in, NVML as a program finds it, the netlink client for the fabric
# manager's timeout; it runs build/tools/cumcctl to apply each scenario.
$(O)/selftests/cumc_scenario: selftests/cumc_scenario.c $(SELFTEST_HEADERS) \
		$(KSFT_HEADERS) tools/cumc_nl.c tools/cumc_nl.h \
		include/cumc/nvml.h uapi/linux/cumc_netlink.h $(LIB_A) \
		$(NVML_SO) $(O)/tools/cumcctl | $(O)/selftests
	$(CC) $(SELFTEST_CFLAGS) $(NL_CFLAGS) $(CFLAGS) -I$(KSFT_DIR) \
		-Iinclude/cumc -Itools -o $@ $(filter %.c,$^) $(LIB_A) \
		$(NVML_SO) -Wl,-rpath,$(CURDIR)/$(O)/cuda $(NL_LIBS) \
		-lpthread -lm -ldl

# NCCL's MNNVL decision, on every rank of a scripts/fabric-run job
# (scripts/tests/test-fabric-ranks.sh): libcumc linked in, NVML as a
# program finds it.
$(O)/tests/mnnvl_check: lib/tests/mnnvl_check.c include/cumc/nvml.h \
		$(LIB_A) $(NVML_SO) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(LIB_A) $(NVML_SO) \
		-Wl,-rpath,$(CURDIR)/$(O)/cuda -lpthread -lm -ldl
tests: $(O)/tests/mnnvl_check

# test_multinode reads NVML's fabric info on every node too.
$(O)/tests/test_multinode: $(NVML_SO)
$(O)/tests/test_multinode: CHECK_LIBS += $(NVML_SO) -Wl,-rpath,$(CURDIR)/$(O)/cuda

# The fault test arms faults through the control plane's netlink client.
$(O)/tests/test_faults: lib/tests/test_faults.c lib/tests/check_run.h \
		lib/tests/vmm.h tools/cumc_nl.c \
		tools/cumc_nl.h uapi/linux/cumc_netlink.h $(LIB_A) | $(O)/tests
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) $(NL_CFLAGS) -Ilib \
		-Ilib/tests -Itools -o $@ $(filter %.c,$^) $(LIB_A) \
		$(CHECK_LIBS) $(NL_LIBS) -lpthread -lm -ldl

# What the shell test runs to make events: one team's life.
$(O)/selftests/helpers/cumc_team: selftests/helpers/cumc_team.c \
		$(SELFTEST_HEADERS) uapi/linux/cumc.h
	mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) $(CFLAGS) -o $@ $<
all: $(O)/selftests/helpers/cumc_team

# What the shell test runs to hear of a lost node: IMEX_NODE_LOST, as the
# IMEX daemon sends it, through the control plane's netlink client.
$(O)/selftests/helpers/cumc_node_lost: selftests/helpers/cumc_node_lost.c \
		tools/cumc_nl.c tools/cumc_nl.h uapi/linux/cumc_netlink.h
	mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) $(NL_CFLAGS) $(CFLAGS) -Itools -o $@ \
		$(filter %.c,$^) $(NL_LIBS)
all: $(O)/selftests/helpers/cumc_node_lost

.PHONY: ctl-tools

# Longer fuzzing than make check's: our structure-aware fuzzer, then
# trinity aimed at /dev/cumc (selftests/trinity.sh).
FUZZ_CALLS ?= 200000
FUZZ_SEED ?= $(shell date +%s)
TRINITY_CALLS ?= 2000
fuzz: all
	scripts/vm-run --timeout 0 -- env CUMC_FUZZ_CALLS=$(FUZZ_CALLS) \
		CUMC_FUZZ_SEED=$(FUZZ_SEED) $(O)/selftests/cumc_fuzz
	scripts/vm-run --timeout 0 -- env CUMC_TRINITY_CALLS=$(TRINITY_CALLS) \
		CUMC_TRINITY_SEED=$(FUZZ_SEED) selftests/trinity.sh

# The VM suite on the debug kernel. Its module is built from links to
# kmod/'s sources in $(DEBUG_KMOD), so that kmod/cumc.ko stays the Debian
# kernel's; the links keep Kbuild's ../uapi include path working there.
# Check's timeouts guard against hangs on the Debian kernel: KASAN and
# lockdep under TCG take several times longer, so they are multiplied.
DEBUG_KMOD := $(O)/kmod-debug
KCSAN_KMOD := $(O)/kmod-kcsan
# The KCSAN lane: the selftests, which race the module from threads and
# processes; a report in cumc's code fails the run (scripts/vm-run), one in
# the kernel's own code is listed.
KCSAN_VM_TESTS = $(SELFTESTS:%=$(O)/selftests/%) $(UNPLUG_TESTS)
DEBUG_KMOD_SRCS := $(filter-out %.mod.c,$(wildcard kmod/*.[ch])) kmod/Kbuild
# The VM runner's planted-fault modules, for its test on the debug kernel.
DEBUG_VMRUN_SRCS := $(filter-out %.mod.c,$(wildcard selftests/vm-run/*.c)) \
	selftests/vm-run/Kbuild
kmod-debug:
	@test -n "$(DEBUG_KDIR)" || { echo "kmod-debug: set DEBUG_KDIR (scripts/debug-kernel's DIR/build)"; exit 1; }
	mkdir -p $(DEBUG_KMOD)/kmod
	find $(DEBUG_KMOD)/kmod -maxdepth 1 -type l -delete
	ln -s $(DEBUG_KMOD_SRCS:%=$(CURDIR)/%) $(DEBUG_KMOD)/kmod/
	ln -sfn $(CURDIR)/uapi $(DEBUG_KMOD)/uapi
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR)/$(DEBUG_KMOD)/kmod CUMC_VERSION=$(VERSION) CUMC_WERROR=y modules
	mkdir -p $(DEBUG_KMOD)/vm-run
	find $(DEBUG_KMOD)/vm-run -maxdepth 1 -type l -delete
	ln -s $(DEBUG_VMRUN_SRCS:%=$(CURDIR)/%) $(DEBUG_KMOD)/vm-run/
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR)/$(DEBUG_KMOD)/vm-run modules

# The multi-node test again, every node on the debug kernel: a host test,
# which boots the nodes itself (scripts/tests/test-multinode-debug.sh). It
# takes about 4 minutes of slow KASAN nodes waiting on each other (the
# leases' 40 s among them), so it is the last of the host tests, which run
# beside the VMs.
DEBUG_HOST_TESTS = scripts/tests/test-multinode-debug.sh
# The lane: the VM suite on the PCI GPUs, then cumc_fail_nth in a VM of its
# own whose first GPU is a fabric's (node 0 of a cluster) beside 2 PCI ones,
# so that its IMEX sequence takes and lets go of real holds.
DEBUG_LANE_TESTS = $(filter-out %/cumc_fail_nth,$(VM_TESTS)) \
	selftests/cumc_trace.sh $(UNPLUG_TESTS)
FAIL_NTH_GPU = $(O)/fail-nth-gpu
DEBUG_FAIL_NTH = --vm-args "$(DEBUG_VM_ARGS) --gpus 2 --gpu-file $(FAIL_NTH_GPU)" \
	--vm "$(O)/selftests/cumc_fail_nth"
$(FAIL_NTH_GPU): scripts/gpu-image | $(O)
	scripts/gpu-image --node 0 --clique 0 \
		--cluster 6661696c2d6e74682d66616272696321 $@ 40 67108864
# DEBUG_TESTS="PROGS": check-debug runs those programs on the debug
# kernel's PCI VM instead of the lane; make check-fail-nth: the fail-nth VM
# alone.
check-debug check-fail-nth:
	@scripts/deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all debug-kmod
	@dir=$$(scripts/debug-kernel) && \
	CK_DEFAULT_TIMEOUT=60 CK_TIMEOUT_MULTIPLIER=10 scripts/run-tests \
		$(if $(filter check-fail-nth,$@),$(DEBUG_FAIL_NTH), \
		$(if $(DEBUG_TESTS),--vm-args "$(DEBUG_VM_ARGS)" --vm "$(DEBUG_TESTS)", \
		--host "$(DEBUG_HOST_TESTS)" \
		--vm-args "$(DEBUG_VM_ARGS)" --vm "$(DEBUG_LANE_TESTS)" $(DEBUG_FAIL_NTH)))

check-kcsan:
	@scripts/deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all kcsan-kmod
	@kcsan=$$(scripts/debug-kernel --kcsan) && \
	CK_DEFAULT_TIMEOUT=60 CK_TIMEOUT_MULTIPLIER=10 scripts/run-tests \
		--vm-args "$(KCSAN_VM_ARGS)" --vm "$(KCSAN_VM_TESTS)"

# A debug kernel (built once, cached) and the module and the VM runner's
# planted-fault modules built for it, for the lanes that boot it.
debug-kmod:
	@dir=$$(scripts/debug-kernel) && \
	$(MAKE) --no-print-directory kmod-debug $(FAIL_NTH_GPU) DEBUG_KDIR=$$dir/build
kcsan-kmod:
	@kcsan=$$(scripts/debug-kernel --kcsan) && \
	$(MAKE) --no-print-directory kmod-debug DEBUG_KDIR=$$kcsan/build DEBUG_KMOD=$(KCSAN_KMOD)

.PHONY: fuzz check-debug check-fail-nth check-kcsan kmod-debug debug-kmod kcsan-kmod

CHECKPATCH := $(O)/checkpatch/scripts/checkpatch.pl
# MACRO_ARG_REUSE: the ioctl table macro takes constants only.
CHECKPATCH_IGNORE := FILE_PATH_CHANGES,MACRO_ARG_REUSE
LINT_FILES = $(filter-out %.mod.c kmod/cumc_compat.h kmod/cumc_trace.h,$(wildcard kmod/*.[ch] uapi/linux/*.h selftests/vm-run/*.c selftests/kmod/*.c))
$(CHECKPATCH):
	@test -n "$(LINUX_SOURCE)" || { echo "no linux-source tarball (run scripts/deps)"; exit 1; }
	mkdir -p $(O)/checkpatch
	tar -xf $(LINUX_SOURCE) -I 'xz -T0' --strip-components=1 -C $(O)/checkpatch \
		$(patsubst %,$(LINUX_SOURCE_TOP)/scripts/%, \
			checkpatch.pl spelling.txt const_structs.checkpatch)
	touch $@

lint: deps $(CHECKPATCH)
	$(CHECKPATCH) --no-tree --strict --quiet --show-types \
		--ignore $(CHECKPATCH_IGNORE) -f $(LINT_FILES)
	@# kmod/cumc_compat.h is where the kernel version checks belong.
	$(CHECKPATCH) --no-tree --strict --quiet --show-types \
		--ignore $(CHECKPATCH_IGNORE),LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f kmod/cumc_compat.h
	@# kmod/cumc_trace.h has the layout of the kernel's own trace headers.
	$(CHECKPATCH) --no-tree --strict --quiet --show-types \
		--ignore $(CHECKPATCH_IGNORE),OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f kmod/cumc_trace.h
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod CUMC_VERSION=$(VERSION) CUMC_WERROR=y C=2 modules 2>&1 | tee $(O)/sparse.log
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/kmod CUMC_WERROR=y C=2 modules 2>&1 | tee -a $(O)/sparse.log
	@! grep -E 'warning|error' $(O)/sparse.log

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/vm-run clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/kmod clean
	rm -rf $(O)

.PHONY: all deps kmod lib tests vm-run-test-module check lint clean

# make install, make uninstall (DESTDIR, PREFIX): see packaging/install.mk.
include packaging/install.mk
