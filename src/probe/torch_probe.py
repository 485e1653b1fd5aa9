# rocmcheck's torch probe: prints one line `ROCMCHECK_JSON:{...}`. Without --deep it never
# initialises a GPU: torch._C._cuda_getArchFlags() reads the compiled arch list (get_arch_list()
# returns [] when no device is available), and bundled libraries are found by file name.
import json, os, platform, re, site, sys

out = {"python": platform.python_version(), "executable": sys.executable}
try:
    sp = list(getattr(site, "getsitepackages", lambda: [])())
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    if isinstance(user, str):
        sp.append(user)
    out["site_packages"] = [p for p in sp if os.path.isdir(p)]
except BaseException:
    out["site_packages"] = []
deep = "--deep" in sys.argv[1:]
try:
    import torch
except BaseException as e:
    out["torch_error"] = "%s: %s" % (type(e).__name__, e)
    print("ROCMCHECK_JSON:" + json.dumps(out))
    sys.exit(0)
out["torch"] = str(torch.__version__)
out["hip"] = getattr(torch.version, "hip", None)
out["cuda"] = getattr(torch.version, "cuda", None)
# Which HIP runtime the import loaded (a bundled one in torch/lib, a pip ROCm's, /opt/rocm's).
try:
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.rstrip("\n").split(None, 5)
            if len(p) == 6 and os.path.basename(p[5]).startswith("libamdhip64.so"):
                out["hip_library"] = p[5]
                break
except OSError:
    pass
try:
    flags = torch._C._cuda_getArchFlags() if hasattr(torch._C, "_cuda_getArchFlags") else None
    if flags:
        out["arch_list"] = [a if a.startswith(("sm_", "gfx", "compute_")) else "sm_" + a for a in flags.split()]
    else:
        out["arch_list"] = []
except BaseException as e:
    out["arch_list_error"] = "%s: %s" % (type(e).__name__, e)
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
pat = re.compile(r"^lib(amdhip64|hsa-runtime64|rocblas|hipblaslt|hipblas|MIOpen|rccl|drm_amdgpu|drm|roctx64|rocm_smi64|cudart|cublas|nccl)[.-]")
try:
    out["bundled_libs"] = sorted(n for n in os.listdir(lib) if pat.match(n))
except OSError:
    out["bundled_libs"] = []
gfx = set()
for sub in ("rocblas/library", "hipblaslt/library"):
    d = os.path.join(lib, sub)
    if os.path.isdir(d):
        for n in os.listdir(d):
            gfx.update(re.findall(r"gfx[0-9][0-9a-f]{2,3}(?![0-9a-f])", n))
out["bundled_gfx"] = sorted(gfx)
if deep:
    d = {}
    try:
        d["available"] = bool(torch.cuda.is_available())
        n = torch.cuda.device_count()
        d["device_count"] = n
        devs = []
        for i in range(n):
            p = torch.cuda.get_device_properties(i)
            devs.append({"name": p.name, "arch": getattr(p, "gcnArchName", None) or "sm_%d%d" % (p.major, p.minor),
                         "total_memory": int(p.total_memory)})
        d["devices"] = devs
        if n:
            free, total = torch.cuda.mem_get_info(0)
            d["mem_free"] = int(free)
            a = torch.ones(64, 64, device="cuda")
            d["blas"] = "ok: %s" % float((a @ a).sum().item())
    except BaseException as e:
        d["error"] = "%s: %s" % (type(e).__name__, e)
    out["deep"] = d
print("ROCMCHECK_JSON:" + json.dumps(out))
