"""sluice bench: the ImageNet training and validation input pipelines, Sluice against PyTorch's
DataLoader with torchvision transforms, NVIDIA DALI (CPU) and SPDL, side by side in one run.

Each measurement runs in its own subprocess (clean peak RSS and CPU accounting); every pipeline is
run --repeat times, the pipelines taking turns, and the median is reported. Run `python -m sluice.tools.bench --help`.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys

from .bench_data import dataset_bytes, dataset_images, ensure_data, prepared_shards
from .bench_measure import measure, soak_verdict
from .bench_peers import PEERS, unavailable, worker_command, worker_env
from .bench_pipelines import ALL_PIPELINES
from .bench_report import format_stages, format_table, median_result, plot, write_json


def run_in_subprocess(kind: str, args) -> dict:
    """One run of pipeline `kind`, measured in a fresh process (this module with --worker), with the
    interpreter of its peer (bench_peers)."""
    proc = subprocess.run(worker_command(kind, args), stdout=subprocess.PIPE, text=True, env=worker_env())
    if proc.returncode != 0:
        raise SystemExit(f"sluice bench: pipeline '{kind}' failed (exit code {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="sluice bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.environ.get("SLUICE_DATA", "sample_data"),
                    help="dataset folder with train/<class>/*.jpg and wds/*.tar (default: sample_data, built if "
                         "missing), or a `sluice prepare` output (every pipeline, the baselines too, reads its shards)")
    ap.add_argument("--threads", type=int, default=2, help="Sluice num_threads and DataLoader num_workers")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="runs per pipeline; the median is reported")
    ap.add_argument("--pipelines", default="train,val,train-wds,decode-only,torchvision-train,torchvision-val,"
                                           "dali-train,dali-val,spdl-train,spdl-val",
                    help="comma-separated: " + ", ".join(ALL_PIPELINES) + " (a peer that does not import is skipped)")
    for peer in PEERS:
        if peer.python_option:
            var = f"SLUICE_{peer.name.upper()}_PYTHON"
            ap.add_argument(peer.python_option, metavar="PYTHON", default=os.environ.get(var),
                            help=f"the Python that runs the {peer.title} rows (default: ${var}, else this one), "
                                 f"e.g. a venv with {peer.module}")
    ap.add_argument("--decode-only", action="store_true", help="measure only the full-decode floor")
    ap.add_argument("--scaling", action="store_true", help="also run the train pipeline with 1 thread and report the 1->N speed-up")
    ap.add_argument("--soak", action="store_true", help="memory soak: RSS after every epoch of the train pipeline")
    ap.add_argument("--soak-limit", type=float, default=0.02,
                    help="RSS growth allowed after the second epoch: a quarter of it per epoch (median), four times it in all")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON ('-' for stdout)")
    ap.add_argument("--plot", metavar="PNG", help="write a bar chart")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    return ap


def main(argv=None):
    args = build_parser().parse_args(argv)

    if args.worker:
        r = measure(args.worker, args.data, args.batch_size, args.threads, args.epochs, args.seed, not args.no_progress)
        print(json.dumps(r))
        return 0

    ensure_data(args.data)
    if args.soak:
        r = measure("train", args.data, args.batch_size, args.threads, max(4, args.epochs), args.seed, not args.no_progress)
        rss = r["rss_per_epoch_mb"]
        for i, v in enumerate(rss):
            print(f"epoch {i + 1}: RSS {v:.1f} MB")
        passed, per_epoch, growth = soak_verdict(rss, args.soak_limit)
        verdict = "PASS" if passed else "FAIL"
        print(f"soak: RSS growth per epoch after epoch 2 (median): {per_epoch * 100:+.2f}% "
              f"(limit {args.soak_limit * 25:.2f}%), in all {growth * 100:+.2f}% (limit {args.soak_limit * 400:.0f}%): "
              f"{verdict}")
        if args.json:
            write_json(args.json, {"soak": r, "growth": growth, "per_epoch": per_epoch, "pass": verdict == "PASS"})
        return 0 if verdict == "PASS" else 1

    kinds = ["decode-only"] if args.decode_only else [k.strip() for k in args.pipelines.split(",") if k.strip()]
    for k in kinds:
        if k not in ALL_PIPELINES:
            raise SystemExit(f"sluice bench: unknown pipeline '{k}' (choose from {', '.join(ALL_PIPELINES)})")
    if prepared_shards(args.data) is not None:
        kinds = [k for k in kinds if k != "train-wds"]  # every pipeline reads the shards already
    elif "train-wds" in kinds and not glob.glob(os.path.join(args.data, "wds", "*.tar")):
        print("sluice bench: no WebDataset shards in data/wds; skipping train-wds", file=sys.stderr)
        kinds.remove("train-wds")
    for k in list(kinds):
        reason = unavailable(k, args)
        if reason:
            print(f"sluice bench: skipping {k}: {reason}", file=sys.stderr)
            kinds.remove(k)
    print(f"sluice bench: {dataset_images(args.data)} images ({dataset_bytes(args.data) / 2**20:.1f} MiB"
          f"{' in prepared shards' if prepared_shards(args.data) is not None else ''}) in {args.data}, "
          f"{args.threads} threads, batch {args.batch_size}, {args.epochs} epoch(s), median of {args.repeat}", file=sys.stderr)
    # Round robin: the machine's load drifts, so each pipeline gets a run in every round.
    runs = {k: [] for k in kinds}
    for _ in range(args.repeat):
        for k in kinds:
            runs[k].append(run_in_subprocess(k, args))
    results = {k: median_result(runs[k]) for k in kinds}
    if args.scaling and "train" in results:
        one = argparse.Namespace(**{**vars(args), "threads": 1})
        r1 = median_result([run_in_subprocess("train", one) for _ in range(args.repeat)])
        results["train-1thread"] = r1
    print(format_table(results))
    stages = format_stages(results)
    if stages:
        print("where the time goes (executor_statistics, median over runs):")
        print(stages)
    if "train-1thread" in results:
        print(f"scaling 1 -> {args.threads} threads (train): "
              f"{results['train']['images_per_s'] / results['train-1thread']['images_per_s']:.2f}x")
    machine = f"{os.cpu_count()} CPUs"
    if args.json:
        write_json(args.json, {"machine": machine, "results": results})
    if args.plot:
        plot(results, args.plot, f"Sluice and its peers ({args.threads} threads, {machine})")
        print(f"plot: {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
