#!/usr/bin/env python3
"""Re-run `rocmcheck lint` over the judged corpus of real public files and score it.

The files themselves are not in this repository (they belong to other projects);
tests/corpus-real/manifest.tsv names each one by repository, path and commit, and
tests/corpus-real/README.md says how they were fetched. Given the folder they were
fetched into (laid out as <owner>/<repo>/<path>, the manifest's `fetched_as`
column) and a rocmcheck binary, this script lints every file, matches each error
and warning to tests/corpus-real/judgments.tsv by (repo, path, line, code) and
prints, per file kind and per split:

  * errors and warnings judged true / false / debatable, and the precision
    true / (true + false) (debatable findings are left out of it) and the strict
    precision true / (true + false + debatable);
  * the number of true findings;
  * files the binary refused (exit 2);
  * findings nobody has judged yet (new findings), and judged findings the binary
    no longer reports (so a drop in true findings is visible).

Usage:
  scripts/corpus-real.py --files /work/corpus-real/files --bin target/debug/rocmcheck

Exit status: 0 when every manifest file was found and linted, 2 on a usage error,
when fetched files are missing, or when a file's sha256 differs from the
manifest's (the judgments were made on other text).
"""

import argparse
import collections
import csv
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "..", "tests", "corpus-real")
SEVERITIES = ("error", "warning")
KINDS = ("dockerfile", "compose", "devcontainer", "manifest")
SPLITS = ("dev", "held-out")


def die(message):
    """Report a usage or input error and exit 2."""
    print(message, file=sys.stderr)
    sys.exit(2)


def read_tsv(path, required):
    """Rows of a tab-separated file with a header, as dicts; a clear error if malformed."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                die(f"error: {path}:1: header lacks column(s) {', '.join(missing)}")
            rows = []
            for number, row in enumerate(reader, start=2):
                if None in row or any(row[c] is None for c in required):
                    die(f"error: {path}:{number}: expected {len(reader.fieldnames)} tab-separated fields")
                rows.append(row)
            return rows
    except OSError as err:
        die(f"error: cannot read {path}: {err}")


def lint(binary, target, timeout):
    """Run the binary on one file; return (exit code, findings list, stderr)."""
    try:
        proc = subprocess.run(
            [binary, "lint", "--format", "json", "--offline", "--color", "never", target],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None, [], f"timed out after {timeout}s"
    except OSError as err:
        die(f"error: cannot run {binary}: {err}")
    findings = []
    if proc.stdout.strip():
        try:
            report = json.loads(proc.stdout)
        except json.JSONDecodeError as err:
            return proc.returncode, [], f"output is not JSON ({err})"
        for subject in report.get("subjects", []):
            findings.extend(subject.get("findings", []))
    return proc.returncode, findings, proc.stderr.strip()


def repo_relative(origin_path, repo_dir, fallback):
    """The finding's file as a path inside its repository (a Dockerfile's finding may sit in a file it COPYs)."""
    if not origin_path:
        return fallback
    full = os.path.abspath(origin_path)
    root = os.path.abspath(repo_dir) + os.sep
    if full.startswith(root):
        return full[len(root):].replace(os.sep, "/")
    return origin_path


def pct(num, den):
    return f"{100.0 * num / den:5.1f} %" if den else "    - "


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", required=True, help="folder the manifest's files were fetched into")
    parser.add_argument("--bin", required=True, help="rocmcheck binary to run")
    parser.add_argument("--manifest", default=os.path.join(DEFAULT_DIR, "manifest.tsv"))
    parser.add_argument("--judgments", default=os.path.join(DEFAULT_DIR, "judgments.tsv"))
    parser.add_argument("--split", choices=SPLITS, help="score only this split")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per file")
    parser.add_argument("--allow-changed", action="store_true",
                        help="score files whose sha256 differs from the manifest's")
    args = parser.parse_args()

    if not os.path.isdir(args.files):
        die(f"error: --files {args.files}: not a directory")
    manifest = read_tsv(args.manifest, ("split", "kind", "repo", "path", "commit", "fetched_as", "sha256"))
    judgments = read_tsv(args.judgments, ("split", "repo", "path", "line", "code", "verdict"))

    verdicts = {}
    for row in judgments:
        if row["code"] == "-":
            continue
        if row["verdict"] not in ("true", "false", "debatable"):
            die(f"error: {args.judgments}: {row['repo']} {row['path']}:{row['line']} {row['code']}: "
                     f"verdict `{row['verdict']}`, expected true, false or debatable")
        verdicts[(row["repo"], row["path"], row["line"], row["code"])] = row["verdict"]

    missing = [m["fetched_as"] for m in manifest if not os.path.isfile(os.path.join(args.files, m["fetched_as"]))]
    if missing:
        for name in missing[:10]:
            print(f"error: {os.path.join(args.files, name)}: not fetched", file=sys.stderr)
        die(f"error: {len(missing)} of {len(manifest)} manifest files are missing under {args.files}")
    changed = []
    for entry in manifest:
        with open(os.path.join(args.files, entry["fetched_as"]), "rb") as handle:
            if hashlib.sha256(handle.read()).hexdigest() != entry["sha256"]:
                changed.append(entry["fetched_as"])
    if changed and not args.allow_changed:
        for name in changed[:10]:
            print(f"error: {os.path.join(args.files, name)}: sha256 differs from the manifest "
                  f"(fetched at another commit?)", file=sys.stderr)
        die(f"error: {len(changed)} fetched files differ from the judged text; "
                 f"the judgments do not apply to them (--allow-changed scores them anyway)")

    # score[(split, kind)][severity][verdict] = count
    score = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    refused = collections.Counter()
    files = collections.Counter()
    unjudged = []
    seen = set()
    for entry in manifest:
        if args.split and entry["split"] != args.split:
            continue
        key = (entry["split"], entry["kind"])
        files[key] += 1
        target = os.path.join(args.files, entry["fetched_as"])
        repo_dir = target[: -len(entry["path"])] if target.endswith(entry["path"]) else os.path.dirname(target)
        code, findings, stderr = lint(args.bin, target, args.timeout)
        if code is None or code == 2 or code not in (0, 1):
            refused[key] += 1
            first = stderr.splitlines()[0] if stderr else f"exit {code}"
            print(f"refused  {entry['repo']} {entry['path']}: {first}")
            continue
        for finding in findings:
            severity = finding.get("severity")
            if severity not in SEVERITIES:
                continue
            origin = finding.get("origin") or {}
            path = repo_relative(origin.get("path"), repo_dir, entry["path"])
            line = str(origin.get("line", "-"))
            fkey = (entry["repo"], path, line, finding.get("code", "?"))
            seen.add(fkey)
            verdict = verdicts.get(fkey)
            if verdict is None:
                unjudged.append((entry["split"], entry["kind"], fkey, severity, finding.get("title", "")))
                verdict = "unjudged"
            score[key][severity][verdict] += 1

    gone = []
    for row in judgments:
        if row["code"] == "-" or (args.split and row["split"] != args.split):
            continue
        fkey = (row["repo"], row["path"], row["line"], row["code"])
        if fkey not in seen:
            gone.append((row["split"], fkey, row["verdict"]))

    print()
    header = f"{'split':9} {'kind':13} {'files':>5} {'refused':>7}  {'severity':8} {'true':>4} {'false':>5} {'debat.':>6} {'new':>4}  {'precision':>9} {'strict':>8}"
    print(header)
    print("-" * len(header))
    totals = collections.defaultdict(collections.Counter)
    for split in SPLITS:
        for kind in KINDS:
            key = (split, kind)
            if not files[key]:
                continue
            for severity in SEVERITIES:
                c = score[key][severity]
                totals[severity].update(c)
                judged = c["true"] + c["false"]
                print(f"{split:9} {kind:13} {files[key]:5d} {refused[key]:7d}  {severity:8} {c['true']:4d} {c['false']:5d} "
                      f"{c['debatable']:6d} {c['unjudged']:4d}  {pct(c['true'], judged):>9} "
                      f"{pct(c['true'], judged + c['debatable']):>8}")
    print("-" * len(header))
    for severity in SEVERITIES:
        c = totals[severity]
        judged = c["true"] + c["false"]
        print(f"{'all':9} {'all':13} {sum(files.values()):5d} {sum(refused.values()):7d}  {severity:8} {c['true']:4d} {c['false']:5d} "
              f"{c['debatable']:6d} {c['unjudged']:4d}  {pct(c['true'], judged):>9} {pct(c['true'], judged + c['debatable']):>8}")
    print()
    print(f"true findings (errors and warnings): {sum(totals[s]['true'] for s in SEVERITIES)}")
    if unjudged:
        print(f"\nunjudged new findings ({len(unjudged)}): judge them in {os.path.relpath(args.judgments)}")
        for split, kind, (repo, path, line, code), severity, title in unjudged:
            print(f"  {split:9} {kind:13} {repo} {path}:{line} {code} {severity}: {title}")
    if gone:
        lost = sum(1 for g in gone if g[2] == "true")
        print(f"\njudged findings no longer reported ({len(gone)}, of them true: {lost})")
        for split, (repo, path, line, code), verdict in gone:
            print(f"  {split:9} {repo} {path}:{line} {code} (was {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
