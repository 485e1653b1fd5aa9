#!/usr/bin/env python3
"""rocmcheck smoke payload.

Self-contained (standard library only, Python >= 3.8).  Copied into a
container image by rocmcheck and run there.  It prints exactly one JSON
document on stdout ("payload_schema": 1); all diagnostics go to stderr.

Steps, each timed and guarded by a watchdog:
  runtime    load the HIP runtime (or the CUDA runtime, by the same calls)
             through ctypes; versions, device count, per-device name, arch
             and memory; every error code mapped to its name
  blas       load hipBLAS (or cuBLAS), create and destroy a handle per device
  memory     largest single allocation (search to within --mem-tolerance of
             free memory) and a fragmentation pattern, all freed again
  torch      (child process) torch versions, is_available, per-device arch
             and memory, BLAS handle, small GEMMs in fp32/fp16 checked
             against the CPU, allocator statistics and settings
  conv       (child process, with the next three) conv2d forward and
             backward through cuDNN (MIOpen on ROCm), checked against the CPU
  attention  scaled_dot_product_attention on each fused kernel the build
             has (flash, mem_efficient), checked against a CPU reference;
             skipped when no fused kernel runs on the device
  compile    a torch.compile'd function (Inductor, Triton code generation),
             checked against eager; skipped when triton is not installed
  gemm_bf16  bf16 matmul and addmm+bias with the Lt BLAS preferred (hipBLASLt
             on ROCm, cuBLASLt on CUDA); skipped when bf16 is unsupported
  check:NAME (--team-checks) each of the team's own checks: a shell command or
             a Python file, its exit code against the expected one, a timeout,
             the tail of its output
  multi_gpu  (--multi-gpu) peer-access matrix and a torch.distributed
             all-reduce (nccl/rccl) across one process per GPU

classification: pass | no-device | runtime-missing | hipblas-failed |
                alloc-failed | torch-failed | conv-failed | attention-failed |
                compile-failed | gemm-bf16-failed | team-check-failed |
                hang | crash
A skipped step is never a pass of that step: its record says "skipped" and why.
The process exits 0 whenever the JSON document was printed (also for a hang,
which the watchdog reports and then ends the process with os._exit), 2 for
bad arguments.
"""

import argparse
import ctypes
import ctypes.util
import glob
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback

PAYLOAD_SCHEMA = 1
PAYLOAD_VERSION = "0.1.0"
MIB = 1 << 20
GRAN = 2 * MIB  # allocation sizes are multiples of this

# --------------------------------------------------------------------------
# Error-code tables (fallbacks when the runtime's own *GetErrorName fails)
# --------------------------------------------------------------------------

HIP_ERRORS = {
    0: "hipSuccess",
    1: "hipErrorInvalidValue",
    2: "hipErrorOutOfMemory",
    3: "hipErrorNotInitialized",
    4: "hipErrorDeinitialized",
    35: "hipErrorInsufficientDriver",
    98: "hipErrorInvalidDeviceFunction",
    100: "hipErrorNoDevice",
    101: "hipErrorInvalidDevice",
    200: "hipErrorInvalidImage",
    201: "hipErrorInvalidContext",
    209: "hipErrorNoBinaryForGpu",
    217: "hipErrorPeerAccessUnsupported",
    303: "hipErrorSharedObjectInitFailed",
    304: "hipErrorOperatingSystem",
    400: "hipErrorInvalidHandle",
    500: "hipErrorNotFound",
    600: "hipErrorNotReady",
    700: "hipErrorIllegalAddress",
    719: "hipErrorLaunchFailure",
    801: "hipErrorNotSupported",
    999: "hipErrorUnknown",
    1052: "hipErrorRuntimeMemory",
    1053: "hipErrorRuntimeOther",
}

CUDA_ERRORS = {
    0: "cudaSuccess",
    1: "cudaErrorInvalidValue",
    2: "cudaErrorMemoryAllocation",
    3: "cudaErrorInitializationError",
    4: "cudaErrorCudartUnloading",
    34: "cudaErrorStubLibrary",
    35: "cudaErrorInsufficientDriver",
    36: "cudaErrorCallRequiresNewerDriver",
    46: "cudaErrorDevicesUnavailable",
    98: "cudaErrorInvalidDeviceFunction",
    100: "cudaErrorNoDevice",
    101: "cudaErrorInvalidDevice",
    209: "cudaErrorNoKernelImageForDevice",
    217: "cudaErrorPeerAccessUnsupported",
    222: "cudaErrorUnsupportedPtxVersion",
    304: "cudaErrorOperatingSystem",
    400: "cudaErrorInvalidResourceHandle",
    700: "cudaErrorIllegalAddress",
    719: "cudaErrorLaunchFailure",
    801: "cudaErrorNotSupported",
    803: "cudaErrorSystemDriverMismatch",
    804: "cudaErrorCompatNotSupportedOnDevice",
    999: "cudaErrorUnknown",
}

# hipblasStatus_t, in hipblas.h's order (0..11)
HIPBLAS_STATUS = {
    0: "HIPBLAS_STATUS_SUCCESS",
    1: "HIPBLAS_STATUS_NOT_INITIALIZED",
    2: "HIPBLAS_STATUS_ALLOC_FAILED",
    3: "HIPBLAS_STATUS_INVALID_VALUE",
    4: "HIPBLAS_STATUS_MAPPING_ERROR",
    5: "HIPBLAS_STATUS_EXECUTION_FAILED",
    6: "HIPBLAS_STATUS_INTERNAL_ERROR",
    7: "HIPBLAS_STATUS_NOT_SUPPORTED",
    8: "HIPBLAS_STATUS_ARCH_MISMATCH",
    9: "HIPBLAS_STATUS_HANDLE_IS_NULLPTR",
    10: "HIPBLAS_STATUS_INVALID_ENUM",
    11: "HIPBLAS_STATUS_UNKNOWN",
}

CUBLAS_STATUS = {
    0: "CUBLAS_STATUS_SUCCESS",
    1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED",
    7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH",
    11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED",
    14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED",
    16: "CUBLAS_STATUS_LICENSE_ERROR",
}

# --------------------------------------------------------------------------
# Per-runtime tables: the HIP and CUDA paths make the same calls.
# --------------------------------------------------------------------------

RUNTIMES = {
    "hip": {
        "libs": ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                 "libamdhip64.so.5"],
        "env_dirs": ["ROCM_PATH", "HIP_PATH"],
        "sys_dirs": ["/opt/rocm/lib"],
        "sys_globs": ["/opt/rocm-*/lib"],
        "site_globs": ["torch/lib/libamdhip64.so*"],
        "sym": {
            "get_device_count": "hipGetDeviceCount",
            "runtime_version": "hipRuntimeGetVersion",
            "driver_version": "hipDriverGetVersion",
            "set_device": "hipSetDevice",
            "mem_get_info": "hipMemGetInfo",
            "malloc": "hipMalloc",
            "free": "hipFree",
            "get_last_error": "hipGetLastError",
            "error_name": "hipGetErrorName",
            "error_string": "hipGetErrorString",
            "device_get_attribute": "hipDeviceGetAttribute",
            "device_get_name": "hipDeviceGetName",
            "device_get_pci_bus_id": "hipDeviceGetPCIBusId",
            "can_access_peer": "hipDeviceCanAccessPeer",
            "device_synchronize": "hipDeviceSynchronize",
            "device_reset": "hipDeviceReset",
            "get_props": ["hipGetDevicePropertiesR0600", "hipGetDeviceProperties"],
        },
        "errors": HIP_ERRORS,
        "blas": {
            "name": "hipblas",
            "libs": ["libhipblas.so", "libhipblas.so.3", "libhipblas.so.2",
                     "libhipblas.so.1", "libhipblas.so.0"],
            "site_globs": ["torch/lib/libhipblas.so*"],
            "create": "hipblasCreate",
            "destroy": "hipblasDestroy",
            "status_to_string": "hipblasStatusToString",
            "status": HIPBLAS_STATUS,
        },
    },
    "cuda": {
        "libs": ["libcudart.so", "libcudart.so.13", "libcudart.so.12",
                 "libcudart.so.11.0"],
        "env_dirs": ["CUDA_PATH", "CUDA_HOME"],
        "sys_dirs": ["/usr/local/cuda/lib64"],
        "sys_globs": ["/usr/local/cuda-*/lib64"],
        "site_globs": ["nvidia/cuda_runtime/lib/libcudart.so*",
                       "nvidia/cu*/lib/libcudart.so*",
                       "torch/lib/libcudart.so*"],
        "sym": {
            "get_device_count": "cudaGetDeviceCount",
            "runtime_version": "cudaRuntimeGetVersion",
            "driver_version": "cudaDriverGetVersion",
            "set_device": "cudaSetDevice",
            "mem_get_info": "cudaMemGetInfo",
            "malloc": "cudaMalloc",
            "free": "cudaFree",
            "get_last_error": "cudaGetLastError",
            "error_name": "cudaGetErrorName",
            "error_string": "cudaGetErrorString",
            "device_get_attribute": "cudaDeviceGetAttribute",
            "device_get_name": None,  # name: cudaDeviceProp.name (offset 0)
            "device_get_pci_bus_id": "cudaDeviceGetPCIBusId",
            "can_access_peer": "cudaDeviceCanAccessPeer",
            "device_synchronize": "cudaDeviceSynchronize",
            "device_reset": "cudaDeviceReset",
            "get_props": ["cudaGetDeviceProperties_v2", "cudaGetDeviceProperties"],
        },
        "errors": CUDA_ERRORS,
        "blas": {
            "name": "cublas",
            "libs": ["libcublas.so", "libcublas.so.13", "libcublas.so.12",
                     "libcublas.so.11"],
            "site_globs": ["nvidia/cublas/lib/libcublas.so*",
                           "nvidia/cu*/lib/libcublas.so*",
                           "torch/lib/libcublas.so*"],
            "create": "cublasCreate_v2",
            "destroy": "cublasDestroy_v2",
            "status_to_string": "cublasGetStatusName",
            "status": CUBLAS_STATUS,
        },
    },
}

# cudaDeviceAttr values (stable across CUDA versions)
CUDA_ATTR_MULTIPROCESSOR_COUNT = 16
CUDA_ATTR_CC_MAJOR = 75
CUDA_ATTR_CC_MINOR = 76

ENV_KEYS = [
    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL", "HSA_OVERRIDE_GFX_VERSION", "HSA_XNACK",
    "HSA_ENABLE_SDMA", "ROCM_PATH", "HIP_PATH", "LD_LIBRARY_PATH",
    "PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_NO_HIP_MEMORY_CACHING", "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "PYTORCH_ROCM_ARCH", "NCCL_DEBUG", "NCCL_P2P_DISABLE", "NCCL_NVLS_ENABLE",
]
ALLOC_ENV_KEYS = [
    "PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_NO_HIP_MEMORY_CACHING", "PYTORCH_NO_CUDA_MEMORY_CACHING",
]


def sanitize(o):
    """Strict JSON: non-finite floats become null."""
    if isinstance(o, float):
        return o if o == o and o not in (float("inf"), float("-inf")) else None
    if isinstance(o, dict):
        return dict((k, sanitize(v)) for k, v in list(o.items()))
    if isinstance(o, (list, tuple)):
        return [sanitize(v) for v in list(o)]
    return o


def log(msg):
    sys.stderr.write("payload: %s\n" % msg)
    sys.stderr.flush()


def now_ms():
    return time.monotonic() * 1000.0


def rnd(x, nd=3):
    return None if x is None else round(float(x), nd)


class StepFailed(Exception):
    """A step failed in a way it already described in its record."""


# --------------------------------------------------------------------------
# Report + watchdog
# --------------------------------------------------------------------------

class Report(object):
    def __init__(self, args):
        self.lock = threading.RLock()
        self.emitted = False
        self.t0 = now_ms()
        self.doc = {
            "payload_schema": PAYLOAD_SCHEMA,
            "payload_version": PAYLOAD_VERSION,
            "classification": None,
            "classification_detail": None,
            "runtime": None,
            "host": host_info(),
            "env": dict((k, os.environ[k]) for k in ENV_KEYS if k in os.environ),
            "options": {
                "runtime": args.runtime,
                "torch": not args.no_torch,
                "multi_gpu": args.multi_gpu,
                "step_timeout_s": args.step_timeout,
                "mem_tolerance": args.mem_tolerance,
                "hang_for_s": args.hang_for,
                "hang_step": args.hang_step if args.hang_for else None,
                "layers": not args.no_layers,
                "break_step": args.break_step,
            },
            "steps": {},
            "problems": [],
            "total_ms": None,
        }

    def step(self, name):
        rec = {"status": "running", "ms": None, "error": None}
        with self.lock:
            self.doc["steps"][name] = rec
        return rec

    def problem(self, code, detail):
        with self.lock:
            self.doc["problems"].append({"code": code, "detail": detail})

    def emit(self):
        """Print the document once. Returns False if it was already printed."""
        with self.lock:
            if self.emitted:
                return False
            self.emitted = True
            self.doc["total_ms"] = rnd(now_ms() - self.t0, 1)
            text = None
            for _ in range(5):  # another thread may be mid-update
                try:
                    text = json.dumps(sanitize(self.doc), indent=2, allow_nan=False)
                    break
                except (RuntimeError, ValueError):
                    time.sleep(0.01)
            if text is None:
                text = json.dumps({"payload_schema": PAYLOAD_SCHEMA,
                                   "classification": "crash",
                                   "classification_detail": "could not serialise report"})
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
            return True


class Watchdog(object):
    """Ends the process with the JSON so far if a step overruns its deadline.

    A hung ctypes call cannot be interrupted, so the watchdog thread prints
    the report itself and leaves with os._exit."""

    def __init__(self, report):
        self.report = report
        self.cond = threading.Condition()
        self.armed = None  # (name, rec, deadline, timeout, start)
        t = threading.Thread(target=self._run, name="watchdog")
        t.daemon = True
        t.start()

    def arm(self, name, rec, timeout, start):
        with self.cond:
            self.armed = (name, rec, time.monotonic() + timeout, timeout, start)
            self.cond.notify()

    def disarm(self):
        with self.cond:
            self.armed = None
            self.cond.notify()

    def _run(self):
        while True:
            with self.cond:
                while self.armed is None:
                    self.cond.wait()
                name, rec, deadline, timeout, start = self.armed
                left = deadline - time.monotonic()
                if left > 0:
                    self.cond.wait(min(left, 0.5))
                    continue
                # expired while still armed
                with self.report.lock:
                    rec["status"] = "timeout"
                    rec["ms"] = rnd(now_ms() - start, 1)
                    rec["error"] = ("step '%s' did not finish within %g s"
                                    % (name, timeout))
                    doc = self.report.doc
                    doc["classification"] = "hang"
                    doc["classification_detail"] = name
                    for other, orec in doc["steps"].items():
                        if orec is not rec and orec.get("status") == "running":
                            orec["status"] = "timeout"
                    log("step %s timed out after %g s; reporting and exiting" % (name, timeout))
                    self.report.emit()
                try:
                    sys.stderr.flush()
                finally:
                    os._exit(0)


def run_step(report, watchdog, name, timeout, fn, *fargs):
    rec = report.step(name)
    start = now_ms()
    watchdog.arm(name, rec, timeout, start)
    try:
        fn(rec, *fargs)
        if rec["status"] == "running":
            rec["status"] = "ok"
    except StepFailed as e:
        rec["status"] = "failed"
        if not rec.get("error"):
            rec["error"] = str(e)
    except Exception as e:  # a bug or an unexpected runtime behaviour
        rec["status"] = "failed"
        rec["error"] = "%s: %s" % (type(e).__name__, e)
        rec["traceback"] = traceback.format_exc(limit=6)
    finally:
        watchdog.disarm()
        rec["ms"] = rnd(now_ms() - start, 1)
    return rec


def maybe_hang(args, step):
    if args.hang_for and args.hang_step == step:
        log("--hang-for: sleeping %g s inside step %s" % (args.hang_for, step))
        time.sleep(args.hang_for)


# --------------------------------------------------------------------------
# Library loading
# --------------------------------------------------------------------------

def host_info():
    u = platform.uname()
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "system": u.system,
        "kernel": u.release,
        "machine": u.machine,
        "pid": os.getpid(),
        "amdgpu_driver": amdgpu_driver(),
    }


def amdgpu_driver():
    """The host's amdgpu kernel driver version (sysfs is the host's, also in a container): the
    DKMS module writes /sys/module/amdgpu/version; the in-tree driver has none (then the kernel
    release names it)."""
    try:
        with open("/sys/module/amdgpu/version") as f:
            v = f.read().strip()
            return v or None
    except (OSError, UnicodeDecodeError):
        return None


def site_dirs():
    dirs = []
    try:
        import site
        for d in site.getsitepackages():
            dirs.append(d)
        dirs.append(site.getusersitepackages())
    except Exception:
        pass
    for p in sys.path:
        if p and (p.endswith("site-packages") or p.endswith("dist-packages")):
            dirs.append(p)
    seen, out = set(), []
    for d in dirs:
        if d and d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def candidate_paths(names, env_dirs, sys_dirs, sys_globs, site_globs):
    """Ordered (path, how) candidates: env dirs, system dirs, loader, site-packages."""
    cands = []
    dirs = []
    for e in env_dirs:
        v = os.environ.get(e)
        if v:
            dirs += [os.path.join(v, "lib"), os.path.join(v, "lib64")]
    dirs += sys_dirs
    for g in sys_globs:
        dirs += sorted(glob.glob(g), reverse=True)
    for d in dirs:
        for n in names:
            cands.append((os.path.join(d, n), "dir"))
    for n in names:
        cands.append((n, "loader"))
    for sd in site_dirs():
        for g in site_globs:
            for p in sorted(glob.glob(os.path.join(sd, g))):
                cands.append((p, "site-packages"))
    return cands


def load_library(cands):
    """Try each candidate; returns (CDLL or None, path, tried list)."""
    tried = []
    seen = set()
    for path, how in cands:
        if path in seen:
            continue
        seen.add(path)
        if how != "loader" and not os.path.exists(path):
            tried.append({"path": path, "error": "not found"})
            continue
        try:
            lib = ctypes.CDLL(path)
            tried.append({"path": path, "error": None})
            return lib, path, tried
        except OSError as e:
            msg = str(e)
            if how == "loader" and "cannot open shared object file" in msg:
                msg = "not found by the dynamic loader"
            tried.append({"path": path, "error": msg})
    return None, None, tried


def loaded_path(lib, fallback):
    """Real path of a loaded library, from /proc/self/maps when possible."""
    try:
        name = getattr(lib, "_name", "") or ""
        base = os.path.basename(name).split(".so")[0]
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6 and os.path.basename(parts[5]).startswith(base + ".so"):
                    return parts[5]
    except Exception:
        pass
    return fallback


# --------------------------------------------------------------------------
# The runtime wrapper (same calls for HIP and CUDA)
# --------------------------------------------------------------------------

class Runtime(object):
    def __init__(self, kind, lib, path):
        self.kind = kind
        self.table = RUNTIMES[kind]
        self.lib = lib
        self.path = path
        self.fns = {}
        c_int_p = ctypes.POINTER(ctypes.c_int)
        c_size_p = ctypes.POINTER(ctypes.c_size_t)
        c_void_pp = ctypes.POINTER(ctypes.c_void_p)
        proto = {
            "get_device_count": (ctypes.c_int, [c_int_p]),
            "runtime_version": (ctypes.c_int, [c_int_p]),
            "driver_version": (ctypes.c_int, [c_int_p]),
            "set_device": (ctypes.c_int, [ctypes.c_int]),
            "mem_get_info": (ctypes.c_int, [c_size_p, c_size_p]),
            "malloc": (ctypes.c_int, [c_void_pp, ctypes.c_size_t]),
            "free": (ctypes.c_int, [ctypes.c_void_p]),
            "get_last_error": (ctypes.c_int, []),
            "error_name": (ctypes.c_char_p, [ctypes.c_int]),
            "error_string": (ctypes.c_char_p, [ctypes.c_int]),
            "device_get_attribute": (ctypes.c_int, [c_int_p, ctypes.c_int, ctypes.c_int]),
            "device_get_name": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]),
            "device_get_pci_bus_id": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]),
            "can_access_peer": (ctypes.c_int, [c_int_p, ctypes.c_int, ctypes.c_int]),
            "device_synchronize": (ctypes.c_int, []),
            "device_reset": (ctypes.c_int, []),
            "get_props": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
        }
        self.missing = []
        for key, (res, argt) in proto.items():
            names = self.table["sym"].get(key)
            if names is None:
                continue
            if isinstance(names, str):
                names = [names]
            for n in names:
                f = getattr_or_none(lib, n)
                if f is not None:
                    f.restype = res
                    f.argtypes = argt
                    self.fns[key] = (n, f)
                    break
            else:
                self.missing.append(names[0])

    def has(self, key):
        return key in self.fns

    def call(self, key, *a):
        if key not in self.fns:
            raise StepFailed("symbol %s missing from %s" % (self.table["sym"][key], self.path))
        return self.fns[key][1](*a)

    def err_name(self, code):
        if code is None:
            return None
        name = None
        if "error_name" in self.fns:
            try:
                r = self.fns["error_name"][1](code)
                if r:
                    name = r.decode("utf-8", "replace")
            except Exception:
                name = None
        if (not name or name.lower().startswith("unknown")
                or (name in ("hipErrorUnknown", "cudaErrorUnknown") and code != 999)):
            name = self.table["errors"].get(code, name or "error %d" % code)
        return name

    def err_string(self, code):
        if "error_string" in self.fns:
            try:
                r = self.fns["error_string"][1](code)
                if r:
                    return r.decode("utf-8", "replace")
            except Exception:
                pass
        return None

    def err(self, code):
        """{code, name, message} for a non-zero return code."""
        return {"code": code, "name": self.err_name(code), "message": self.err_string(code)}

    def clear_error(self):
        if "get_last_error" in self.fns:
            try:
                return self.fns["get_last_error"][1]()
            except Exception:
                return None
        return None

    def int_out(self, key, *pre):
        v = ctypes.c_int(0)
        rc = self.call(key, ctypes.byref(v), *pre)
        return rc, v.value

    def mem_info(self):
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        rc = self.call("mem_get_info", ctypes.byref(free), ctypes.byref(total))
        return rc, free.value, total.value

    def try_alloc(self, n):
        """Allocate n bytes; returns (ptr or None, rc)."""
        p = ctypes.c_void_p()
        rc = self.call("malloc", ctypes.byref(p), ctypes.c_size_t(n))
        if rc != 0 or not p.value:
            self.clear_error()  # clear the (sticky on some runtimes) OOM state
            return None, rc if rc != 0 else -1
        return p.value, 0

    def free(self, ptr):
        return self.call("free", ctypes.c_void_p(ptr))


def getattr_or_none(lib, name):
    try:
        return getattr(lib, name)
    except AttributeError:
        return None


def decode_version(kind, v):
    if v is None:
        return None
    if kind == "hip":
        # HIP_VERSION = major * 10000000 + minor * 100000 + patch
        if v >= 10000000:
            return "%d.%d.%d" % (v // 10000000, (v // 100000) % 100, v % 100000)
        return str(v)
    # CUDA: 1000 * major + 10 * minor
    return "%d.%d" % (v // 1000, (v % 1000) // 10)


GFX_RE = re.compile(rb"gfx[0-9a-f]{2,5}(?::[a-zA-Z0-9+\-]+)*")


def read_props(rt, dev):
    """Raw device-properties buffer, generous in size for every struct version."""
    if not rt.has("get_props"):
        return None, None
    buf = ctypes.create_string_buffer(16384)
    rc = rt.call("get_props", ctypes.cast(buf, ctypes.c_void_p), dev)
    if rc != 0:
        return None, rc
    return buf.raw, 0


def cstr(raw, off=0, maxlen=256):
    s = raw[off:off + maxlen]
    s = s.split(b"\0", 1)[0]
    return s.decode("utf-8", "replace")


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------

class State(object):
    def __init__(self):
        self.rt = None
        self.devices = []
        self.device_count = 0


def pick_runtimes(choice):
    return ["hip", "cuda"] if choice == "auto" else [choice]


def probe_runtime(rt, info):
    """Versions and device count; returns the count (0 on error)."""
    kind = rt.kind
    info["runtime"] = kind
    info["library"] = loaded_path(rt.lib, rt.path)
    info["missing_symbols"] = rt.missing
    rc, v = rt.int_out("runtime_version")
    info["runtime_version"] = v if rc == 0 else None
    info["runtime_version_str"] = decode_version(kind, v) if rc == 0 else None
    if rc != 0:
        info["runtime_version_error"] = rt.err(rc)
    rc, v = rt.int_out("driver_version")
    info["driver_version"] = v if rc == 0 else None
    info["driver_version_str"] = decode_version(kind, v) if (rc == 0 and v) else None
    if rc != 0:
        info["driver_version_error"] = rt.err(rc)
    rc, count = rt.int_out("get_device_count")
    info["device_count"] = count if rc == 0 else 0
    if rc != 0:
        info["device_count_error"] = rt.err(rc)
        return 0
    return count


def step_runtime(rec, args, st, report):
    maybe_hang(args, "runtime")
    tried_all = {}
    attempts = []
    chosen = None  # (rt, info, count)
    # auto: HIP first; a HIP runtime that sees no device gives way to a CUDA
    # runtime that sees one (an NVIDIA host may carry a HIP runtime package).
    for k in pick_runtimes(args.runtime):
        t = RUNTIMES[k]
        cands = candidate_paths(t["libs"], t["env_dirs"], t["sys_dirs"],
                                t["sys_globs"], t["site_globs"])
        lib, path, tried = load_library(cands)
        tried_all[k] = tried
        if lib is None:
            continue
        rt = Runtime(k, lib, path)
        info = {}
        count = probe_runtime(rt, info)
        attempts.append(info)
        if chosen is None or count > 0:
            chosen = (rt, info, count)
        if count > 0:
            break
    rec["tried"] = tried_all
    if chosen is None:
        rec["error"] = "no %s runtime library could be loaded" % " or ".join(
            pick_runtimes(args.runtime))
        raise StepFailed(rec["error"])
    rt, info, count = chosen
    st.rt = rt
    report.doc["runtime"] = rt.kind
    rec.update(info)
    if len(attempts) > 1:
        rec["attempts"] = attempts
    if "device_count_error" in info:
        st.device_count = 0
        rec["devices"] = []
        rec["error"] = "%s: %s" % (info["device_count_error"]["name"],
                                   info["device_count_error"]["message"])
        raise StepFailed(rec["error"])
    kind = rt.kind
    st.device_count = count
    devices = []
    for i in range(count):
        d = {"index": i}
        rc = rt.call("set_device", i)
        if rc != 0:
            d["set_device_error"] = rt.err(rc)
        name = None
        if rt.has("device_get_name"):
            buf = ctypes.create_string_buffer(256)
            rc = rt.call("device_get_name", buf, 256, i)
            if rc == 0:
                name = buf.value.decode("utf-8", "replace")
        raw, prc = read_props(rt, i)
        if raw is not None:
            if not name:
                name = cstr(raw, 0)
            d["props_symbol"] = rt.fns["get_props"][0]
        elif prc:
            d["props_error"] = rt.err(prc)
        d["name"] = name
        if kind == "hip":
            arch = None
            if raw is not None:
                m = GFX_RE.search(raw, 256)
                if m:
                    arch = m.group(0).decode()
            d["arch"] = arch
            d["arch_base"] = arch.split(":")[0] if arch else None
        else:
            rc1, ma = rt.int_out("device_get_attribute", CUDA_ATTR_CC_MAJOR, i)
            rc2, mi = rt.int_out("device_get_attribute", CUDA_ATTR_CC_MINOR, i)
            if rc1 == 0 and rc2 == 0:
                d["compute_capability"] = "%d.%d" % (ma, mi)
                d["arch"] = "sm_%d%d" % (ma, mi)
            rc3, mp = rt.int_out("device_get_attribute", CUDA_ATTR_MULTIPROCESSOR_COUNT, i)
            if rc3 == 0:
                d["multiprocessors"] = mp
        if rt.has("device_get_pci_bus_id"):
            buf = ctypes.create_string_buffer(64)
            if rt.call("device_get_pci_bus_id", buf, 64, i) == 0:
                d["pci_bus_id"] = buf.value.decode("ascii", "replace")
        rc, free, total = rt.mem_info()
        if rc == 0:
            d["free_bytes"] = free
            d["total_bytes"] = total
        else:
            d["mem_info_error"] = rt.err(rc)
        devices.append(d)
    st.devices = devices
    rec["devices"] = devices
    if count == 0:
        rec["error"] = "device count is 0"
        raise StepFailed(rec["error"])


def step_blas(rec, args, st):
    maybe_hang(args, "blas")
    rt = st.rt
    b = rt.table["blas"]
    rec["library_name"] = b["name"]
    # look next to the loaded runtime first (same ROCm / CUDA install)
    real = loaded_path(rt.lib, rt.path)
    extra_dirs = [os.path.dirname(real)] if os.path.isabs(real) else []
    t = rt.table
    cands = [(os.path.join(d, n), "dir") for d in extra_dirs for n in b["libs"]]
    cands += candidate_paths(b["libs"], t["env_dirs"], t["sys_dirs"], t["sys_globs"],
                             b["site_globs"])
    lib, path, tried = load_library(cands)
    rec["tried"] = tried
    if lib is None:
        rec["status"] = "skipped"
        rec["error"] = "%s library not found" % b["name"]
        return
    rec["library"] = loaded_path(lib, path)
    create = getattr_or_none(lib, b["create"])
    destroy = getattr_or_none(lib, b["destroy"])
    if create is None or destroy is None:
        rec["error"] = "%s lacks %s/%s" % (path, b["create"], b["destroy"])
        raise StepFailed(rec["error"])
    create.restype = ctypes.c_int
    create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    destroy.restype = ctypes.c_int
    destroy.argtypes = [ctypes.c_void_p]
    to_str = getattr_or_none(lib, b["status_to_string"])
    if to_str is not None:
        to_str.restype = ctypes.c_char_p
        to_str.argtypes = [ctypes.c_int]

    def sname(code):
        n = b["status"].get(code)
        if n is None and to_str is not None:
            try:
                r = to_str(code)
                n = r.decode() if r else None
            except Exception:
                n = None
        return n or "status %d" % code

    if st.device_count == 0:
        rec["status"] = "skipped"
        rec["error"] = "no device: handle creation not attempted"
        return
    per = []
    failed = None
    for d in st.devices:
        i = d["index"]
        e = {"device": i}
        rt.call("set_device", i)
        h = ctypes.c_void_p()
        t0 = now_ms()
        s = create(ctypes.byref(h))
        e["create_ms"] = rnd(now_ms() - t0, 2)
        e["create_status"] = s
        e["create_status_name"] = sname(s)
        if s == 0:
            t0 = now_ms()
            s2 = destroy(h)
            e["destroy_ms"] = rnd(now_ms() - t0, 2)
            e["destroy_status"] = s2
            e["destroy_status_name"] = sname(s2)
            if s2 != 0 and failed is None:
                failed = e["destroy_status_name"]
        elif failed is None:
            failed = e["create_status_name"]
        per.append(e)
    rec["devices"] = per
    if failed:
        rec["status_name"] = failed
        rec["error"] = "%s returned %s" % (b["create"], failed)
        raise StepFailed(rec["error"])


def round_gran(n):
    return max(0, int(n) // GRAN * GRAN)


def largest_alloc(rt, free, tol_frac):
    """Largest single allocation, to within tol_frac of free memory."""
    t0 = now_ms()
    tol = max(int(free * tol_frac), GRAN)
    tries = []
    last_err = [None]

    def attempt(n):
        n = round_gran(n)
        if n <= 0:
            return True
        ta = now_ms()
        p, rc = rt.try_alloc(n)
        ok = p is not None
        if ok:
            frc = rt.free(p)
            if frc != 0:
                last_err[0] = rt.err(frc)
        else:
            last_err[0] = rt.err(rc)
        tries.append({"bytes": n, "ok": ok, "ms": rnd(now_ms() - ta, 2)})
        return ok

    lo, hi = 0, free + GRAN  # lo: known to fit (0 trivially); hi: upper bound
    # Descend from the top first: the largest block is usually close to free
    # memory, so this settles in one or two tries; then bisect the bracket.
    for frac in (1.0 - tol_frac / 2, 0.98, 0.96, 0.92, 0.84, 0.68, 0.36, 0.1):
        n = round_gran(free * frac)
        if n <= lo or n >= hi:
            continue
        if attempt(n):
            lo = n
            break
        hi = n
        if hi - lo <= tol:
            break
    while hi - lo > tol and round_gran((lo + hi) // 2) > lo:
        mid = round_gran((lo + hi) // 2)
        if attempt(mid):
            lo = mid
        else:
            hi = mid
    if lo == 0 and not attempt(GRAN):
        pass
    elif lo == 0:
        lo = GRAN
    return {
        "largest_bytes": lo,
        "upper_bound_bytes": min(hi, free),
        "resolution_bytes": tol,
        "largest_pct_of_free": rnd(100.0 * lo / free, 3) if free else None,
        "iterations": len(tries),
        "ms": rnd(now_ms() - t0, 1),
        "tries": tries,
        "last_error": last_err[0],
    }


def fragmentation(rt, nblocks, frac):
    t0 = now_ms()
    rc, free0, _ = rt.mem_info()
    out = {"blocks_wanted": nblocks}
    if rc != 0:
        out["error"] = rt.err(rc)
        return out
    bsize = round_gran(free0 * frac)
    bsize = min(max(bsize, GRAN), 4 << 30)
    out["block_bytes"] = bsize
    ptrs = []
    for _ in range(nblocks):
        p, arc = rt.try_alloc(bsize)
        if p is None:
            out["block_alloc_error"] = rt.err(arc)
            break
        ptrs.append(p)
    out["blocks_allocated"] = len(ptrs)
    freed = 0
    for k in range(1, len(ptrs), 2):
        rt.free(ptrs[k])
        ptrs[k] = None
        freed += 1
    out["blocks_freed"] = freed
    rc, free_mid, _ = rt.mem_info()
    out["free_bytes_with_holes"] = free_mid if rc == 0 else None
    big = round_gran((free_mid if rc == 0 else 0) // 2)
    out["large_block_bytes"] = big
    ok = False
    if big > 0:
        ta = now_ms()
        p, arc = rt.try_alloc(big)
        out["large_block_ms"] = rnd(now_ms() - ta, 2)
        if p is not None:
            ok = True
            rt.free(p)
        else:
            out["large_block_error"] = rt.err(arc)
    out["large_block_ok"] = ok
    for p in ptrs:
        if p is not None:
            rt.free(p)
    rc, free1, _ = rt.mem_info()
    out["free_bytes_after"] = free1 if rc == 0 else None
    out["leaked_bytes"] = (free0 - free1) if rc == 0 else None
    out["ms"] = rnd(now_ms() - t0, 1)
    return out


def step_memory(rec, args, st):
    maybe_hang(args, "memory")
    rt = st.rt
    if st.device_count == 0:
        rec["status"] = "skipped"
        rec["error"] = "no device"
        return
    per = []
    failed = None
    for d in st.devices:
        i = d["index"]
        e = {"device": i}
        rc = rt.call("set_device", i)
        if rc != 0:
            e["error"] = rt.err(rc)
            failed = failed or "set_device %s" % e["error"]["name"]
            per.append(e)
            continue
        rc, free, total = rt.mem_info()
        if rc != 0:
            e["error"] = rt.err(rc)
            failed = failed or "mem_get_info %s" % e["error"]["name"]
            per.append(e)
            continue
        e["free_bytes_before"] = free
        e["total_bytes"] = total
        la = largest_alloc(rt, free, args.mem_tolerance)
        e["largest"] = la
        e["largest_bytes"] = la["largest_bytes"]
        e["largest_pct_of_free"] = la["largest_pct_of_free"]
        e["iterations"] = la["iterations"]
        e["ms"] = la["ms"]
        if la["largest_bytes"] == 0 or not any(t["ok"] for t in la["tries"]):
            failed = failed or "no allocation succeeded on device %d (%s)" % (
                i, (la["last_error"] or {}).get("name"))
        if args.frag_blocks > 0:
            e["fragmentation"] = fragmentation(rt, args.frag_blocks, args.frag_fraction)
        per.append(e)
    rec["devices"] = per
    if failed:
        rec["error"] = failed
        raise StepFailed(failed)


def step_peer(rec, args, st):
    maybe_hang(args, "peer")
    rt = st.rt
    n = st.device_count
    m = []
    for i in range(n):
        row = []
        for j in range(n):
            if i == j:
                row.append(None)
                continue
            rc, v = rt.int_out("can_access_peer", i, j)
            row.append(bool(v) if rc == 0 else rt.err_name(rc))
        m.append(row)
    rec["matrix"] = m


def reset_devices(st):
    rt = st.rt
    if rt is None or not rt.has("device_reset"):
        return
    for d in st.devices:
        try:
            rt.call("set_device", d["index"])
            rt.call("device_reset")
        except Exception:
            pass


# --------------------------------------------------------------------------
# Child processes: torch checks and all-reduce ranks
# --------------------------------------------------------------------------

def emit_line(key, value):
    sys.stdout.write(json.dumps({"key": key, "value": value}) + "\n")
    sys.stdout.flush()


def child_torch(args):
    """Runs in a child process: torch must not share this process with the
    ctypes-loaded runtime (a second copy of the HIP runtime can replace the
    one torch bundles)."""
    maybe_hang(args, "torch")
    t0 = now_ms()
    try:
        import torch  # noqa: F401
    except ModuleNotFoundError as e:
        if getattr(e, "name", None) == "torch":
            emit_line("import", {"ok": False, "installed": False, "error": str(e),
                                 "ms": rnd(now_ms() - t0, 1)})
            return
        emit_line("import", {"ok": False, "installed": True,
                             "error": "%s: %s" % (type(e).__name__, e),
                             "ms": rnd(now_ms() - t0, 1)})
        return
    except Exception as e:
        emit_line("import", {"ok": False, "installed": True,
                             "error": "%s: %s" % (type(e).__name__, e),
                             "ms": rnd(now_ms() - t0, 1)})
        return
    import torch
    emit_line("import", {"ok": True, "installed": True, "ms": rnd(now_ms() - t0, 1),
                         "file": getattr(torch, "__file__", None)})
    info = {
        "version": torch.__version__,
        "hip": getattr(torch.version, "hip", None),
        "cuda": getattr(torch.version, "cuda", None),
        "git_version": getattr(torch.version, "git_version", None),
    }
    try:
        info["arch_list"] = torch.cuda.get_arch_list()
    except Exception as e:
        info["arch_list_error"] = str(e)
    ta = now_ms()
    try:
        info["is_available"] = bool(torch.cuda.is_available())
    except Exception as e:
        info["is_available"] = False
        info["is_available_error"] = "%s: %s" % (type(e).__name__, e)
    info["is_available_ms"] = rnd(now_ms() - ta, 1)
    try:
        info["device_count"] = torch.cuda.device_count()
    except Exception as e:
        info["device_count"] = 0
        info["device_count_error"] = str(e)
    emit_line("info", info)
    if not info["is_available"]:
        return
    devs = []
    for i in range(info["device_count"]):
        d = {"index": i}
        try:
            p = torch.cuda.get_device_properties(i)
            d["name"] = p.name
            d["total_bytes"] = int(p.total_memory)
            d["multiprocessors"] = getattr(p, "multi_processor_count", None)
            arch = getattr(p, "gcnArchName", None)
            if info["hip"] and arch:
                d["arch"] = arch
            else:
                d["arch"] = "sm_%d%d" % (p.major, p.minor)
            d["capability"] = "%d.%d" % (p.major, p.minor)
        except Exception as e:
            d["error"] = "%s: %s" % (type(e).__name__, e)
        devs.append(d)
    emit_line("devices", devs)

    res = {}
    try:
        torch.cuda.set_device(0)
        ta = now_ms()
        h = torch.cuda.current_blas_handle()
        res["handle"] = "0x%x" % h if h else None
        res["ok"] = bool(h)
        res["ms"] = rnd(now_ms() - ta, 1)
    except Exception as e:
        res["ok"] = False
        res["error"] = "%s: %s" % (type(e).__name__, e)
    emit_line("blas_handle", res)

    gemms = []
    n = args.gemm_size
    tf32 = False
    try:
        tf32 = bool(torch.backends.cuda.matmul.allow_tf32)
    except Exception:
        pass
    for dt_name, dt, tol in (("fp32", torch.float32, 1e-2 if tf32 else 1e-3),
                             ("fp16", torch.float16, 1e-2)):
        g = {"dtype": dt_name, "n": n, "rel_tol": tol}
        try:
            gen = torch.Generator().manual_seed(1234)
            a = torch.randn(n, n, generator=gen)
            b = torch.randn(n, n, generator=gen)
            a_q, b_q = a.to(dt), b.to(dt)
            ref = a_q.double() @ b_q.double()  # CPU reference from the same inputs
            ta = now_ms()
            da, db = a_q.to("cuda:0"), b_q.to("cuda:0")
            c = da @ db
            torch.cuda.synchronize()
            g["first_ms"] = rnd(now_ms() - ta, 2)
            ta = now_ms()
            for _ in range(10):
                c = da @ db
            torch.cuda.synchronize()
            g["ms_per_gemm"] = rnd((now_ms() - ta) / 10.0, 4)
            out = c.double().cpu()
            diff = (out - ref).abs()
            max_abs = float(diff.max())
            scale = float(ref.abs().max())
            max_rel = max_abs / scale if scale > 0 else max_abs
            finite = bool(torch.isfinite(out).all())
            g["max_abs_err"] = max_abs
            g["max_rel_err"] = max_rel
            g["finite"] = finite
            g["ok"] = finite and max_rel <= tol
        except Exception as e:
            g["ok"] = False
            g["error"] = "%s: %s" % (type(e).__name__, e)
        gemms.append(g)
    emit_line("gemm", {"tf32_allowed": tf32, "results": gemms})

    alloc = {"env": dict((k, os.environ[k]) for k in ALLOC_ENV_KEYS if k in os.environ)}
    try:
        alloc["backend"] = torch.cuda.get_allocator_backend()
    except Exception:
        pass
    try:
        ms = torch.cuda.memory_stats(0)
        keys = ["allocated_bytes.all.current", "allocated_bytes.all.peak",
                "reserved_bytes.all.current", "reserved_bytes.all.peak",
                "active_bytes.all.peak", "num_alloc_retries", "num_ooms",
                "num_device_alloc", "num_device_free", "num_sync_all_streams"]
        alloc["stats"] = dict((k, ms[k]) for k in keys if k in ms)
        free, total = torch.cuda.mem_get_info(0)
        alloc["mem_get_info"] = {"free_bytes": int(free), "total_bytes": int(total)}
    except Exception as e:
        alloc["error"] = "%s: %s" % (type(e).__name__, e)
    emit_line("allocator", alloc)


def child_allreduce_rank(args):
    rank, world = args.rank, args.world
    out = {"rank": rank}
    t0 = now_ms()
    try:
        import datetime
        import torch
        import torch.distributed as dist
        backend = args.allreduce_backend
        if backend == "gloo":
            dev = torch.device("cpu")
        else:
            torch.cuda.set_device(rank % max(1, torch.cuda.device_count()))
            dev = torch.device("cuda", torch.cuda.current_device())
        dist.init_process_group(backend=backend, init_method="env://", rank=rank,
                                world_size=world,
                                timeout=datetime.timedelta(seconds=args.allreduce_timeout))
        out["init_ms"] = rnd(now_ms() - t0, 1)
        n = 1 << 20
        x = torch.full((n,), float(rank + 1), dtype=torch.float32, device=dev)
        ta = now_ms()
        dist.all_reduce(x)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        out["allreduce_ms"] = rnd(now_ms() - ta, 2)
        want = world * (world + 1) / 2.0
        err = float((x - want).abs().max())
        out["expected"] = want
        out["max_abs_err"] = err
        out["ok"] = err == 0.0
        try:
            dist.destroy_process_group()
        except Exception:
            pass
    except Exception as e:
        out["ok"] = False
        out["error"] = "%s: %s" % (type(e).__name__, e)
    emit_line("rank", out)


def parse_child_lines(text):
    got = {}
    for line in (text or b"").decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            o = json.loads(line)
            got[o["key"]] = o["value"]
        except Exception:
            continue
    return got


def child_cmd(args, mode, extra=()):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", mode,
           "--gemm-size", str(args.gemm_size),
           "--allreduce-backend", args.allreduce_backend,
           "--allreduce-timeout", str(args.allreduce_timeout)]
    return cmd + list(extra)


def signal_name(rc):
    try:
        return signal.Signals(-rc).name
    except Exception:
        return "signal %d" % -rc


def step_torch(rec, args, st, report):
    timeout = args.step_timeout
    extra = []
    if args.hang_for and args.hang_step == "torch":  # the child sleeps
        extra = ["--hang-for", str(args.hang_for), "--hang-step", "torch"]
    try:
        p = subprocess.run(child_cmd(args, "torch", extra), stdout=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        got = parse_child_lines(p.stdout)
        rc = p.returncode
    except subprocess.TimeoutExpired as e:
        got = parse_child_lines(e.stdout)
        rec.update(got)
        rec["status"] = "timeout"
        parts = ["import", "info", "devices", "blas_handle", "gemm", "allocator"]
        done = [k for k in parts if k in got]
        rec["error"] = "torch checks did not finish within %g s (last done: %s)" % (
            timeout, done[-1] if done else "nothing")
        return
    rec.update(got)
    rec["child_exit"] = rc
    if rc < 0:
        parts = ["import", "info", "devices", "blas_handle", "gemm", "allocator"]
        done = [k for k in parts if k in got]
        rec["status"] = "crash"
        rec["error"] = "torch child died of %s (last part done: %s)" % (
            signal_name(rc), done[-1] if done else "nothing")
        earlier = torch_errors(got)
        if earlier:
            rec["error"] += "; earlier: " + "; ".join(earlier)
        return
    imp = got.get("import")
    if imp is None:
        rec["error"] = "torch child printed nothing (exit %d)" % rc
        raise StepFailed(rec["error"])
    if not imp["ok"]:
        if not imp.get("installed"):
            rec["status"] = "skipped"
            rec["error"] = "torch not installed"
            return
        rec["error"] = "import torch failed: %s" % imp.get("error")
        raise StepFailed(rec["error"])
    info = got.get("info", {})
    if not info.get("is_available"):
        rec["error"] = "torch.cuda.is_available() is False" + (
            " (%s)" % info["is_available_error"] if info.get("is_available_error") else "")
        raise StepFailed(rec["error"])
    errs = torch_errors(got)
    if "blas_handle" in got and not got["blas_handle"].get("ok") and not got["blas_handle"].get("error"):
        errs.append("BLAS handle: null")
    if "gemm" not in got or "allocator" not in got:
        errs.append("torch child stopped early (exit %d)" % rc)
    if errs:
        rec["error"] = "; ".join(errs)
        raise StepFailed(rec["error"])


def torch_errors(got):
    """Error strings the torch child reported, in order."""
    errs = []
    info = got.get("info", {})
    for k in ("is_available_error", "device_count_error"):
        if info.get(k):
            errs.append("%s: %s" % (k, info[k]))
    for d in got.get("devices", []):
        if d.get("error"):
            errs.append("device %s properties: %s" % (d.get("index"), d["error"]))
    bh = got.get("blas_handle", {})
    if bh.get("error"):
        errs.append("BLAS handle: %s" % bh["error"])
    for g in got.get("gemm", {}).get("results", []):
        if not g.get("ok"):
            errs.append("GEMM %s: %s" % (g["dtype"], g.get("error") or (
                "max_rel_err %.3g > %.3g" % (g.get("max_rel_err") or float("nan"), g["rel_tol"]))))
    if got.get("allocator", {}).get("error"):
        errs.append("allocator stats: %s" % got["allocator"]["error"])
    return errs


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def step_allreduce(rec, args, st, torch_ok):
    maybe_hang(args, "allreduce")
    world = args.allreduce_world or st.device_count
    rec["backend"] = args.allreduce_backend
    rec["world_size"] = world
    if not torch_ok:
        rec["status"] = "skipped"
        rec["error"] = "torch unavailable"
        return
    if world < 2 and not args.allreduce_world:
        rec["status"] = "skipped"
        rec["error"] = "needs at least 2 devices (have %d)" % st.device_count
        return
    port = free_port()
    env = dict(os.environ)
    env.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                "WORLD_SIZE": str(world)})
    procs = []
    for r in range(world):
        e = dict(env)
        e.update({"RANK": str(r), "LOCAL_RANK": str(r)})
        procs.append(subprocess.Popen(
            child_cmd(args, "allreduce-rank", ["--rank", str(r), "--world", str(world)]),
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=e))
    deadline = time.monotonic() + args.allreduce_timeout
    ranks = []
    timed_out = False
    for r, p in enumerate(procs):
        left = max(0.1, deadline - time.monotonic())
        try:
            out, _ = p.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            timed_out = True
            for q in procs:
                if q.poll() is None:
                    q.kill()
            out, _ = p.communicate()
        got = parse_child_lines(out).get("rank", {"rank": r, "ok": False})
        got["exit"] = p.returncode
        if p.returncode is not None and p.returncode < 0:
            got["signal"] = signal_name(p.returncode)
        ranks.append(got)
    rec["ranks"] = ranks
    rec["ok"] = (not timed_out) and all(x.get("ok") for x in ranks)
    if timed_out:
        rec["status"] = "timeout"
        rec["error"] = "all-reduce did not finish within %g s" % args.allreduce_timeout
        return
    if not rec["ok"]:
        bad = [x for x in ranks if not x.get("ok")]
        rec["error"] = "all-reduce failed on rank(s) %s: %s" % (
            ",".join(str(x.get("rank")) for x in bad), bad[0].get("error") or "wrong result")
        raise StepFailed(rec["error"])


# --------------------------------------------------------------------------
# Framework-level steps: convolution, attention, torch.compile, bf16 GEMM
# --------------------------------------------------------------------------

LAYER_STEPS = ["conv", "attention", "compile", "gemm_bf16"]
LAYER_CLASSIFICATION = {
    "conv": "conv-failed",
    "attention": "attention-failed",
    "compile": "compile-failed",
    "gemm_bf16": "gemm-bf16-failed",
}


class LayerSkip(Exception):
    """The stack lacks what a framework step needs (the reason is the message)."""


def rel_err(torch, out, ref):
    """(max relative error against the reference's largest magnitude, all finite)."""
    out = out.detach().double().cpu()
    ref = ref.detach().double().cpu()
    finite = bool(torch.isfinite(out).all())
    diff = float((out - ref).abs().max())
    scale = float(ref.abs().max())
    return (diff / scale if scale > 0 else diff), finite


def check_close(rec, what, torch, out, ref, tol):
    err, finite = rel_err(torch, out, ref)
    rec.setdefault("checks", []).append(
        {"what": what, "max_rel_err": err if finite else None, "finite": finite, "rel_tol": tol})
    if not finite:
        raise StepFailed("%s: result has non-finite values" % what)
    if err > tol:
        raise StepFailed("%s: max_rel_err %.3g > %.3g" % (what, err, tol))


def poison(args, step, t):
    """--break-step: a NaN in the step's input, so its result check must fail."""
    if args.break_step == step:
        t = t.clone()
        t.view(-1)[0] = float("nan")
    return t


def layer_conv(rec, args, torch):
    F = torch.nn.functional
    cudnn = torch.backends.cudnn
    rec["backend"] = "miopen" if getattr(torch.version, "hip", None) else "cudnn"
    if not cudnn.is_available():
        raise LayerSkip("torch.backends.cudnn.is_available() is False: this build has no %s"
                        % ("MIOpen" if rec["backend"] == "miopen" else "cuDNN"))
    rec["enabled"] = bool(cudnn.enabled)
    if not cudnn.enabled:
        raise LayerSkip("torch.backends.cudnn.enabled is False")
    rec["library_version"] = cudnn.version()
    tf32 = bool(getattr(cudnn, "allow_tf32", False)) and not rec["backend"] == "miopen"
    rec["tf32_allowed"] = tf32
    tol = 1e-2 if tf32 else 1e-3
    gen = torch.Generator().manual_seed(1234)
    x = torch.randn(8, 16, 32, 32, generator=gen)
    w = torch.randn(32, 16, 3, 3, generator=gen)
    x = poison(args, "conv", x)
    xd = x.to("cuda:0").requires_grad_(True)
    wd = w.to("cuda:0").requires_grad_(True)
    ta = now_ms()
    y = F.conv2d(xd, wd, padding=1)
    y.square().mean().backward()
    torch.cuda.synchronize()
    rec["fwd_bwd_ms"] = rnd(now_ms() - ta, 2)
    xc = x.double().requires_grad_(True)
    wc = w.double().requires_grad_(True)
    yc = F.conv2d(xc, wc, padding=1)
    yc.square().mean().backward()
    check_close(rec, "forward", torch, y, yc, tol)
    check_close(rec, "grad input", torch, xd.grad, xc.grad, tol)
    check_close(rec, "grad weight", torch, wd.grad, wc.grad, tol)


def sdpa_backends(torch):
    """[(name, SDPBackend member)] of the fused attention kernels this torch names."""
    try:
        from torch.nn.attention import SDPBackend
    except ImportError:
        return None
    out = []
    for name, member in (("flash", "FLASH_ATTENTION"), ("mem_efficient", "EFFICIENT_ATTENTION")):
        if hasattr(SDPBackend, member):
            out.append((name, getattr(SDPBackend, member)))
    return out


def layer_attention(rec, args, torch):
    F = torch.nn.functional
    if not hasattr(F, "scaled_dot_product_attention"):
        raise LayerSkip("torch.nn.functional.scaled_dot_product_attention is missing (torch < 2.0)")
    backends = sdpa_backends(torch)
    if backends is None:
        raise LayerSkip("torch.nn.attention.sdpa_kernel is missing (torch < 2.3)")
    from torch.nn.attention import sdpa_kernel
    gen = torch.Generator().manual_seed(1234)
    q, k, v = (torch.randn(2, 4, 128, 64, generator=gen) for _ in range(3))
    q = poison(args, "attention", q)
    ref = torch.softmax((q.double() @ k.double().transpose(-2, -1)) / 8.0, dim=-1) @ v.double()
    qd, kd, vd = (t.to(device="cuda:0", dtype=torch.float16) for t in (q, k, v))
    ran = {}
    for name, backend in backends:
        r = {}
        ran[name] = r
        try:
            with sdpa_kernel([backend]):
                ta = now_ms()
                out = F.scaled_dot_product_attention(qd, kd, vd)
                torch.cuda.synchronize()
                r["ms"] = rnd(now_ms() - ta, 2)
        except RuntimeError as e:
            if "No available kernel" in str(e):
                r["ran"] = False
                r["reason"] = "no kernel for this device, dtype or shape in this build"
                continue
            raise StepFailed("%s attention: %s: %s" % (name, type(e).__name__, e))
        r["ran"] = True
        try:
            check_close(r, name, torch, out, ref, 1e-2)
        except StepFailed as e:
            rec["backends"] = ran
            raise StepFailed("%s attention: %s" % (name, e))
    rec["backends"] = ran
    rec["ran"] = [n for n, r in ran.items() if r.get("ran")]
    if not rec["ran"]:
        raise LayerSkip("no fused attention kernel (%s) runs on this device in this build"
                        % ", ".join(n for n, _ in backends))


def layer_compile(rec, args, torch):
    if not hasattr(torch, "compile"):
        raise LayerSkip("torch.compile is missing (torch < 2.0)")
    try:
        import triton
    except ImportError as e:
        raise LayerSkip("triton is not installed (torch.compile's GPU code generation needs it): %s" % e)
    rec["triton"] = getattr(triton, "__version__", None)

    def f(x, y):
        return torch.nn.functional.gelu(x) * y + torch.sin(x)

    gen = torch.Generator().manual_seed(1234)
    x = torch.randn(1 << 16, generator=gen)
    y = torch.randn(1 << 16, generator=gen)
    x = poison(args, "compile", x)
    xd, yd = x.to("cuda:0"), y.to("cuda:0")
    cf = torch.compile(f)
    ta = now_ms()
    out = cf(xd, yd)
    torch.cuda.synchronize()
    rec["first_call_ms"] = rnd(now_ms() - ta, 1)
    ta = now_ms()
    out = cf(xd, yd)
    torch.cuda.synchronize()
    rec["second_call_ms"] = rnd(now_ms() - ta, 2)
    check_close(rec, "compiled", torch, out, f(x.double(), y.double()), 1e-4)


def layer_gemm_bf16(rec, args, torch):
    try:
        ok = bool(torch.cuda.is_bf16_supported())
    except Exception as e:
        raise LayerSkip("torch.cuda.is_bf16_supported() failed: %s: %s" % (type(e).__name__, e))
    if not ok:
        raise LayerSkip("torch.cuda.is_bf16_supported() is False on this device")
    pref = getattr(torch.backends.cuda, "preferred_blas_library", None)
    if pref is not None:
        try:
            # "cublaslt" is hipBLASLt on ROCm builds
            pref("cublaslt")
        except Exception as e:
            rec["blas_library_error"] = "%s: %s" % (type(e).__name__, e)
        try:
            rec["blas_library"] = str(pref()).split(".")[-1]
        except Exception:
            pass
    n = args.gemm_size
    gen = torch.Generator().manual_seed(1234)
    a = torch.randn(n, n, generator=gen).to(torch.bfloat16)
    b = torch.randn(n, n, generator=gen).to(torch.bfloat16)
    bias = torch.randn(n, generator=gen).to(torch.bfloat16)
    a = poison(args, "gemm_bf16", a)
    ref = a.double() @ b.double()
    da, db, dbias = a.to("cuda:0"), b.to("cuda:0"), bias.to("cuda:0")
    rec["n"] = n
    ta = now_ms()
    c = da @ db
    torch.cuda.synchronize()
    rec["first_ms"] = rnd(now_ms() - ta, 2)
    # addmm with a 1-D bias takes the Lt epilogue path
    cb = torch.addmm(dbias, da, db)
    torch.cuda.synchronize()
    check_close(rec, "matmul", torch, c, ref, 2e-2)
    check_close(rec, "addmm+bias", torch, cb, ref + bias.double(), 2e-2)


LAYER_FUNCS = {
    "conv": layer_conv,
    "attention": layer_attention,
    "compile": layer_compile,
    "gemm_bf16": layer_gemm_bf16,
}


def child_layers(args):
    """Runs in a child process; one line per step, each as it finishes."""
    try:
        import torch
    except Exception as e:
        for name in LAYER_STEPS:
            emit_line(name, {"status": "failed", "ms": 0,
                             "error": "import torch failed: %s: %s" % (type(e).__name__, e)})
        return
    for name in LAYER_STEPS:
        emit_line("begin", name)
        rec = {"status": "ok", "error": None}
        t0 = now_ms()
        try:
            maybe_hang(args, name)
            LAYER_FUNCS[name](rec, args, torch)
        except LayerSkip as e:
            rec["status"] = "skipped"
            rec["error"] = str(e)
        except StepFailed as e:
            rec["status"] = "failed"
            rec["error"] = str(e)
        except Exception as e:
            rec["status"] = "failed"
            rec["error"] = "%s: %s" % (type(e).__name__, e)
            rec["traceback"] = traceback.format_exc(limit=6)
        rec["ms"] = rnd(now_ms() - t0, 1)
        emit_line(name, rec)


def layer_timeout(args):
    return args.step_timeout * len(LAYER_STEPS) + 15


def step_layers(report, args, torch_ok):
    """Runs the framework steps in one torch child and records each as its own step."""
    if args.no_layers or not torch_ok:
        why = "--no-layers" if args.no_layers else "torch unavailable"
        for name in LAYER_STEPS:
            report.step(name).update(status="skipped", ms=0, error=why)
        return
    timeout = layer_timeout(args)
    extra = []
    if args.hang_for and args.hang_step in LAYER_STEPS:
        extra += ["--hang-for", str(args.hang_for), "--hang-step", args.hang_step]
    if args.break_step:
        extra += ["--break-step", args.break_step]
    start = now_ms()
    rc = None
    timed_out = False
    try:
        p = subprocess.run(child_cmd(args, "layers", extra), stdout=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        got = parse_child_lines(p.stdout)
        rc = p.returncode
    except subprocess.TimeoutExpired as e:
        got = parse_child_lines(e.stdout)
        timed_out = True
    running = got.get("begin", LAYER_STEPS[0])
    for name in LAYER_STEPS:
        rec = report.step(name)
        if name in got:
            rec.update(got[name])
        elif name == running:
            rec["ms"] = rnd(now_ms() - start, 1)
            if timed_out:
                rec["status"] = "timeout"
                rec["error"] = "framework steps did not finish within %g s" % timeout
            else:
                rec["status"] = "crash"
                rec["error"] = "torch child died %s" % (
                    "of %s" % signal_name(rc) if rc is not None and rc < 0 else "with exit %s" % rc)
        else:
            rec.update(status="skipped", ms=0,
                       error="not reached (%s stopped the framework steps)" % (running or "the start"))


# --------------------------------------------------------------------------
# Team checks: the project's own commands or Python files (--team-checks)
# --------------------------------------------------------------------------

TEAM_PREFIX = "check:"
TEAM_TAIL = 2000


def output_tail(b):
    t = (b or b"").decode("utf-8", "replace")
    return t if len(t) <= TEAM_TAIL else "..." + t[-TEAM_TAIL:]


def run_team_check(rec, check):
    """One team check: a shell command, or Python source run by this interpreter."""
    rec["expect_exit"] = check.get("expect_exit", 0)
    timeout = float(check.get("timeout_s") or 300)
    rec["timeout_s"] = timeout
    tmp = None
    try:
        if check.get("python_source") is not None:
            import tempfile
            fd, tmp = tempfile.mkstemp(prefix="rocmcheck-check-", suffix=".py")
            with os.fdopen(fd, "w") as f:
                f.write(check["python_source"])
            cmd, shell = [sys.executable, tmp], False
            rec["python"] = check.get("python_file")
        else:
            cmd, shell = check["command"], True
            rec["command"] = cmd
        p = subprocess.Popen(cmd, shell=shell, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                p.kill()
            out, _ = p.communicate()
            rec["status"] = "timeout"
            rec["output_tail"] = output_tail(out)
            rec["error"] = "did not finish within %g s" % timeout
            return
        rec["exit"] = p.returncode
        rec["output_tail"] = output_tail(out)
        if p.returncode != rec["expect_exit"]:
            how = ("died of %s" % signal_name(p.returncode) if p.returncode < 0
                   else "exit %d" % p.returncode)
            rec["error"] = "%s, expected exit %d" % (how, rec["expect_exit"])
            raise StepFailed(rec["error"])
    finally:
        if tmp:
            try:
                os.remove(tmp)
            except OSError:
                pass


def load_team_checks(text):
    """The --team-checks JSON: a list of {name, command | python_source, ...}."""
    checks = json.loads(text)
    if not isinstance(checks, list):
        raise ValueError("--team-checks: expected a JSON list")
    for c in checks:
        if not isinstance(c, dict) or not c.get("name") or (
                c.get("command") is None) == (c.get("python_source") is None):
            raise ValueError("--team-checks: each check needs a name and one of command, python_source")
    return checks


def step_team_checks(report, checks):
    for c in checks:
        name = TEAM_PREFIX + c["name"]
        rec = report.step(name)
        start = now_ms()
        try:
            run_team_check(rec, c)
            if rec["status"] == "running":
                rec["status"] = "ok"
        except StepFailed as e:
            rec["status"] = "failed"
            rec["error"] = rec.get("error") or str(e)
        except Exception as e:
            rec["status"] = "failed"
            rec["error"] = "%s: %s" % (type(e).__name__, e)
        rec["ms"] = rnd(now_ms() - start, 1)


# --------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------

BLAS_STATUS_RE = re.compile(r"((?:HIPBLAS|CUBLAS|ROCBLAS)_STATUS_[A-Z_]+|rocblas_status_[a-z_]+)")


def classify(report, st):
    doc = report.doc
    steps = doc["steps"]

    def s(name):
        return steps.get(name, {}).get("status")

    builtin = [(n, r) for n, r in steps.items() if not n.startswith(TEAM_PREFIX)]
    for name, r in builtin:
        if r.get("status") == "timeout":
            return "hang", name
    for name, r in builtin:
        if r.get("status") == "crash":
            return "crash", r.get("error")
    rtr = steps.get("runtime", {})
    if st.rt is None:
        return "runtime-missing", rtr.get("error")
    if st.device_count == 0:
        e = rtr.get("device_count_error")
        return "no-device", (e["name"] if e else "device count is 0")
    if s("blas") == "failed":
        return "hipblas-failed", steps["blas"].get("status_name") or steps["blas"].get("error")
    if s("memory") == "failed":
        return "alloc-failed", steps["memory"].get("error")
    if s("torch") == "failed":
        err = steps["torch"].get("error") or ""
        m = BLAS_STATUS_RE.search(err)
        if m:
            return "hipblas-failed", m.group(1)
        if "out of memory" in err.lower():
            return "alloc-failed", err
        return "torch-failed", err
    if s("allreduce") == "failed":
        return "torch-failed", steps["allreduce"].get("error")
    failed = [n for n in LAYER_STEPS if s(n) == "failed"]
    if failed:
        first = failed[0]
        detail = "%s: %s" % (first, steps[first].get("error"))
        if len(failed) > 1:
            detail += " (also failed: %s)" % ", ".join(failed[1:])
        return LAYER_CLASSIFICATION[first], detail
    for name, r in builtin:
        if r.get("status") == "failed":  # e.g. peer
            return "crash", "%s: %s" % (name, r.get("error"))
    bad = [n for n, r in steps.items() if n.startswith(TEAM_PREFIX) and r.get("status") != "ok"]
    if bad:
        first = steps[bad[0]]
        detail = "%s: %s" % (bad[0][len(TEAM_PREFIX):], first.get("error"))
        if len(bad) > 1:
            detail += " (also: %s)" % ", ".join(n[len(TEAM_PREFIX):] for n in bad[1:])
        return "team-check-failed", detail
    return "pass", None


# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description="rocmcheck smoke payload (prints one JSON document)")
    ap.add_argument("--runtime", choices=["auto", "hip", "cuda"], default="auto")
    ap.add_argument("--no-torch", action="store_true", help="skip the torch checks")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory probe")
    ap.add_argument("--multi-gpu", action="store_true",
                    help="peer-access matrix and a torch.distributed all-reduce")
    ap.add_argument("--step-timeout", type=float, default=60.0, metavar="S")
    ap.add_argument("--mem-tolerance", type=float, default=0.01,
                    help="largest-allocation search resolution, fraction of free memory")
    ap.add_argument("--frag-blocks", type=int, default=64)
    ap.add_argument("--frag-fraction", type=float, default=0.01,
                    help="fragmentation block size, fraction of free memory")
    ap.add_argument("--gemm-size", type=int, default=256)
    ap.add_argument("--allreduce-timeout", type=float, default=120.0, metavar="S")
    ap.add_argument("--allreduce-backend", default="nccl",
                    help="torch.distributed backend (nccl is RCCL on ROCm)")
    ap.add_argument("--allreduce-world", type=int, default=0,
                    help="number of ranks (default: one per device, needs >= 2)")
    ap.add_argument("--hang-for", type=float, default=0.0, metavar="S",
                    help="debug: sleep S seconds inside --hang-step")
    ap.add_argument("--hang-step", default="runtime",
                    choices=["runtime", "blas", "memory", "torch", "peer", "allreduce"]
                    + LAYER_STEPS)
    ap.add_argument("--no-layers", action="store_true",
                    help="skip the framework steps (conv, attention, compile, gemm_bf16)")
    ap.add_argument("--break-step", choices=LAYER_STEPS, default=None,
                    help="debug: put a NaN into this framework step's input so its check fails")
    ap.add_argument("--team-checks", metavar="JSON", default=None,
                    help="the team's own checks, run after the built-in steps: a JSON list of "
                    "{name, command | python_source, timeout_s, expect_exit}")
    ap.add_argument("--child", choices=["torch", "layers", "allreduce-rank"], help=argparse.SUPPRESS)
    ap.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--world", type=int, default=1, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.child == "torch":
        child_torch(args)
        return 0
    if args.child == "layers":
        child_layers(args)
        return 0
    if args.child == "allreduce-rank":
        child_allreduce_rank(args)
        return 0

    try:
        team = load_team_checks(args.team_checks) if args.team_checks else []
    except ValueError as e:
        sys.stderr.write("payload: %s\n" % e)
        return 2
    report = Report(args)
    wd = Watchdog(report)
    st = State()
    T = args.step_timeout
    try:
        run_step(report, wd, "runtime", T, step_runtime, args, st, report)
        if st.rt is not None:
            run_step(report, wd, "blas", T, step_blas, args, st)
            if args.no_memory:
                report.step("memory").update(status="skipped", ms=0, error="--no-memory")
            else:
                run_step(report, wd, "memory", T, step_memory, args, st)
            if args.multi_gpu:
                run_step(report, wd, "peer", T, step_peer, args, st)
            reset_devices(st)  # release the ctypes contexts before torch runs
        torch_ok = False
        if args.no_torch:
            report.step("torch").update(status="skipped", ms=0, error="--no-torch")
        else:
            # also without a device: torch's own view of it is worth reporting
            tr = run_step(report, wd, "torch", T + 15, step_torch, args, st, report)
            torch_ok = tr["status"] == "ok"
        step_layers(report, args, torch_ok)
        if args.multi_gpu:
            run_step(report, wd, "allreduce", args.allreduce_timeout + 15,
                     step_allreduce, args, st, torch_ok)
        step_team_checks(report, team)
        with report.lock:
            c, detail = classify(report, st)
            report.doc["classification"] = c
            report.doc["classification_detail"] = detail
    except Exception as e:  # a bug in the payload itself
        with report.lock:
            report.doc["classification"] = "crash"
            report.doc["classification_detail"] = "payload error: %s: %s" % (type(e).__name__, e)
            report.doc["traceback"] = traceback.format_exc(limit=8)
    report.emit()
    sys.stderr.flush()
    # Skip interpreter teardown: some GPU runtimes hang or crash in their
    # atexit handlers, which must not turn a finished report into a hang.
    os._exit(0)


if __name__ == "__main__":
    main()
