#!/usr/bin/env python3
# Two or more rocmcheck binaries side by side on the worst inputs at 1 MB (benches/worst-inputs.py
# /tmp/side-w1 1000000 first): MB/s, the fastest of five runs of `triage --format json` each, the
# binaries taking turns per shape so that a load change hits them alike.
#   python3 benches/triage-side-by-side.py OLD_BINARY NEW_BINARY
import subprocess, time, glob, os, sys
bins = sys.argv[1:]
files = sorted(glob.glob("/tmp/side-w1/*.txt"))
print("| shape | " + " | ".join(os.path.basename(b) for b in bins) + " |")
for f in files:
    size = os.path.getsize(f)
    row=[]
    for b in bins:
        best=1e9
        for _ in range(int(os.environ.get("RUNS","5"))):
            t=time.perf_counter(); subprocess.run([b,"triage","--format","json",f],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); e=time.perf_counter()-t
            best=min(best,e)
        row.append(f"{size/1e6/best:.1f}")
    print(f"| {os.path.basename(f)[:-4]} | " + " | ".join(row) + " |")
