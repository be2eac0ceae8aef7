# SPDX-License-Identifier: MIT
"""nvidia-ml-py (pynvml) on cumc's libnvidia-ml.so.1, beside cuda.bindings
on libcumc: the calls a Python user, and the stacks that probe the
fabric, make. test_cuda_bindings.py runs CHECKS after its own, with its TAP
helpers; each check raises on failure. What NVML says of a device, and of
the fabric, must be what the driver API and the control plane say.
"""

import ctypes
import importlib.metadata
import os

import pynvml as N
from cuda.bindings import driver

PINNED = os.environ.get("CUMC_PINNED_NVML_PY")
s = {}


def cu(fn, *args):
    out = fn(*args)
    err, rest = out[0], out[1:]
    assert err == driver.CUresult.CUDA_SUCCESS, (fn.__name__, err)
    return rest[0] if len(rest) == 1 else rest


def t_pinned():
    version = importlib.metadata.version("nvidia-ml-py")
    assert not PINNED or version == PINNED, (version, PINNED)


def t_uninitialized():
    try:
        N.nvmlDeviceGetCount()
    except N.NVMLError_Uninitialized:
        return
    raise AssertionError("nvmlDeviceGetCount answered before nvmlInit")


def t_init_is_cumc():
    N.nvmlInit()
    with open("/proc/self/maps") as f:
        libs = {os.path.realpath(line.split()[-1]) for line in f
                if "libnvidia-ml" in line}
    want = os.environ.get("CUMC_NVML")
    assert libs and (not want or libs == {want}), sorted(libs)


def t_versions():
    assert N.nvmlSystemGetCudaDriverVersion() == cu(driver.cuDriverGetVersion)
    assert N.nvmlSystemGetNVMLVersion().startswith("13.")
    assert N.nvmlSystemGetDriverVersion()


def t_devices_agree():
    n = N.nvmlDeviceGetCount()
    assert n == cu(driver.cuDeviceGetCount), n
    A = driver.CUdevice_attribute
    for i in range(n):
        h = N.nvmlDeviceGetHandleByIndex(i)
        dev = cu(driver.cuDeviceGet, i)
        name = cu(driver.cuDeviceGetName, 256, dev).split(b"\0")[0].decode()
        assert N.nvmlDeviceGetName(h) == name
        u = bytes(cu(driver.cuDeviceGetUuid, dev).bytes).hex()
        want = "GPU-%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20], u[20:])
        assert N.nvmlDeviceGetUUID(h) == want, (N.nvmlDeviceGetUUID(h), want)
        pci = N.nvmlDeviceGetPciInfo(h)
        assert pci.bus == cu(driver.cuDeviceGetAttribute, A.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev)
        assert pci.device == cu(driver.cuDeviceGetAttribute, A.CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev)
        same = N.nvmlDeviceGetHandleByPciBusId(pci.busId)
        assert N.nvmlDeviceGetIndex(same) == i
        assert N.nvmlDeviceGetIndex(N.nvmlDeviceGetHandleByUUID(want)) == i
        assert N.nvmlDeviceGetMemoryInfo(h).total == cu(driver.cuDeviceTotalMem, dev)
        assert N.nvmlDeviceGetCudaComputeCapability(h) == (9, 0)
        assert N.nvmlDeviceGetComputeMode(h) == N.NVML_COMPUTEMODE_DEFAULT


def t_fabric_info():
    # As NCCL's MNNVL check reads it: state, status, cluster and clique.
    for i in range(N.nvmlDeviceGetCount()):
        h = N.nvmlDeviceGetHandleByIndex(i)
        info = N.c_nvmlGpuFabricInfo_v3_t()
        info.version = N.nvmlGpuFabricInfo_v3
        N.nvmlDeviceGetGpuFabricInfoV(h, ctypes.byref(info))
        assert info.state in (N.NVML_GPU_FABRIC_STATE_NOT_SUPPORTED,
                              N.NVML_GPU_FABRIC_STATE_COMPLETED), info.state
        assert info.status == N.NVML_SUCCESS
        if info.state == N.NVML_GPU_FABRIC_STATE_COMPLETED:
            assert any(bytes(info.clusterUuid)), "completed without a cluster"
            assert info.healthSummary == N.NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY
        old = N.c_nvmlGpuFabricInfo_t()
        N.nvmlDeviceGetGpuFabricInfo(h, ctypes.byref(old))
        assert old.state == info.state and bytes(old.clusterUuid) == bytes(info.clusterUuid)


# An H100's links; pynvml's NVML_NVLINK_MAX_LINKS is a later header's 36,
# and links past a GPU's own answer INVALID_ARGUMENT, as NVIDIA's driver does.
H100_LINKS = 18


def t_nvlink():
    h = N.nvmlDeviceGetHandleByIndex(0)
    try:
        N.nvmlDeviceGetNvLinkState(h, H100_LINKS)
        raise AssertionError("link %d answered" % H100_LINKS)
    except N.NVMLError_InvalidArgument:
        pass
    for link in range(H100_LINKS):
        assert N.nvmlDeviceGetNvLinkState(h, link) == N.NVML_FEATURE_ENABLED
        assert N.nvmlDeviceGetNvLinkCapability(h, link, N.NVML_NVLINK_CAP_P2P_SUPPORTED) == 1
        assert N.nvmlDeviceGetNvLinkRemoteDeviceType(h, link) == N.NVML_NVLINK_DEVICE_TYPE_SWITCH
        assert N.nvmlDeviceGetNvLinkRemotePciInfo(h, link).bus == 0xff


def t_not_supported():
    try:
        N.nvmlDeviceGetPowerUsage(N.nvmlDeviceGetHandleByIndex(0))
    except N.NVMLError_NotSupported:
        return
    raise AssertionError("nvmlDeviceGetPowerUsage answered")


def t_shutdown():
    N.nvmlShutdown()
    try:
        N.nvmlShutdown()
    except N.NVMLError_Uninitialized:
        return
    raise AssertionError("a second nvmlShutdown succeeded")


CHECKS = [
    ("pynvml: nvidia-ml-py is the pinned release", t_pinned),
    ("pynvml: calls before nvmlInit answer UNINITIALIZED", t_uninitialized),
    ("pynvml: nvmlInit loads cumc's libnvidia-ml.so.1", t_init_is_cumc),
    ("pynvml: versions agree with cuDriverGetVersion", t_versions),
    ("pynvml: devices agree with the driver API", t_devices_agree),
    ("pynvml: fabric info, every version", t_fabric_info),
    ("pynvml: every NVLink up, to an NVSwitch", t_nvlink),
    ("pynvml: other functions answer NOT_SUPPORTED", t_not_supported),
    ("pynvml: nvmlShutdown is counted", t_shutdown),
]
