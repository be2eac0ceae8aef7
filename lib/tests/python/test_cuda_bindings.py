# SPDX-License-Identifier: MIT
"""cuda-python on cumc: a VMM and multicast flow written with
cuda.bindings.driver as a Python user writes it, run on libcumc through
libcuda.so.1 (scripts/vm-run puts build/cuda on the library path). Needs
/dev/cumc and at least two devices for the multicast part: run by
lib/tests/python/cuda_python.sh inside the VM, one TAP line per check.

Every check compares what the driver answered with what it must answer:
values, bytes and, for the refusals, the CUresult that
Documentation/api.md names. Later checks use what earlier ones made; when
one fails, those that depend on it fail too (with the traceback as TAP
diagnostics) rather than being skipped.
"""

import ctypes
import os
import sys
import traceback

import numpy as np
from cuda.bindings import driver

import test_pynvml

CU = driver.CUresult
PINNED_BINDINGS = os.environ.get("CUMC_PINNED_CUDA_BINDINGS")

tap_n = 0
tap_failed = 0


def tap(ok, name, diag=""):
    global tap_n, tap_failed
    tap_n += 1
    if not ok:
        tap_failed += 1
    print(("ok" if ok else "not ok"), tap_n, name)
    for line in diag.splitlines():
        print("#", line)
    sys.stdout.flush()


class Failed(Exception):
    pass


def check(name, fn):
    """One TAP line: ok when fn() returns without raising (asserts and
    driver errors raise)."""
    try:
        fn()
    except Exception:
        tap(False, name, traceback.format_exc(limit=4))
        return False
    tap(True, name)
    return True


def skip(name, reason):
    global tap_n
    tap_n += 1
    print("ok", tap_n, name, "# SKIP", reason)


def call(fn, *args):
    """fn(*args) must succeed: the values after its CUresult."""
    res = fn(*args)
    err, rest = res[0], res[1:]
    if err != CU.CUDA_SUCCESS:
        raise Failed("%s%r -> %s" % (fn.__name__, args, err.name))
    if len(rest) == 0:
        return None
    return rest[0] if len(rest) == 1 else rest


def refused(want, fn, *args):
    """fn(*args) must answer exactly the CUresult want, as a CUresult."""
    err = fn(*args)[0]
    if not isinstance(err, CU):
        raise Failed("%s answered %r, not a CUresult" % (fn.__name__, err))
    if err != want:
        raise Failed("%s%r -> %s, want %s" % (fn.__name__, args, err.name, want.name))


def pattern(size, seed):
    """Bytes that differ from their neighbours and from another seed's."""
    return ((np.arange(size, dtype=np.uint32) * 2654435761 + seed) >> 13).astype(np.uint8)


def device_prop(dev):
    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = int(dev)
    prop.requestedHandleTypes = (
        driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return prop


def access(devs, flags=driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE):
    descs = []
    for dev in devs:
        d = driver.CUmemAccessDesc()
        d.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        d.location.id = int(dev)
        d.flags = flags
        descs.append(d)
    return descs


def read_back(va, size):
    out = np.zeros(size, dtype=np.uint8)
    call(driver.cuMemcpyDtoH, out, va, size)
    return out


def same_bytes(got, want, what):
    if not np.array_equal(got, want):
        bad = int(np.flatnonzero(got != want)[0])
        raise Failed("%s: byte %d is %#x, want %#x" % (what, bad, got[bad], want[bad]))


# The state the checks build up, for those that follow.
s = {}


def t_version():
    import cuda.bindings
    if PINNED_BINDINGS and cuda.bindings.__version__ != PINNED_BINDINGS:
        raise Failed("cuda-bindings %s, pinned %s" % (cuda.bindings.__version__, PINNED_BINDINGS))
    assert cuda.bindings.__version__.startswith("13.0."), cuda.bindings.__version__


def t_not_initialized():
    refused(CU.CUDA_ERROR_NOT_INITIALIZED, driver.cuDeviceGetCount)


def t_init():
    call(driver.cuInit, 0)


def t_is_libcumc():
    # The libcuda.so.1 cuda.bindings loaded is build/libcumc.so.1.
    want = os.environ.get("CUMC_LIBCUMC")
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "libcu" in line and "/" in line}
    real = {os.path.realpath(p) for p in libs}
    assert any(os.path.basename(p).startswith("libcumc.so") for p in real), sorted(libs)
    if want:
        assert want in real, "loaded: %s" % sorted(libs)
    assert not any("nvidia" in p for p in real), sorted(real)


def t_driver_version():
    v = call(driver.cuDriverGetVersion)
    # 13010 as Documentation/api.md says: a 13.1 driver under 13.0's header.
    assert v == 13010, v


def t_device_count():
    n = call(driver.cuDeviceGetCount)
    assert n >= 1, n
    s["count"] = n


def t_devices_and_names():
    s["devs"] = []
    for i in range(s["count"]):
        dev = call(driver.cuDeviceGet, i)
        assert int(dev) == i, (dev, i)
        name = call(driver.cuDeviceGetName, 256, dev)
        name = name.split(b"\0")[0].decode()
        assert name, "device %d has no name" % i
        s["devs"].append(dev)
    refused(CU.CUDA_ERROR_INVALID_DEVICE, driver.cuDeviceGet, s["count"])


def t_attributes():
    A = driver.CUdevice_attribute
    for dev in s["devs"]:
        for attr in (A.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                     A.CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED,
                     A.CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED):
            v = call(driver.cuDeviceGetAttribute, attr, dev)
            assert v == 1, "device %d: %s = %d" % (int(dev), attr.name, v)


def t_primary_context():
    dev = s["devs"][0]
    ctx = call(driver.cuDevicePrimaryCtxRetain, dev)
    call(driver.cuCtxSetCurrent, ctx)
    cur = call(driver.cuCtxGetCurrent)
    assert int(cur) == int(ctx), (cur, ctx)
    assert int(call(driver.cuCtxGetDevice)) == 0
    s["ctx"] = ctx


def t_granularity():
    G = driver.CUmemAllocationGranularity_flags
    prop = device_prop(s["devs"][0])
    gmin = call(driver.cuMemGetAllocationGranularity, prop,
                G.CU_MEM_ALLOC_GRANULARITY_MINIMUM)
    grec = call(driver.cuMemGetAllocationGranularity, prop,
                G.CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    assert gmin > 0 and gmin & (gmin - 1) == 0, gmin
    assert grec >= gmin and grec % gmin == 0, (grec, gmin)
    s["gran"] = gmin


def t_create_reserve_map():
    size = 2 * s["gran"]
    h = call(driver.cuMemCreate, size, device_prop(s["devs"][0]), 0)
    # Room for the allocation and, after it, the same one imported again.
    va = call(driver.cuMemAddressReserve, 2 * size, 0, 0, 0)
    assert int(va) != 0
    call(driver.cuMemMap, va, size, 0, h, 0)
    descs = access([s["devs"][0]])
    call(driver.cuMemSetAccess, va, size, descs, len(descs))
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = 0
    flags = call(driver.cuMemGetAccess, loc, va)
    assert flags == driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags
    s.update(h=h, va=int(va), size=size)


def t_copy_numpy():
    size, va = s["size"], s["va"]
    src = pattern(size, 1)
    call(driver.cuMemcpyHtoD, va, src, size)
    same_bytes(read_back(va, size), src, "numpy round trip")
    s["bytes"] = src


def t_copy_bytearray():
    # bytearray both ways, at an odd offset inside the mapping.
    va, off, n = s["va"], 4097, 1000
    src = bytearray((i * 7 + 3) & 0xFF for i in range(n))
    call(driver.cuMemcpyHtoD, va + off, src, n)
    dst = bytearray(n)
    call(driver.cuMemcpyDtoH, dst, va + off, n)
    assert dst == src, "bytearray round trip differs"
    # The bytes around it are those of the numpy copy, untouched.
    got = read_back(va, s["size"])
    want = s["bytes"].copy()
    want[off:off + n] = np.frombuffer(bytes(src), dtype=np.uint8)
    same_bytes(got, want, "around the bytearray copy")
    s["bytes"] = want


def t_array_copy():
    # Host (pitch 64, from column 3 of row 1) -> 2D array -> device memory
    # (pitch 48): the rectangle arrives, the bytes between rows stay.
    va, off, w, h = s["va"], 8192, 40, 6
    desc = driver.CUDA_ARRAY_DESCRIPTOR()
    desc.Width, desc.Height, desc.NumChannels = w, h, 1
    desc.Format = driver.CUarray_format.CU_AD_FORMAT_UNSIGNED_INT8
    arr = call(driver.cuArrayCreate, desc)
    src = pattern(64 * (h + 1), 21)
    cp = driver.CUDA_MEMCPY2D()
    cp.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    cp.srcHost = src.ctypes.data
    cp.srcXInBytes, cp.srcY, cp.srcPitch = 3, 1, 64
    cp.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_ARRAY
    cp.dstArray = arr
    cp.WidthInBytes, cp.Height = w, h
    call(driver.cuMemcpy2D, cp)
    cp = driver.CUDA_MEMCPY2D()
    cp.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_ARRAY
    cp.srcArray = arr
    cp.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.dstDevice, cp.dstPitch = va + off, 48
    cp.WidthInBytes, cp.Height = w, h
    call(driver.cuMemcpy2D, cp)
    want = s["bytes"].copy()
    for y in range(h):
        row = src[(y + 1) * 64 + 3:(y + 1) * 64 + 3 + w]
        want[off + y * 48:off + y * 48 + w] = row
    same_bytes(read_back(va, s["size"]), want, "host to array to device")
    s["bytes"] = want
    call(driver.cuArrayDestroy, arr)
    refused(CU.CUDA_ERROR_INVALID_HANDLE, driver.cuArrayDestroy, arr)


def t_export_import():
    POSIX = driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    fd = call(driver.cuMemExportToShareableHandle, s["h"], POSIX, 0)
    assert isinstance(fd, int) and fd >= 0, fd
    try:
        h2 = call(driver.cuMemImportFromShareableHandle, fd, POSIX)
    finally:
        os.close(fd)
    # The import, mapped after the original, is the same memory.
    va2 = s["va"] + s["size"]
    call(driver.cuMemMap, va2, s["size"], 0, h2, 0)
    descs = access([s["devs"][0]])
    call(driver.cuMemSetAccess, va2, s["size"], descs, len(descs))
    same_bytes(read_back(va2, s["size"]), s["bytes"], "through the import")
    ones = np.full(64, 0xA5, dtype=np.uint8)
    call(driver.cuMemcpyHtoD, va2 + 64, ones, 64)
    s["bytes"][64:128] = 0xA5
    same_bytes(read_back(s["va"], s["size"]), s["bytes"], "written through the import")
    prop = call(driver.cuMemGetAllocationPropertiesFromHandle, h2)
    assert prop.location.id == 0 and prop.requestedHandleTypes == POSIX, prop
    s["h2"] = h2


def t_unicast_teardown():
    size, va = s["size"], s["va"]
    call(driver.cuMemUnmap, va, 2 * size)
    call(driver.cuMemRelease, s["h2"])
    call(driver.cuMemRelease, s["h"])
    call(driver.cuMemAddressFree, va, 2 * size)
    # Released means gone: a second release is refused.
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemRelease, s["h"])


def mc_prop(ndev, size):
    prop = driver.CUmulticastObjectProp()
    prop.numDevices = ndev
    prop.size = size
    prop.handleTypes = (
        driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    prop.flags = 0
    return prop


def t_mc_granularity():
    G = driver.CUmulticastGranularity_flags
    n = s["count"]
    gmin = call(driver.cuMulticastGetGranularity, mc_prop(n, 0),
                G.CU_MULTICAST_GRANULARITY_MINIMUM)
    assert gmin > 0 and gmin & (gmin - 1) == 0, gmin
    size = max(gmin, s["gran"])
    grec = call(driver.cuMulticastGetGranularity, mc_prop(n, size),
                G.CU_MULTICAST_GRANULARITY_RECOMMENDED)
    assert grec >= gmin, (grec, gmin)
    s["mc_size"] = size


def t_mc_create():
    n, size = s["count"], s["mc_size"]
    mc = call(driver.cuMulticastCreate, mc_prop(n, size))
    for dev in s["devs"]:
        call(driver.cuMulticastAddDevice, mc, dev)
    # The team is complete: a device more is refused.
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMulticastAddDevice, mc, s["devs"][0])
    s["mc"] = mc


def t_mc_bind():
    n, size = s["count"], s["mc_size"]
    # Members at va + i * size, the multicast mapping after them.
    va = int(call(driver.cuMemAddressReserve, (n + 1) * size, 0, 0, 0))
    s["mc_va_base"] = va
    s["members"] = []
    for i, dev in enumerate(s["devs"]):
        h = call(driver.cuMemCreate, size, device_prop(dev), 0)
        s["members"].append(h)
        call(driver.cuMemMap, va + i * size, size, 0, h, 0)
        descs = access([dev])
        call(driver.cuMemSetAccess, va + i * size, size, descs, len(descs))
        # Each member starts with bytes of its own, so a broadcast that
        # missed one shows.
        call(driver.cuMemcpyHtoD, va + i * size, pattern(size, 100 + i), size)
        call(driver.cuMulticastBindMem, s["mc"], 0, h, 0, size, 0)


def t_mc_map():
    n, size = s["count"], s["mc_size"]
    mc_va = s["mc_va_base"] + n * size
    call(driver.cuMemMap, mc_va, size, 0, s["mc"], 0)
    descs = access(s["devs"])
    call(driver.cuMemSetAccess, mc_va, size, descs, len(descs))
    s["mc_va"] = mc_va


def t_mc_broadcast():
    n, size, base = s["count"], s["mc_size"], s["mc_va_base"]
    src = pattern(size, 7)
    call(driver.cuMemcpyHtoD, s["mc_va"], src, size)
    for i in range(n):
        same_bytes(read_back(base + i * size, size), src, "member %d" % i)


def t_mc_partial_broadcast():
    # A small write in the middle reaches every member, and only there.
    n, size, base = s["count"], s["mc_size"], s["mc_va_base"]
    off, chunk = size // 2 + 3, bytearray(b"cumc multicast" * 5)
    call(driver.cuMemcpyHtoD, s["mc_va"] + off, chunk, len(chunk))
    want = pattern(size, 7)
    want[off:off + len(chunk)] = np.frombuffer(bytes(chunk), dtype=np.uint8)
    for i in range(n):
        same_bytes(read_back(base + i * size, size), want, "member %d" % i)


def t_mc_no_reads():
    # Documentation/api.md: nothing reads through a multicast address.
    out = bytearray(8)
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemcpyDtoH, out, s["mc_va"], 8)


def t_mc_teardown():
    n, size, base = s["count"], s["mc_size"], s["mc_va_base"]
    call(driver.cuMemUnmap, base, (n + 1) * size)
    for dev, h in zip(s["devs"], s["members"]):
        call(driver.cuMulticastUnbind, s["mc"], dev, 0, size)
        call(driver.cuMemRelease, h)
    call(driver.cuMemRelease, s["mc"])
    call(driver.cuMemAddressFree, base, (n + 1) * size)
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMulticastAddDevice, s["mc"], s["devs"][0])


def t_managed():
    # Managed memory through cuda.bindings: allocated, advised, prefetched,
    # its attributes read back, and the same bytes for the CPU and copies.
    size = 2 * 4096
    ptr = call(driver.cuMemAllocManaged, size,
               driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL.value)
    try:
        managed = call(driver.cuPointerGetAttribute,
                       driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr)
        assert managed == 1, "IS_MANAGED is %r" % managed
        src = pattern(size, 5)
        call(driver.cuMemcpyHtoD, ptr, src, size)
        same_bytes(read_back(ptr, size), src, "managed round trip")
        loc = driver.CUmemLocation()
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = 0
        call(driver.cuMemAdvise, ptr, size,
             driver.CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY, loc)
        call(driver.cuMemPrefetchAsync, ptr, size, loc, 0, driver.CUstream(0))
        rng = driver.CUmem_range_attribute
        mostly = call(driver.cuMemRangeGetAttribute, 4,
                      rng.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, ptr, size)
        assert int(mostly) == 1, "READ_MOSTLY is %r" % mostly
        last = call(driver.cuMemRangeGetAttribute, 4,
                    rng.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, ptr, size)
        assert int(last) == 0, "LAST_PREFETCH_LOCATION is %r" % last
        refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemAllocManaged, size, 0)
    finally:
        call(driver.cuMemFree, ptr)


def t_garbage_handles():
    garbage = 0x7EADBEEF0000
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemRelease, garbage)
    refused(CU.CUDA_ERROR_INVALID_VALUE,
            driver.cuMemGetAllocationPropertiesFromHandle, garbage)
    POSIX = driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    refused(CU.CUDA_ERROR_INVALID_VALUE,
            driver.cuMemExportToShareableHandle, garbage, POSIX, 0)
    refused(CU.CUDA_ERROR_INVALID_CONTEXT,
            driver.cuCtxSetCurrent, driver.CUcontext(garbage))
    # The context current before is still current.
    assert int(call(driver.cuCtxGetCurrent)) == int(s["ctx"])


def t_bad_addresses():
    # Nothing is mapped at the reservation any more: copies are refused.
    buf = bytearray(16)
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemcpyHtoD, s["va"], buf, 16)
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemcpyDtoH, buf, s["va"], 16)
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemAddressFree, s["va"], s["size"])
    bad_fd = os.open("/dev/null", os.O_RDONLY)
    try:
        refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemImportFromShareableHandle, bad_fd,
                driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    finally:
        os.close(bad_fd)


def t_error_names():
    name = call(driver.cuGetErrorName, CU.CUDA_ERROR_INVALID_HANDLE)
    assert name == b"CUDA_ERROR_INVALID_HANDLE", name
    text = call(driver.cuGetErrorString, CU.CUDA_ERROR_INVALID_VALUE)
    assert text, text


def t_proc_address():
    # What cuda.bindings itself resolves every entry point with.
    flags = driver.CUdriverProcAddress_flags
    Q = driver.CUdriverProcAddressQueryResult
    err, fn, status = driver.cuGetProcAddress(b"cuMemCreate", 13000,
                                              flags.CU_GET_PROC_ADDRESS_DEFAULT)
    assert err == CU.CUDA_SUCCESS and fn and status == Q.CU_GET_PROC_ADDRESS_SUCCESS, (err, fn, status)
    # An unknown name: success, a NULL pointer and SYMBOL_NOT_FOUND, as
    # NVIDIA's driver answers cuGetProcAddress_v2.
    err, fn, status = driver.cuGetProcAddress(b"cuNoSuchEntryPoint", 13000,
                                              flags.CU_GET_PROC_ADDRESS_DEFAULT)
    assert err == CU.CUDA_SUCCESS and fn == 0, (err, fn)
    assert status == Q.CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, status


PTDS_CHILD = """
import sys
from cuda.bindings import driver as cu
ok = cu.CUresult.CUDA_SUCCESS
assert cu.cuInit(0)[0] == ok
err, dev = cu.cuDeviceGet(0)
err, ctx = cu.cuDevicePrimaryCtxRetain(dev)
assert cu.cuCtxSetCurrent(ctx)[0] == ok
prop = cu.CUmemAllocationProp()
prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
prop.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
prop.location.id = 0
err, size = cu.cuMemGetAllocationGranularity(
    prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM)
err, h = cu.cuMemCreate(size, prop, 0)
assert err == ok, err
err, va = cu.cuMemAddressReserve(size, 0, 0, 0)
assert cu.cuMemMap(va, size, 0, h, 0)[0] == ok
acc = cu.CUmemAccessDesc()
acc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
acc.location.id = 0
acc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
assert cu.cuMemSetAccess(va, size, [acc], 1)[0] == ok
src = bytes(range(256)) * 16
assert cu.cuMemcpyHtoD(va, src, len(src))[0] == ok
assert cu.cuMemsetD8(int(va) + 100, 0xEE, 10)[0] == ok
out = bytearray(len(src))
assert cu.cuMemcpyDtoH(out, va, len(out))[0] == ok
want = bytearray(src)
want[100:110] = bytes([0xEE]) * 10
assert out == want, "per-thread default stream copies differ"
print("ptds ok")
"""


def t_per_thread_default_stream():
    # A process that asks cuda.bindings for the per-thread default stream
    # variants (_ptds lookups with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
    # copies and sets as well.
    import subprocess
    env = dict(os.environ, CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM="1")
    r = subprocess.run([sys.executable, "-c", PTDS_CHILD], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ptds ok" in r.stdout, r.stdout + r.stderr


def t_graph():
    # A graph of a set and a copy into a numpy array, built node by node,
    # then the same work captured from a stream: nothing runs before the
    # launch, then the bytes are there.
    size = 4096
    dptr = call(driver.cuMemAlloc, size)
    ctx = call(driver.cuCtxGetCurrent)
    out = np.zeros(size, dtype=np.uint8)
    graph = call(driver.cuGraphCreate, 0)
    sp = driver.CUDA_MEMSET_NODE_PARAMS()
    sp.dst = dptr
    sp.value = 0x5A
    sp.elementSize = 1
    sp.width = size
    sp.height = 1
    set_node = call(driver.cuGraphAddMemsetNode, graph, None, 0, sp, ctx)
    cp = driver.CUDA_MEMCPY3D()
    cp.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.srcDevice = dptr
    cp.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    cp.dstHost = out.ctypes.data
    cp.WidthInBytes = size
    cp.Height = 1
    cp.Depth = 1
    call(driver.cuGraphAddMemcpyNode, graph, [set_node], 1, cp, ctx)
    graph_exec = call(driver.cuGraphInstantiate, graph, 0)
    stream = call(driver.cuStreamCreate, 0)
    call(driver.cuGraphLaunch, graph_exec, stream)
    call(driver.cuStreamSynchronize, stream)
    assert (out == 0x5A).all(), "graph launch: %r" % out[:8]

    mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
    call(driver.cuStreamBeginCapture, stream, mode)
    status = call(driver.cuStreamIsCapturing, stream)
    assert status == driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    call(driver.cuMemsetD8Async, dptr, 0x33, size, stream)
    call(driver.cuMemcpyDtoHAsync, out.ctypes.data, dptr, size, stream)
    captured = call(driver.cuStreamEndCapture, stream)
    assert (out == 0x5A).all(), "ran while captured"
    captured_exec = call(driver.cuGraphInstantiate, captured, 0)
    call(driver.cuGraphLaunch, captured_exec, stream)
    call(driver.cuStreamSynchronize, stream)
    assert (out == 0x33).all(), "captured graph launch: %r" % out[:8]
    for e in (graph_exec, captured_exec):
        call(driver.cuGraphExecDestroy, e)
    for g in (graph, captured):
        call(driver.cuGraphDestroy, g)
    call(driver.cuStreamDestroy, stream)
    call(driver.cuMemFree, dptr)


def t_graph_conditional():
    # cuGraphAddNode: an IF node whose handle defaults to 1 runs its body,
    # where cuGraphAddNode put a set; a SWITCH past its bodies runs none.
    size = 256
    dptr = call(driver.cuMemAlloc, size)
    call(driver.cuMemsetD8, dptr, 0, size)
    ctx = call(driver.cuCtxGetCurrent)
    graph = call(driver.cuGraphCreate, 0)
    bodies = []
    for kind, value, count in (
            (driver.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF, 1, 1),
            (driver.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_SWITCH, 5, 2)):
        handle = call(driver.cuGraphConditionalHandleCreate, graph, ctx, value,
                      driver.CU_GRAPH_COND_ASSIGN_DEFAULT)
        cp = driver.CUgraphNodeParams()
        cp.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        cp.conditional.handle = handle
        cp.conditional.type = kind
        cp.conditional.size = count
        cp.conditional.ctx = ctx
        call(driver.cuGraphAddNode, graph, None, None, 0, cp)
        bodies.extend(cp.conditional.phGraph_out)
    assert len(bodies) == 3, bodies
    for i, body in enumerate(bodies):
        sp = driver.CUgraphNodeParams()
        sp.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET
        sp.memset.dst = int(dptr) + i
        sp.memset.value = 0x7E
        sp.memset.elementSize = 1
        sp.memset.width = 1
        sp.memset.height = 1
        sp.memset.ctx = ctx
        call(driver.cuGraphAddNode, body, None, None, 0, sp)
    graph_exec = call(driver.cuGraphInstantiate, graph, 0)
    stream = call(driver.cuStreamCreate, 0)
    call(driver.cuGraphLaunch, graph_exec, stream)
    call(driver.cuStreamSynchronize, stream)
    out = np.zeros(4, dtype=np.uint8)
    call(driver.cuMemcpyDtoH, out.ctypes.data, dptr, 4)
    assert list(out) == [0x7E, 0, 0, 0], "conditional bodies ran: %r" % out
    call(driver.cuGraphExecDestroy, graph_exec)
    call(driver.cuGraphDestroy, graph)
    call(driver.cuStreamDestroy, stream)
    call(driver.cuMemFree, dptr)


def t_graph_memory():
    # cuMemAllocAsync and cuMemFreeAsync captured from a stream become an
    # allocation and a free node; the launch sets the graph's memory and
    # copies it out, and the device's graph memory counts it.
    size = 4096
    out = np.zeros(size, dtype=np.uint8)
    stream = call(driver.cuStreamCreate, 0)
    mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
    call(driver.cuStreamBeginCapture, stream, mode)
    dptr = call(driver.cuMemAllocAsync, size, stream)
    call(driver.cuMemsetD8Async, dptr, 0x6B, size, stream)
    call(driver.cuMemcpyDtoHAsync, out.ctypes.data, dptr, size, stream)
    call(driver.cuMemFreeAsync, dptr, stream)
    graph = call(driver.cuStreamEndCapture, stream)
    nodes, count = call(driver.cuGraphGetNodes, graph, 4)
    assert count == 4, "captured nodes: %d" % count
    kind = call(driver.cuGraphNodeGetType, nodes[0])
    assert kind == driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEM_ALLOC, kind
    params = call(driver.cuGraphMemAllocNodeGetParams, nodes[0])
    assert int(params.dptr) == int(dptr) and params.bytesize == size
    graph_exec = call(driver.cuGraphInstantiate, graph, 0)
    call(driver.cuGraphLaunch, graph_exec, stream)
    call(driver.cuStreamSynchronize, stream)
    assert (out == 0x6B).all(), "graph memory launch: %r" % out[:8]
    attr = driver.CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH
    high = call(driver.cuDeviceGetGraphMemAttribute, s["devs"][0], attr)
    assert int(high) >= size, "used high: %r" % high
    call(driver.cuGraphExecDestroy, graph_exec)
    call(driver.cuGraphDestroy, graph)
    call(driver.cuStreamDestroy, stream)


def t_release_context():
    call(driver.cuDevicePrimaryCtxRelease, s["devs"][0])


# cuda.core: what of it reaches cumc (Documentation/testing.md says what
# does not: cuda.core.system and Device.sync go through libcudart).


def t_core_version():
    import cuda.core
    pinned = os.environ.get("CUMC_PINNED_CUDA_CORE")
    if pinned and cuda.core.__version__ != pinned:
        raise Failed("cuda-core %s, pinned %s" % (cuda.core.__version__, pinned))
    s["core"] = cuda.core


def t_core_devices():
    Device = s["core"].Device
    devs = Device.get_all_devices()
    assert len(devs) == s["count"], (len(devs), s["count"])
    d = Device(0)
    d.set_current()
    # Device() is the current one.
    assert Device().device_id == 0, Device().device_id
    assert d.name == call(driver.cuDeviceGetName, 256, s["devs"][0]).split(b"\0")[0].decode()
    uuid = call(driver.cuDeviceGetUuid, s["devs"][0]).bytes
    assert d.uuid.replace("-", "") == uuid.hex(), (d.uuid, uuid.hex())
    assert d.properties.virtual_memory_management_supported
    assert d.properties.multicast_supported
    assert tuple(d.compute_capability) == (9, 0), d.compute_capability
    s["core_dev"] = d


def t_core_vmm():
    core, d = s["core"], s["core_dev"]
    peers = [1] if s["count"] >= 2 else []
    mr = core.VirtualMemoryResource(d, core.VirtualMemoryResourceOptions(peers=peers))
    size = 3 * s["gran"]
    buf = mr.allocate(size)
    va = int(buf.handle)
    assert buf.size == size and buf.device_id == 0, (buf.size, buf.device_id)
    assert buf.is_device_accessible and not buf.is_host_accessible
    # Access for the device and its peer, as asked.
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    for dev in [0] + peers:
        loc.id = dev
        flags = call(driver.cuMemGetAccess, loc, va)
        assert flags == driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE, (dev, flags)
    src = pattern(size, 42)
    call(driver.cuMemcpyHtoD, va, src, size)
    same_bytes(read_back(va, size), src, "cuda.core buffer")
    s["core_buf"] = (buf, va, size)


def t_core_close():
    buf, va, size = s["core_buf"]
    buf.close()
    # Unmapped and freed: the address is no device memory any more.
    refused(CU.CUDA_ERROR_INVALID_VALUE, driver.cuMemcpyHtoD, va, bytearray(8), 8)


def t_core_stream_pool():
    core, d = s["core"], s["core_dev"]
    stream = d.create_stream()
    done = d.create_event()
    # The device's memory resource is its memory pool: cuMemAllocAsync.
    buf = d.memory_resource.allocate(4096, stream=stream)
    src, out = pattern(4096, 7), bytearray(4096)
    call(driver.cuMemcpyHtoDAsync, int(buf.handle), src, 4096, stream.handle)
    call(driver.cuMemcpyDtoHAsync, out, int(buf.handle), 4096, stream.handle)
    stream.record(done)
    stream.sync()
    assert done.is_done
    same_bytes(out, src, "cuda.core pool buffer, through a stream")
    buf.close(stream)
    stream.sync()
    stream.close()


NVRTC_SOURCE = b"""
extern "C" __global__ void twice(float *x, float add)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    x[i] = 2.0f * x[i] + add;
}
"""


def nvrtc_missing():
    """Why cuda.bindings.nvrtc cannot load NVRTC here, or None."""
    try:
        from cuda.bindings import nvrtc
        nvrtc.nvrtcVersion()
    except Exception as e:
        return "no NVRTC for cuda.bindings.nvrtc: %s" % str(e).splitlines()[0]
    return None


def nvrtc_ptx(source, name, options):
    """The PTX NVRTC makes of source."""
    from cuda.bindings import nvrtc
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, prog = nvrtc.nvrtcCreateProgram(source, name, 0, [], [])
    assert err == ok, err
    err, = nvrtc.nvrtcCompileProgram(prog, len(options), options)
    if err != ok:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise Failed("nvrtcCompileProgram: %s: %s" % (err.name, log.decode()))
    err, size = nvrtc.nvrtcGetPTXSize(prog)
    assert err == ok, err
    ptx = b" " * size
    err, = nvrtc.nvrtcGetPTX(prog, ptx)
    assert err == ok, err
    nvrtc.nvrtcDestroyProgram(prog)
    return ptx


def t_nvrtc():
    ptx = nvrtc_ptx(NVRTC_SOURCE, b"twice.cu", [b"-arch=compute_90"])
    module = call(driver.cuModuleLoadData, ptx)
    fn = call(driver.cuModuleGetFunction, module, b"twice")
    n = 256
    host = np.arange(n, dtype=np.float32)
    dptr = call(driver.cuMemAlloc, host.nbytes)
    call(driver.cuMemcpyHtoD, dptr, host, host.nbytes)
    x = np.array([int(dptr)], dtype=np.uint64)
    add = np.array([0.5], dtype=np.float32)
    params = np.array([x.ctypes.data, add.ctypes.data], dtype=np.uint64)
    call(driver.cuLaunchKernel, fn, n // 64, 1, 1, 64, 1, 1, 0, 0, params.ctypes.data, 0)
    out = np.zeros(n, dtype=np.float32)
    call(driver.cuMemcpyDtoH, out, dptr, out.nbytes)
    assert np.array_equal(out, 2 * host + 0.5), out[:8]
    call(driver.cuMemFree, dptr)
    call(driver.cuModuleUnload, module)


# Two inputs of a link: a kernel calling a device function and reading a
# variable that the other defines (nvcc -rdc, NVRTC -rdc=true, Numba).
LINK_MAIN = b"""
extern __device__ float offset;
extern __device__ float scaled(float v);

extern "C" __global__ void scale_all(float *x)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    x[i] = scaled(x[i]) + offset;
}
"""
LINK_LIB = b"""
__device__ float offset = 0.25f;

__device__ __noinline__ float scaled(float v)
{
    return 3.0f * v;
}
"""


def link_ptx(inputs):
    """cuLinkCreate, a cuLinkAddData per (name, ptx), cuLinkComplete: its
    CUresult, the image's bytes and the error log."""
    log = bytearray(1024)
    opts = [driver.CUjit_option.CU_JIT_ERROR_LOG_BUFFER,
            driver.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    state = call(driver.cuLinkCreate, len(opts), opts, [log, len(log)])
    for name, ptx in inputs:
        call(driver.cuLinkAddData, state, driver.CUjitInputType.CU_JIT_INPUT_PTX,
             ptx, len(ptx), name, 0, None, None)
    err, image, size = driver.cuLinkComplete(state)
    data = None
    if err == CU.CUDA_SUCCESS:
        data = (ctypes.c_char * size).from_address(int(image)).raw
    call(driver.cuLinkDestroy, state)
    return err, data, bytes(log).split(b"\0")[0].decode()


def t_driver_link():
    rdc = [b"-arch=compute_90", b"-rdc=true"]
    main = nvrtc_ptx(LINK_MAIN, b"main.cu", rdc)
    lib = nvrtc_ptx(LINK_LIB, b"lib.cu", rdc)
    err, image, log = link_ptx([(b"main", main), (b"lib", lib)])
    assert err == CU.CUDA_SUCCESS, (err, log)
    library = call(driver.cuLibraryLoadData, image, None, None, 0, None, None, 0)
    kernel = call(driver.cuLibraryGetKernel, library, b"scale_all")
    fn = call(driver.cuKernelGetFunction, kernel)
    n = 128
    host = np.arange(n, dtype=np.float32) - 7.5
    dptr = call(driver.cuMemAlloc, host.nbytes)
    call(driver.cuMemcpyHtoD, dptr, host, host.nbytes)
    x = np.array([int(dptr)], dtype=np.uint64)
    params = np.array([x.ctypes.data], dtype=np.uint64)
    call(driver.cuLaunchKernel, fn, n // 32, 1, 1, 32, 1, 1, 0, 0, params.ctypes.data, 0)
    out = np.zeros(n, dtype=np.float32)
    call(driver.cuMemcpyDtoH, out, dptr, out.nbytes)
    assert np.array_equal(out, 3 * host + 0.25), out[:8]
    call(driver.cuMemFree, dptr)
    call(driver.cuLibraryUnload, library)
    # Without the definitions: NOT_FOUND, the log naming what is missing.
    err, _, log = link_ptx([(b"main", main)])
    assert err == CU.CUDA_ERROR_NOT_FOUND, (err, log)
    assert "no body" in log, log
    # Defined twice: INVALID_PTX.
    err, _, log = link_ptx([(b"main", main), (b"lib", lib), (b"again", lib)])
    assert err == CU.CUDA_ERROR_INVALID_PTX, (err, log)
    assert "defined twice" in log, log


def core_run_scale(kernel, configs, scale, add):
    """Launches kernel(x, ...) with cuda.core, once per LaunchConfig, on
    x = 0, 1, ... 255; each launch makes x scale * x + add."""
    core, d = s["core"], s["core_dev"]
    stream = d.create_stream()
    n = 256
    buf = d.memory_resource.allocate(n * 4, stream=stream)
    host = np.arange(n, dtype=np.float32)
    call(driver.cuMemcpyHtoDAsync, int(buf.handle), host, host.nbytes, stream.handle)
    want = host.copy()
    for config, args in configs:
        core.launch(stream, config, kernel, buf, *args)
        want = scale * want + add
    out = np.zeros(n, dtype=np.float32)
    call(driver.cuMemcpyDtoHAsync, out, int(buf.handle), out.nbytes, stream.handle)
    stream.sync()
    assert np.array_equal(out, want), (out[:8], want[:8])
    buf.close(stream)
    stream.sync()
    stream.close()


def t_core_program():
    core = s["core"]
    prog = core.Program(NVRTC_SOURCE.decode(), "c++", core.ProgramOptions(arch="sm_90"))
    obj = prog.compile("ptx")
    prog.close()
    kernel = obj.get_kernel("twice")
    assert kernel.num_arguments == 2, kernel.num_arguments
    add = np.float32(0.5)
    # Plain, in clusters of 2 blocks (cuda.core's grid counts clusters
    # then), cooperative: cuLaunchKernelEx with its attributes.
    core_run_scale(kernel, [
        (core.LaunchConfig(grid=4, block=64), (add,)),
        (core.LaunchConfig(grid=2, cluster=2, block=64), (add,)),
        (core.LaunchConfig(grid=4, block=64, is_cooperative=True), (add,)),
    ], 2, 0.5)


def t_core_linker():
    core = s["core"]
    # nvJitLink links LTO IR into PTX, which cumc runs (into a cubin it
    # would be SASS, which cumc cannot: Documentation/testing.md).
    opts = core.ProgramOptions(arch="sm_90", relocatable_device_code=True,
                               link_time_optimization=True)
    objs = [core.Program(src.decode(), "c++", opts).compile("ltoir")
            for src in (LINK_MAIN, LINK_LIB)]
    linker = core.Linker(*objs, options=core.LinkerOptions(
        arch="sm_90", link_time_optimization=True, ptx=True))
    linked = linker.link("ptx")
    linker.close()
    core_run_scale(linked.get_kernel("scale_all"),
                   [(core.LaunchConfig(grid=8, block=32), ())], 3, 0.25)


def nvjitlink_missing():
    """Why cuda.bindings.nvjitlink cannot load nvJitLink here, or None."""
    try:
        from cuda.bindings import nvjitlink
        nvjitlink.version()
    except Exception as e:
        return "no nvJitLink for cuda.bindings.nvjitlink: %s" % str(e).splitlines()[0]
    return None


CHECKS = [
    ("cuda.bindings is the pinned 13.0.x release", t_version),
    ("before cuInit: cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED", t_not_initialized),
    ("cuInit(0)", t_init),
    ("the libcuda.so.1 loaded is libcumc", t_is_libcumc),
    ("cuDriverGetVersion answers 13010", t_driver_version),
    ("cuDeviceGetCount", t_device_count),
    ("cuDeviceGet and cuDeviceGetName for every device; a device past the last is INVALID_DEVICE",
     t_devices_and_names),
    ("cuDeviceGetAttribute: VMM, MULTICAST and POSIX fd handles supported on every device",
     t_attributes),
    ("primary context: retain, cuCtxSetCurrent, cuCtxGetCurrent, cuCtxGetDevice",
     t_primary_context),
    ("cuMemGetAllocationGranularity: minimum and recommended", t_granularity),
    ("cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess, cuMemGetAccess",
     t_create_reserve_map),
    ("cuMemcpyHtoD and cuMemcpyDtoH with numpy arrays, byte by byte", t_copy_numpy),
    ("cuMemcpyHtoD and cuMemcpyDtoH with bytearrays at an offset", t_copy_bytearray),
    ("cuArrayCreate and cuMemcpy2D: host to array to device, pitched", t_array_copy),
    ("export to a POSIX fd, import, map: the same memory both ways", t_export_import),
    ("unmap, release, free; a second release is INVALID_VALUE", t_unicast_teardown),
]
MC_CHECKS = [
    ("cuMulticastGetGranularity: minimum and recommended", t_mc_granularity),
    ("cuMulticastCreate over every device, cuMulticastAddDevice each; one more is refused",
     t_mc_create),
    ("cuMemCreate per device, mapped, cuMulticastBindMem", t_mc_bind),
    ("the multicast object mapped, access for every device", t_mc_map),
    ("cuMemcpyHtoD to the multicast address reaches every member", t_mc_broadcast),
    ("a small write at an offset reaches every member, nothing else changes",
     t_mc_partial_broadcast),
    ("cuMemcpyDtoH from a multicast address is INVALID_VALUE", t_mc_no_reads),
    ("unbind, unmap, release, free; the released object is INVALID_VALUE", t_mc_teardown),
]
END_CHECKS = [
    ("garbage handles: INVALID_VALUE for allocations, INVALID_CONTEXT for contexts",
     t_garbage_handles),
    ("unmapped addresses and a foreign fd: INVALID_VALUE", t_bad_addresses),
    ("cuGetErrorName and cuGetErrorString", t_error_names),
    ("cuGetProcAddress: a known name, and an unknown one as NVIDIA's driver answers it",
     t_proc_address),
    ("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1: copies and sets through the _ptds lookups",
     t_per_thread_default_stream),
    ("a graph of a set and a copy node, and one captured from a stream, launched",
     t_graph),
    ("cuGraphAddNode: IF and SWITCH nodes on their handles' defaults run the body picked",
     t_graph_conditional),
    ("cuMemAllocAsync and cuMemFreeAsync captured as memory nodes, launched",
     t_graph_memory),
    ("cuMemAllocManaged, cuMemAdvise, cuMemPrefetchAsync, cuMemRangeGetAttribute",
     t_managed),
    ("cuDevicePrimaryCtxRelease", t_release_context),
]
CORE_CHECKS = [
    ("cuda.core is the pinned release", t_core_version),
    ("cuda.core Device: every device, set_current, name, uuid, properties",
     t_core_devices),
    ("cuda.core VirtualMemoryResource: allocate with a peer, access, copies through it",
     t_core_vmm),
    ("cuda.core Buffer.close unmaps and frees", t_core_close),
    ("cuda.core streams, events and the device's memory pool: copies in stream order",
     t_core_stream_pool),
]


def main():
    for name, fn in CHECKS:
        check(name, fn)
    if s.get("count", 0) >= 2:
        for name, fn in MC_CHECKS:
            check(name, fn)
    else:
        for name, _ in MC_CHECKS:
            skip(name, "multicast needs 2 devices, there are %d" % s.get("count", 0))
    nvrtc_name = ("cuda.bindings.nvrtc compiles a kernel on libcumc; "
                  "cuModuleLoadData and cuLaunchKernel run it")
    link_name = ("cuLinkAddData of two NVRTC -rdc=true inputs, one calling and reading "
                 "the other's, cuLinkComplete, run; symbols missing or defined twice refused")
    why = nvrtc_missing()
    if why:
        skip(nvrtc_name, why)
        skip(link_name, why)
    else:
        check(nvrtc_name, t_nvrtc)
        check(link_name, t_driver_link)
    for name, fn in END_CHECKS + CORE_CHECKS:
        check(name, fn)
    program_name = ("cuda.core Program (NVRTC, PTX) and launch: plain, clusters, "
                    "cooperative (cuLaunchKernelEx)")
    linker_name = ("cuda.core Linker (nvJitLink, LTO IR to PTX) of two programs, "
                   "one calling the other's function, launched")
    if why:
        skip(program_name, why)
    else:
        check(program_name, t_core_program)
    why = why or nvjitlink_missing()
    if why:
        skip(linker_name, why)
    else:
        check(linker_name, t_core_linker)
    for name, fn in test_pynvml.CHECKS:
        check(name, fn)
    print("1..%d" % tap_n)
    return 1 if tap_failed else 0


if __name__ == "__main__":
    sys.exit(main())
