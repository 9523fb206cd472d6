#!/usr/bin/env python3
"""Turns one spatial_bench JSON run into the markdown tables of
docs/filters_spatial.md: median CPU ns per lookup, bytes, the share of wrong
answers, and each layout's ns as a ratio to the directory's in the same run.

  build/release/bench/filters/spatial_bench --benchmark_repetitions=5 \
      --benchmark_report_aggregates_only=true \
      --benchmark_out=/tmp/s.json --benchmark_out_format=json
  bench/filters/spatial_report.py /tmp/s.json
"""
import json
import re
import sys

BEST = re.compile(r"BM_best/(?P<layout>\w+?)_(?P<key>absent|present)/peers:(?P<peers>\d+)_median")
QUERY = re.compile(r"BM_query_(?P<filter>\w+)/(?P<key>absent|present)_median")
LAYOUTS = ["directory", "from_summaries", "union16", "equal_bytes"]


def cpu_ns(row):
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[row.get("time_unit", "ns")]
    return row["cpu_time"] * scale


def main(path):
    with open(path) as f:
        data = json.load(f)
    best, query, formulas = {}, {}, None
    for row in data["benchmarks"]:
        if m := BEST.match(row["name"]):
            best[(m["key"], int(m["peers"]), m["layout"])] = row
        elif m := QUERY.match(row["name"]):
            query[(m["key"], m["filter"])] = row
        elif row["name"].startswith("BM_formulas") and row["name"].endswith("_median"):
            formulas = row
    ctx = data.get("context", {})
    print(f"Host: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, {ctx.get('date')}, "
          f"load average {ctx.get('load_avg')}; median CPU ns of the repetitions.\n")
    print("| key | peers | layout | ns (vs directory) | bytes | k | wrong answers |")
    print("|---|---|---|---|---|---|---|")
    for key in ("absent", "present"):
        for peers in sorted({p for (k, p, _) in best if k == key}):
            base = best.get((key, peers, "directory"))
            for layout in LAYOUTS:
                row = best.get((key, peers, layout))
                if not row:
                    continue
                ratio = f" ({cpu_ns(row) / cpu_ns(base):.2f}x)" if base else ""
                k = str(int(row["k"])) if "k" in row else "4"
                print(f"| {key} | {peers} | {layout} | {cpu_ns(row):.1f}{ratio} | "
                      f"{row['bytes'] / 1e6:.1f} MB | {k} | {100 * row['wrong']:.3g}% |")
    if query:
        print("\n| key | SpatialBloomFilter::query ns (vs contains) | BloomFilter::contains ns | bytes spatial / bloom |")
        print("|---|---|---|---|")
        for key in ("absent", "present"):
            s, b = query.get((key, "spatial")), query.get((key, "bloom"))
            if s and b:
                print(f"| {key} | {cpu_ns(s):.1f} ({cpu_ns(s) / cpu_ns(b):.2f}x) | {cpu_ns(b):.1f} | "
                      f"{s['bytes'] / 1e6:.2f} MB / {b['bytes'] / 1e6:.2f} MB |")
    if formulas:
        print("\n| set | FPR measured | FPR formula | emersion measured | emersion formula |")
        print("|---|---|---|---|---|")
        i = 1
        while f"fpr{i}" in formulas:
            print(f"| {i} | {formulas[f'fpr{i}']:.3g} | {formulas[f'fpr{i}_formula']:.3g} | "
                  f"{formulas[f'emersion{i}']:.4f} | {formulas[f'emersion{i}_formula']:.4f} |")
            i += 1


if __name__ == "__main__":
    main(sys.argv[1])
