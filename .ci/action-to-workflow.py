#!/usr/bin/env python3
"""Wraps a composite action's steps into a reusable workflow so actionlint can check them.

actionlint checks workflow files; it reads a local action's metadata (inputs) where a workflow
uses it, but not the composite action's own `run:` scripts and expressions. This turns
`.github/actions/X/action.yml` into an equivalent `on: workflow_call` workflow (inputs become
string inputs, the steps become one job's steps) and prints it as JSON (which is YAML).
"""

import json
import sys

import yaml


def main() -> int:
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        action = yaml.safe_load(f)
    for key in ("name", "description", "runs"):
        if key not in action:
            print(f"{path}: missing required key `{key}`", file=sys.stderr)
            return 1
    runs = action["runs"]
    if runs.get("using") != "composite":
        print(f"{path}: runs.using is {runs.get('using')!r}, expected 'composite'", file=sys.stderr)
        return 1
    inputs = {}
    for name, spec in (action.get("inputs") or {}).items():
        spec = spec or {}
        if "description" not in spec:
            print(f"{path}: input `{name}` has no description", file=sys.stderr)
            return 1
        inp = {"type": "string", "required": bool(spec.get("required", False)), "description": spec["description"]}
        if "default" in spec and not str(spec["default"]).startswith("${{"):
            inp["default"] = str(spec["default"])
        inputs[name] = inp
    steps = []
    for i, step in enumerate(runs.get("steps") or []):
        if "run" in step and "shell" not in step:
            print(f"{path}: step {i + 1} has `run` but no `shell` (required in composite actions)", file=sys.stderr)
            return 1
        steps.append(step)
    outputs = {}
    for name, spec in (action.get("outputs") or {}).items():
        outputs[name] = {"description": spec.get("description", name), "value": "${{ jobs.action.outputs.%s }}" % name}
    job_outputs = {name: spec["value"] for name, spec in (action.get("outputs") or {}).items()}
    wf = {
        "name": f"actionlint wrapper for {path}",
        "on": {"workflow_call": {"inputs": inputs, **({"outputs": outputs} if outputs else {})}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", **({"outputs": job_outputs} if job_outputs else {}), "steps": steps}},
    }
    json.dump(wf, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
