#!/usr/bin/env python3
"""Markdown table of bench_kernels_vs_opencv's results: time per image on each side and the ratio
OpenCV time / Sluice time (> 1: Sluice is faster).

    bench_kernels_vs_opencv --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \\
        --benchmark_out=vs_opencv.json --benchmark_out_format=json
    python3 benchmarks/opencv_ratio_table.py vs_opencv.json

Benchmarks are named <op>/<sluice|opencv>/<width>x<height>. With repetitions the median is used
(the aggregate named by --aggregate), else the single run. Times are CPU times by default (one
thread: the time the kernel ran, not the time a busy machine kept it waiting); --field real_time
for wall-clock times.
"""
import argparse
import json
import sys

TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def collect(report, field, aggregate):
    """{(op, size): {side: (microseconds, entry)}} from a Google Benchmark JSON report."""
    rows = {}
    has_aggregates = any(b.get("run_type") == "aggregate" for b in report["benchmarks"])
    for b in report["benchmarks"]:
        if has_aggregates and (b.get("run_type") != "aggregate" or b.get("aggregate_name") != aggregate):
            continue
        if b.get("error_occurred"):
            continue
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) != 3 or parts[1] not in ("sluice", "opencv"):
            continue
        op, side, size = parts
        us = b[field] * TO_US[b.get("time_unit", "ns")]
        rows.setdefault((op, size), {})[side] = (us, b)
    return rows


def size_key(size):
    w, _, h = size.partition("x")
    return (int(w) * int(h)) if w.isdigit() and h.isdigit() else 0


def table(rows, field, aggregate, has_aggregates):
    what = f"{aggregate} {field}" if has_aggregates else field
    lines = [
        f"| op | image | Sluice (µs/image) | OpenCV (µs/image) | OpenCV / Sluice | mean abs diff |",
        "|---|---|---:|---:|---:|---:|",
    ]
    order = []
    for op, size in rows:
        if op not in order:
            order.append(op)
    for op in order:
        for size in sorted((s for o, s in rows if o == op), key=size_key):
            sides = rows[(op, size)]
            if "sluice" not in sides or "opencv" not in sides:
                continue
            s_us, o_us = sides["sluice"][0], sides["opencv"][0]
            diff = sides["opencv"][1].get("mean_abs_diff")
            diff_s = f"{diff:.3f}" if isinstance(diff, (int, float)) else "-"
            lines.append(f"| {op} | {size} | {s_us:,.1f} | {o_us:,.1f} | {o_us / s_us:.2f}x | {diff_s} |")
    lines.append("")
    lines.append(f"Times: {what} per image, one thread. Ratio > 1: Sluice is faster.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="Google Benchmark JSON output (--benchmark_out_format=json)")
    ap.add_argument("--field", choices=["cpu_time", "real_time"], default="cpu_time")
    ap.add_argument("--aggregate", default="median", help="aggregate to use with repetitions (default median)")
    args = ap.parse_args()
    with open(args.json) as f:
        report = json.load(f)
    rows = collect(report, args.field, args.aggregate)
    if not rows:
        sys.exit(f"{args.json}: no <op>/<sluice|opencv>/<size> benchmarks found")
    has_aggregates = any(b.get("run_type") == "aggregate" for b in report["benchmarks"])
    ctx = report.get("context", {})
    if "image" in ctx:
        print(f"Input: {ctx['image']}; OpenCV {ctx.get('opencv', '?')}, {ctx.get('opencv_threads', '?')} thread(s); "
              f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz.\n")
    print(table(rows, args.field, args.aggregate, has_aggregates))


if __name__ == "__main__":
    main()
