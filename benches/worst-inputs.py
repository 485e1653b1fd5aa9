#!/usr/bin/env python3
"""Writes each reader's worst input (tests/triage/worst/*.txt) grown to SIZE bytes into DIR.

    benches/worst-inputs.py DIR SIZE
    benches/worst-inputs.py --memory DIR

The growth rule is tests/triage_scaling.rs's: the header once, then the unit repeated with
`{n}` replaced by the repetition's number until the text has at least SIZE bytes.

With --memory, writes the shapes benches/peak-memory.sh measures instead: each command's worst
shape for memory, at (or just under) that command's size limit:

  hsa-1m.txt        HSA_OVERRIDE_GFX_VERSION=gfx1031 x 1,000,000 lines (33 MB), LF
  hsa-1m-cr.txt     the same with CR-only line ends
  hsa-64m.txt       the same line x 2,000,000 (66 MB, under triage's 64 MiB cap)
  env-distinct.txt  different settings (HSA_VAR_n=value_n) up to, 64 MiB cap
  lock/             a 16 MiB uv.lock (lint's lock cap) of packages with inline-table lists
                    (dependencies, wheels), torch among them, its pyproject.toml and Dockerfile
  night.json        a night at the 64 MiB limit of full candidate results (report merge / gate)
  night-prev.json   the previous night (the same jobs, some classifications changed)
  night-min.json    200,000 minimal candidate results (the count limit)
  night-long.json   the 64 MiB limit of 256-byte ids (the id limit), distinct runners, details
  night-steps.json  the 64 MiB limit of candidates with 64 steps each (the step limit)
"""
import json
import pathlib
import sys


def memory(out):
    out.mkdir(parents=True, exist_ok=True)
    line = "HSA_OVERRIDE_GFX_VERSION=gfx1031"
    (out / "hsa-1m.txt").write_text((line + "\n") * 1_000_000)
    (out / "hsa-1m-cr.txt").write_bytes(((line + "\r") * 1_000_000).encode())
    (out / "hsa-64m.txt").write_text((line + "\n") * 2_000_000)
    with open(out / "env-distinct.txt", "w") as f:
        total, n = 0, 0
        while True:
            s = f"HSA_VAR_{n}=value_{n}\n"
            if total + len(s) > 64 << 20:
                break
            f.write(s)
            total += len(s)
            n += 1
    lock = out / "lock"
    lock.mkdir(exist_ok=True)
    (lock / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["torch==2.5.1"]\n\n[tool.uv.sources]\ntorch = [{ index = "pytorch-rocm" }]\n\n'
        '[[tool.uv.index]]\nname = "pytorch-rocm"\nurl = "https://download.pytorch.org/whl/rocm6.2"\nexplicit = true\n'
    )
    (lock / "Dockerfile").write_text(
        "FROM python:3.12-slim\nCOPY --from=ghcr.io/astral-sh/uv:0.5 /uv /bin/uv\nWORKDIR /app\n"
        "COPY pyproject.toml uv.lock ./\nRUN uv sync --frozen\n"
    )
    parts = ['version = 1\nrequires-python = ">=3.11"\n\n']
    parts.append(
        '[[package]]\nname = "demo"\nversion = "0.1.0"\nsource = { virtual = "." }\n'
        'dependencies = [\n    { name = "torch", version = "2.5.1+rocm6.2", source = { registry = "https://download.pytorch.org/whl/rocm6.2" } },\n]\n\n'
        '[[package]]\nname = "torch"\nversion = "2.5.1+rocm6.2"\nsource = { registry = "https://download.pytorch.org/whl/rocm6.2" }\n'
        'wheels = [\n    { url = "https://download.pytorch.org/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp312-cp312-linux_x86_64.whl", hash = "sha256:00" },\n]\n\n'
    )
    total, n = sum(len(p) for p in parts), 0
    while total < (16 << 20) - 4096:
        deps = "".join(f'    {{ name = "dep-{n}-{k}" }},\n' for k in range(8))
        wheels = "".join(
            f'    {{ url = "https://files.example/p{n}/w{k}.whl", hash = "sha256:{n:08x}{k:04x}", size = {n * 8 + k} }},\n'
            for k in range(8)
        )
        p = (
            f'[[package]]\nname = "pkg-{n}"\nversion = "1.{n}"\nsource = {{ registry = "https://pypi.org/simple" }}\n'
            f"dependencies = [\n{deps}]\nwheels = [\n{wheels}]\n\n"
        )
        if total + len(p) > (16 << 20) - 4096:
            break
        parts.append(p)
        total += len(p)
        n += 1
    (lock / "uv.lock").write_text("".join(parts))

    # Nights: one file holds at most 64 MiB and 200,000 candidate results of at most 64 steps
    # and 256-byte ids (src/report/results.rs); each shape below is one way to fill that.
    cap = 64 << 20

    def write_night(path, items):
        with open(path, "w") as f:
            head = '{"results_schema": 1, "rocmcheck": "0.1.0", "candidates": [\n'
            f.write(head)
            total, n = len(head) + 4, 0
            for c in items:
                s = ("," if n else "") + json.dumps(c, separators=(",", ":")) + "\n"
                if total + len(s) > cap or n == 200_000:
                    break
                f.write(s)
                total += len(s)
                n += 1
            f.write("]}\n")

    def full(flip):
        steps = ["build", "runtime", "blas", "memory", "torch"]
        i = 0
        while True:
            cls = "hipblas-failed" if (i % 97 == 0) != flip and i % 5 == 0 else "pass"
            yield {
                "id": f"torch2.{i % 9}.{i // 9 % 4}-rocm6.{i % 4}-py3.{10 + i % 3}-n{i}",
                "image": f"ghcr.io/example/rocm-torch:candidate-{i}",
                "classification": cls,
                "runtime": "hip",
                "gfx": ["gfx942", "gfx1100", "gfx90a", "gfx1201"][i % 4],
                "runner": f"gpu-runner-{i % 40}",
                "gpu": "AMD Instinct MI300X",
                "driver": "6.10.5",
                "rocm": "6.3.1",
                "total_ms": 61234.5 + i,
                "steps": [{"name": s, "status": "ok", "ms": 12.5 + k} for k, s in enumerate(steps)],
            }
            i += 1

    def minimal():
        i = 0
        while True:
            yield {"id": f"c{i}", "classification": "pass"}
            i += 1

    def long_ids():
        # 256-byte ids (the limit), distinct runners and details: what is held grows with text
        i = 0
        while True:
            yield {
                "id": f"n{i}-" + "x" * (256 - len(f"n{i}-")),
                "classification": "pass" if i % 3 else "crash",
                "runner": f"runner-{i}",
                "detail": f"d{i}-" + "y" * 40,
            }
            i += 1

    def many_steps():
        i = 0
        while True:
            yield {
                "id": f"s{i}",
                "classification": "pass",
                "steps": [{"name": f"step{k}", "status": "ok"} for k in range(64)],
            }
            i += 1

    write_night(out / "night.json", full(False))
    write_night(out / "night-prev.json", full(True))
    write_night(out / "night-min.json", minimal())
    write_night(out / "night-long.json", long_ids())
    write_night(out / "night-steps.json", many_steps())


if sys.argv[1] == "--memory":
    memory(pathlib.Path(sys.argv[2]))
    sys.exit(0)

out, size = pathlib.Path(sys.argv[1]), int(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
src = pathlib.Path(__file__).resolve().parent.parent / "tests" / "triage" / "worst"
for p in sorted(src.glob("*.txt")):
    text = p.read_text()
    head, _, unit = text.partition("%%unit\n") if "%%unit\n" in text else ("", "", text)
    parts, n, total = [head], 0, len(head.encode())
    while total < size:
        u = unit.replace("{n}", str(n))
        parts.append(u)
        total += len(u.encode())
        n += 1
    (out / p.name).write_text("".join(parts))
