"""Autotune against hand-picked settings, side by side in one run (issue 32).

For each recipe of sluice bench (train, val, train-randaug): every hand-picked setting
(num_threads 1..4 x prefetch_queue_depth 1..3, or --grid-threads x --grid-depths) and
num_threads="auto" + prefetch_queue_depth="auto" (and, with --baseline DIR, the same auto setting
with DIR/python's package: another commit's build, for before/after),
each in a fresh process, --rounds times in alternating order; throughput (images/s over the epochs
after the first, through the PyTorch iterator as sluice bench measures it) and peak RSS growth
(peak RSS of the process minus its RSS before the pipeline was built). Reports medians over rounds
and auto / best hand-picked.

Then memory_budget: the untuned setting (--threads, depth 2) gives the peak RSS growth G; a run
with memory_budget = G / 2 either stays under it (reported with its throughput loss) or fails
with the error naming memory_budget and the bytes one batch needs; a run at that smallest budget
that fits is then reported the same way.

    PYTHONPATH=python .venv/bin/python benchmarks/autotune.py --data /work/main/sample_data
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

RECIPES = ["train", "val", "train-randaug"]


def worker(args):
    from sluice.errors import SluiceError
    from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy
    from sluice.tools.bench_measure import PeakRss, rss_bytes
    from sluice.tools.bench_pipelines import sluice_pipeline

    threads = "auto" if args.threads == "auto" else int(args.threads)
    depth = "auto" if args.depth == "auto" else int(args.depth)
    kw = {"prefetch_queue_depth": depth}
    if args.budget:
        kw["memory_budget"] = int(args.budget)
    base = rss_bytes()
    out = {"recipe": args.worker, "threads": args.threads, "depth": args.depth, "budget": args.budget}
    with PeakRss() as peak:
        pipe = sluice_pipeline(args.worker, args.data, args.batch_size, threads, args.seed, **kw)
        try:
            it = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
                                            auto_reset=True)
            images, t0 = 0, None
            for epoch in range(args.epochs):
                if epoch == 1:
                    t0, images = time.perf_counter(), 0
                for b in it:
                    images += b[0]["data"].shape[0]
            out["images_per_s"] = images / (time.perf_counter() - t0)
        except SluiceError as e:
            out["error"] = str(e)
    out["rss_growth_mb"] = (peak.peak - base) / 2**20
    stats = pipe.executor_statistics() if pipe._cpp is not None else {}
    if "autotune" in stats:
        a = stats["autotune"]
        out["autotune"] = {k: a[k] for k in ("threads", "depth", "max_threads", "max_depth")}
        out["autotune"]["needed_mb"] = a["measured"]["needed_bytes"] / 2**20
        out["autotune"]["changes"] = [(c["batch"], c["threads"], c["depth"]) for c in a["changes"]]
        if a.get("search"):
            out["autotune"]["trials"] = [(t["threads"], round(t["batches_per_s"], 2), t["kept"])
                                         for t in a["search"]["trials"]]
    print(json.dumps(out))


def run(args, recipe, threads, depth, budget=0, build=None):
    """One fresh process; `build`: "baseline" runs it with --baseline's python package."""
    cmd = [sys.executable, __file__, "--worker", recipe, "--threads", str(threads), "--depth", str(depth),
           "--data", args.data, "--epochs", str(args.epochs), "--batch-size", str(args.batch_size),
           "--seed", str(args.seed)]
    if budget:
        cmd += ["--budget", str(int(budget))]
    path = os.path.join(args.baseline, "python") if build == "baseline" else "python"
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": path})
    if proc.returncode != 0:
        raise SystemExit(f"autotune bench: {recipe} threads={threads} depth={depth} failed ({proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def med(rs, key):
    vals = [r[key] for r in rs if key in r]
    return statistics.median(vals) if vals else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="sample_data")
    ap.add_argument("--recipes", default=",".join(RECIPES))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3, help="per run; throughput counts epochs 2..")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", default="2", help="the untuned setting's num_threads (budget part)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--grid-threads", default="1,2,3,4", help="hand-picked num_threads values")
    ap.add_argument("--grid-depths", default="1,2,3", help="hand-picked prefetch_queue_depth values")
    ap.add_argument("--baseline", help="a checkout of another commit with its package built (python/): its "
                                       "auto setting runs alternately with this one's (before/after)")
    ap.add_argument("--skip-grid", action="store_true")
    ap.add_argument("--skip-budget", action="store_true")
    ap.add_argument("--json", help="write every run here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--depth", default="2", help=argparse.SUPPRESS)
    ap.add_argument("--budget", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    recipes = [r for r in args.recipes.split(",") if r]
    print(f"autotune bench: {os.cpu_count()} CPUs, batch {args.batch_size}, {args.epochs} epochs per run "
          f"(throughput over epochs 2..{args.epochs}), median of {args.rounds} rounds in alternating order, {args.data}")
    every = []
    for recipe in recipes:
        if not args.skip_grid:
            threads_grid = [int(t) for t in args.grid_threads.split(",")]
            depths = [int(d) for d in args.grid_depths.split(",")]
            hand = [(t, d) for t in threads_grid for d in depths]
            autos = [("auto", "auto")] + ([("auto", "auto", "baseline")] if args.baseline else [])
            settings = hand + autos
            results = {s: [] for s in settings}
            for rnd in range(args.rounds):
                for s in (settings if rnd % 2 == 0 else settings[::-1]):
                    r = run(args, recipe, s[0], s[1], build=s[2] if len(s) > 2 else None)
                    r["build"] = s[2] if len(s) > 2 else "this"
                    results[s].append(r)
                    every.append(r)
            rows = {s: med(rs, "images_per_s") for s, rs in results.items()}
            best = max(hand, key=lambda s: rows[s])
            print(f"\n{recipe}: images/s (median of {args.rounds}); rows threads, columns depth "
                  + ",".join(map(str, depths)))
            for t in threads_grid:
                print(f"  {t} threads: " + "  ".join(f"{rows[(t, d)]:7.1f}" for d in depths))
            for s in autos:
                label = "auto (baseline build)" if len(s) > 2 else "auto"
                auto = rows[s]
                # Per round: auto over the best hand-picked setting's run of the same round.
                per_round = [a["images_per_s"] / b["images_per_s"] for a, b in zip(results[s], results[best])]
                print(f"  {label}: {auto:7.1f} images/s, ratio to the best hand-picked ({best[0]} threads, depth "
                      f"{best[1]}: {rows[best]:.1f}) = {auto / rows[best]:.3f}; per round auto/best: "
                      + ", ".join(f"{q:.3f}" for q in per_round) + f" (median {statistics.median(per_round):.3f})")
                for r in results[s]:
                    c = r.get("autotune", {})
                    print(f"    threads {c.get('threads')} depth {c.get('depth')} changes {c.get('changes')}"
                          + (f" trials {c['trials']}" if c.get("trials") else ""))
        if not args.skip_budget:
            untuned = [run(args, recipe, args.threads, 2) for _ in range(args.rounds)]
            growth = med(untuned, "rss_growth_mb")
            budget = growth / 2 * 2**20
            print(f"\n{recipe}: untuned ({args.threads} threads, depth 2) {med(untuned, 'images_per_s'):.1f} images/s, "
                  f"peak RSS growth {growth:.1f} MB; memory_budget = half = {budget / 2**20:.1f} MB")
            half = run(args, recipe, args.threads, 2, budget)
            every += untuned + [half]
            budgets = [(budget, half)]
            if "error" in half:
                print(f"  memory_budget {budget / 2**20:.1f} MB: error: {half['error']}")
                # A batch's bytes vary with the samples (random crops): 15% above this run's.
                needed = int(int(half["error"].split("one batch needs ")[1].split(" bytes")[0]) * 1.15)
                fit = run(args, recipe, args.threads, 2, needed)
                every.append(fit)
                budgets = [(needed, fit)]
            for b, r in budgets:
                if "error" in r:
                    print(f"  memory_budget {b / 2**20:.1f} MB: error: {r['error']}")
                    continue
                # Alternate with an untuned run for the throughput ratio.
                pair = [(r, untuned[0])]
                for _ in range(args.rounds - 1):
                    pair.append((run(args, recipe, args.threads, 2, b), run(args, recipe, args.threads, 2)))
                ratios = [x["images_per_s"] / y["images_per_s"] for x, y in pair]
                print(f"  memory_budget {b / 2**20:.1f} MB: depth {r['autotune']['depth']}, accounted "
                      f"{r['autotune']['needed_mb']:.1f} MB, peak RSS growth "
                      f"{statistics.median(x['rss_growth_mb'] for x, _ in pair):.1f} MB "
                      f"({'under' if max(x['rss_growth_mb'] for x, _ in pair) <= b / 2**20 else 'OVER'} the budget); "
                      f"throughput / untuned = {statistics.median(ratios):.3f} (per round {', '.join(f'{q:.3f}' for q in ratios)})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(every, f, indent=1)


if __name__ == "__main__":
    main()
