#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print what the libnvidia-ml.so.1 of this machine answers to the calls
cumc's NVML implements (Documentation/nvml.md), for GPU 0, one line each:
return codes and values. ctypes only, no pynvml. Run on a machine with
NVIDIA's driver; nvml/<driver>.txt beside it is its output."""
import ctypes as C

L = C.CDLL("libnvidia-ml.so.1")
U = C.c_uint


class Pci(C.Structure):
    _fields_ = [("legacy", C.c_char * 16), ("domain", U), ("bus", U),
                ("device", U), ("id", U), ("subsys", U), ("busId", C.c_char * 32)]


class Fabric(C.Structure):
    _fields_ = [("version", U), ("cluster", C.c_ubyte * 16), ("status", C.c_int),
                ("clique", U), ("state", C.c_ubyte), ("mask", U), ("summary", C.c_ubyte)]


class FieldValue(C.Structure):
    _fields_ = [("fieldId", U), ("scopeId", U), ("timestamp", C.c_longlong),
                ("latencyUsec", C.c_longlong), ("valueType", C.c_int),
                ("nvmlReturn", C.c_int), ("value", C.c_ulonglong)]


def out(*a):
    print(*a)


out("init", L.nvmlInit_v2())
h = C.c_void_p()
out("handle 0", L.nvmlDeviceGetHandleByIndex_v2(0, C.byref(h)))
for ver in (3, 2, 7):
    f = Fabric(version=(C.sizeof(Fabric) if ver == 3 else 0x24) | ver << 24)
    r = L.nvmlDeviceGetGpuFabricInfoV(h, C.byref(f))
    out("fabric v%d" % ver, r, bytes(f.cluster).hex(), f.status, f.clique,
        f.state, hex(f.mask), f.summary)
p = Pci()
out("pci v3", L.nvmlDeviceGetPciInfo_v3(h, C.byref(p)), p.legacy, p.busId, hex(p.id))
b = C.create_string_buffer(96)
out("uuid", L.nvmlDeviceGetUUID(h, b, 96), "len 10:", L.nvmlDeviceGetUUID(h, b, 10))
out("name", L.nvmlDeviceGetName(h, b, 96), b.value, "len 3:", L.nvmlDeviceGetName(h, b, 3))
out("nvml version", L.nvmlSystemGetNVMLVersion(b, 96), b.value)
i = C.c_int()
out("cuda version", L.nvmlSystemGetCudaDriverVersion(C.byref(i)), i.value)
for link in (0, 17, 18, 36):
    a, c, t, q = C.c_int(-1), U(9), C.c_int(-1), Pci()
    out("link", link, "state", L.nvmlDeviceGetNvLinkState(h, link, C.byref(a)), a.value,
        "p2p", L.nvmlDeviceGetNvLinkCapability(h, link, 0, C.byref(c)), c.value,
        "type", L.nvmlDeviceGetNvLinkRemoteDeviceType(h, link, C.byref(t)), t.value,
        "remote", L.nvmlDeviceGetNvLinkRemotePciInfo_v2(h, link, C.byref(q)), q.busId)
n = U()
out("index", L.nvmlDeviceGetIndex(h, C.byref(n)), n.value,
    "minor", L.nvmlDeviceGetMinorNumber(h, C.byref(n)), n.value,
    "compute mode", L.nvmlDeviceGetComputeMode(h, C.byref(n)), n.value)
st = C.c_int(-1)
out("p2p self", *[(L.nvmlDeviceGetP2PStatus(h, h, k, C.byref(st)), st.value)
                  for k in range(6)],
    "null", L.nvmlDeviceGetP2PStatus(h, h, 0, None),
    "none", L.nvmlDeviceGetP2PStatus(h, None, 0, C.byref(st)))
# NVML_FI_DEV_NVLINK_GET_STATE (165) of links 0, 17 and 18; a field no
# NVML has: each value's return, type and value.
fv = (FieldValue * 4)()
for i, (f, s) in enumerate(((165, 0), (165, 17), (165, 18), (9999, 0))):
    fv[i].fieldId, fv[i].scopeId, fv[i].value = f, s, 0xdead
out("field values", L.nvmlDeviceGetFieldValues(h, 4, fv),
    *[(v.nvmlReturn, v.valueType, hex(v.value)) for v in fv],
    "count 0", L.nvmlDeviceGetFieldValues(h, 0, fv),
    "null", L.nvmlDeviceGetFieldValues(h, 1, None))
x = C.c_void_p()
out("index 99", L.nvmlDeviceGetHandleByIndex_v2(99, C.byref(x)))
out("uuid of none", L.nvmlDeviceGetHandleByUUID(b"GPU-00000000-0000-0000-0000-000000000000", C.byref(x)))
out("uuid malformed", L.nvmlDeviceGetHandleByUUID(b"xyz", C.byref(x)))
out("bus id of none", L.nvmlDeviceGetHandleByPciBusId_v2(b"0000:ee:00.0", C.byref(x)))
out("bus id malformed", L.nvmlDeviceGetHandleByPciBusId_v2(b"zz", C.byref(x)))
out("shutdown", L.nvmlShutdown(), "again", L.nvmlShutdown(),
    "count after", L.nvmlDeviceGetCount_v2(C.byref(n)))
