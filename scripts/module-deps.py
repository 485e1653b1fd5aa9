#!/usr/bin/env python3
"""module-deps.py [--level N] [--show A B] : the module graph of src/ from `crate::` paths.

Reads every src/**/*.rs (comment lines and test modules, `#[cfg(test)] mod tests { ... }` to
the end of the file, are left out), collects each `crate::a::b` path (in `use` lines and inline), and prints:
  - the import cycles between modules, cut at depth N (default 2: `dockerfile::resolve`);
  - with --show A B: every line of module A that names module B.
Exit status 1 when there is a cycle. Modules are folders and files (`cli/matrix.rs` is
`cli::matrix`, `dockerfile/mod.rs` is `dockerfile`).
"""
import argparse, pathlib, re, sys
from collections import defaultdict

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
PATH = re.compile(r"\bcrate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)")
GROUP = re.compile(r"\bcrate::((?:[a-z_][a-z0-9_]*::)*)\{([^}]*)\}", re.S)
SUPER = re.compile(r"\bsuper::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)")


def module_of(path):
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def known_modules():
    mods = set()
    for p in SRC.rglob("*.rs"):
        m = module_of(p)
        for i in range(1, len(m) + 1):
            mods.add("::".join(m[:i]))
    return mods


def cut(parts, mods, level):
    """The longest known module prefix of a path, cut at `level`."""
    best = None
    for i in range(1, len(parts) + 1):
        if "::".join(parts[:i]) in mods:
            best = parts[:i]
    return "::".join(best[:level]) if best else None


def edges(level):
    mods = known_modules()
    out = defaultdict(lambda: defaultdict(list))
    for p in sorted(SRC.rglob("*.rs")):
        me_parts = module_of(p)
        if not me_parts:
            continue
        me = "::".join(me_parts[:level])
        text = p.read_text(encoding="utf-8")
        m = re.search(r"#\[cfg\(test\)\]\s*mod tests", text)
        if m:
            text = text[: m.start()]
        for n, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("//"):
                continue  # comments and doc links are not arrows
            paths = [g.split("::") for g in PATH.findall(line)]
            for prefix, inner in GROUP.findall(line):
                for item in inner.split(","):
                    item = item.strip().split(" as ")[0].strip()
                    if item and item != "self":
                        paths.append((prefix + item).split("::"))
                    elif item == "self":
                        paths.append(prefix.rstrip(":").split("::"))
            for s in SUPER.findall(line):
                base = me_parts[:-1] if p.name != "mod.rs" else me_parts[:-1]
                paths.append(base + s.split("::"))
            for parts in paths:
                target = cut([x for x in parts if x], mods, level)
                if target and target != me and not me.startswith(target + "::") and not target.startswith(me + "::"):
                    out[me][target].append(f"{p.relative_to(SRC.parent)}:{n}")
    return out


def cycles(g):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, comps, i = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = i[0]; i[0] += 1
        stack.append(v); on.add(v)
        for w in g.get(v, {}):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(g):
        if v not in index:
            visit(v)
    return comps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--level", type=int, default=2)
    ap.add_argument("--show", nargs=2, metavar=("FROM", "TO"))
    a = ap.parse_args()
    g = edges(a.level)
    if a.show:
        for site in g.get(a.show[0], {}).get(a.show[1], []):
            print(site)
        return 0
    comps = cycles(g)
    for c in comps:
        print("cycle: " + " <-> ".join(c))
        for x in c:
            for y in c:
                if y in g.get(x, {}):
                    print(f"  {x} -> {y}: {', '.join(g[x][y][:3])}{' ...' if len(g[x][y]) > 3 else ''}")
    print(f"{len(comps)} cycle(s) among {len(g)} modules at depth {a.level}")
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main())
