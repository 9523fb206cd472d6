#!/usr/bin/env python3
"""Turns one filters_bench JSON run into markdown: ns/op per filter and the
ratio to libbloom (or to the filter named second) measured in the same run,
bytes per key, and the false positive rate measured by contains_absent.

  build/release/bench/filters/filters_bench --benchmark_out=/tmp/f.json \
      --benchmark_out_format=json --benchmark_repetitions=3
  bench/filters/report.py /tmp/f.json [Counting]
"""
import json
import re
import statistics
import sys
from collections import defaultdict

NAME = re.compile(r"BM_(?P<op>\w+)<(?P<filter>\w+)>/n:(?P<n>\d+)/p_ppm:(?P<ppm>\d+)")


def ns_per_op(row):
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[row.get("time_unit", "ns")]
    per_iteration = row["cpu_time"] * scale
    return per_iteration / row.get("keys_per_iteration", 1.0)


def main(path, base_filter="LibBloom"):
    with open(path) as f:
        data = json.load(f)
    samples = defaultdict(list)
    memory = {}
    fpr = defaultdict(list)
    for row in data["benchmarks"]:
        if row.get("run_type") == "aggregate":
            continue
        m = NAME.match(row["name"])
        if not m:
            continue
        key = (m["op"], int(m["n"]), int(m["ppm"]), m["filter"].replace("Adapter", ""))
        samples[key].append(ns_per_op(row))
        if "bytes_per_key" in row:
            memory[key[1:]] = row["bytes_per_key"]
        if "fpr" in row:
            fpr[key[1:]].append(row["fpr"])
    ops = sorted({k[0] for k in samples})
    filters = sorted({k[3] for k in samples}, key=lambda f: (f != base_filter, f))
    ctx = data.get("context", {})
    print(f"Host: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, {ctx.get('date')}; "
          f"median of repetitions; ratio = ns/op / {base_filter}'s ns/op for the same op, n and p.\n")
    # Against libbloom, an add+remove pair is compared with one libbloom add
    # (the target), and again with libbloom's add of new keys when
    # that ran; against another filter, with that filter's pair.
    against_libbloom = base_filter == "LibBloom"
    tables = [(op, "add" if op == "add_remove_pair" and against_libbloom else op) for op in ops]
    if against_libbloom and "add_remove_pair" in ops and "add_new" in ops:
        tables.append(("add_remove_pair", "add_new"))
    for op, base_op in tables:
        title = op if base_op in (op, "add") else f"{op}, ratio to {base_filter}'s {base_op}"
        print(f"### {title}\n")
        print("| n | p | " + " | ".join(f"{f} ns/op (ratio)" for f in filters) + " |")
        print("|---|---|" + "---|" * len(filters))
        for n, ppm in sorted({(k[1], k[2]) for k in samples if k[0] == op}):
            base = samples.get((base_op, n, ppm, base_filter))
            base_ns = statistics.median(base) if base else None
            cells = []
            for f in filters:
                s = samples.get((op, n, ppm, f))
                if not s:
                    cells.append("")
                    continue
                v = statistics.median(s)
                ratio = f" ({v / base_ns:.2f}x)" if base_ns else ""
                cells.append(f"{v:.1f}{ratio}")
            print(f"| {n:.0e} | {ppm / 1e4:g}% | " + " | ".join(cells) + " |")
        print()
    print("### bytes per key\n")
    print("| n | p | " + " | ".join(filters) + " |")
    print("|---|---|" + "---|" * len(filters))
    for n, ppm in sorted({(k[1], k[2]) for k in samples}):
        cells = [f"{memory[(n, ppm, f)]:.3f}" if (n, ppm, f) in memory else "" for f in filters]
        print(f"| {n:.0e} | {ppm / 1e4:g}% | " + " | ".join(cells) + " |")
    if fpr:
        print("\n### measured false positive rate (contains_absent)\n")
        print("| n | p | " + " | ".join(filters) + " |")
        print("|---|---|" + "---|" * len(filters))
        for n, ppm in sorted({(k[1], k[2]) for k in samples}):
            cells = [f"{statistics.median(fpr[(n, ppm, f)]) * 100:.4f}%" if (n, ppm, f) in fpr
                     else "" for f in filters]
            print(f"| {n:.0e} | {ppm / 1e4:g}% | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/dev/stdin",
         sys.argv[2] if len(sys.argv) > 2 else "LibBloom")
