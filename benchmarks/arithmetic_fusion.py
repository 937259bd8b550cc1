"""A chain of 5 arithmetic operations on data nodes, fused (one arithmetic.expression) against the
same 5 operations as 5 separate operators (fn.arithmetic.scalar), side by side in one run.

    PYTHONPATH=python .venv/bin/python benchmarks/arithmetic_fusion.py [--batches 30] [--threads 2]

Reports the median over --repeat runs of the operators' mean time per batch (executor_statistics)
and the ratio. Input: a batch of 32 float32 images 224x224x3 from an external source.
"""
import argparse
import statistics

import numpy as np

import sluice
from sluice import fn


def run(fused, batch, threads, batches):
    data = [np.random.default_rng(i).random((224, 224, 3), dtype=np.float32) for i in range(batch)]
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, device_id=None, seed=1)
    with pipe:
        x = fn.external_source(source=lambda: data, layout="HWC")
        if fused:
            y = (((x * 2.0) + 1.0) - 0.5) / 3.0 * 0.25
        else:
            y = x
            for op, v in (("mul", 2.0), ("add", 1.0), ("sub", 0.5), ("div", 3.0), ("mul", 0.25)):
                y = fn.arithmetic.scalar(y, operation=op, scalar=v)
        pipe.set_outputs(y)
    pipe.build()
    out = None
    for _ in range(batches):
        out = pipe.run()
    got = np.array(out[0].as_array()[0])
    want = (((data[0] * 2.0) + 1.0) - 0.5) / 3.0 * 0.25
    assert np.allclose(got, want, rtol=1e-6), "wrong result"
    stats = pipe.executor_statistics()
    ops = {k: v for k, v in stats.items() if v["op"].startswith("arithmetic")}
    return len(ops), sum(v["mean_batch_ms"] for v in ops.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    fused, separate = [], []
    for _ in range(args.repeat):  # interleaved, so both see the same machine load
        n_f, t_f = run(True, args.batch_size, args.threads, args.batches)
        n_s, t_s = run(False, args.batch_size, args.threads, args.batches)
        fused.append(t_f)
        separate.append(t_s)
    f, s = statistics.median(fused), statistics.median(separate)
    print(f"fused:    {n_f} operator,  {f:.2f} ms per batch of {args.batch_size} x 224x224x3 float32")
    print(f"separate: {n_s} operators, {s:.2f} ms per batch")
    print(f"separate / fused: {s / f:.2f}x")


if __name__ == "__main__":
    main()
