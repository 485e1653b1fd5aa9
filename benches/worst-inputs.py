#!/usr/bin/env python3
"""Writes each reader's worst input (tests/triage/worst/*.txt) grown to SIZE bytes into DIR.

    benches/worst-inputs.py DIR SIZE

The growth rule is tests/triage_scaling.rs's: the header once, then the unit repeated with
`{n}` replaced by the repetition's number until the text has at least SIZE bytes.
"""
import pathlib
import sys

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
