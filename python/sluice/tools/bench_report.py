"""sluice bench's results: the median of the runs, the table, the per-stage table, the bar chart and
the JSON file."""
from __future__ import annotations

import json
import statistics

from .bench_measure import OPTIONAL_STAGES, STAGES
from .bench_peers import PEERS, counterpart, peer_of


def median_result(runs: list[dict]) -> dict:
    """One pipeline's figures over its --repeat runs: the median of each, every run's images/s."""
    out = dict(runs[0])
    for key in ("images_per_s", "cpu_s_per_image", "peak_rss_mb", "first_batch_s"):
        out[key] = statistics.median(r[key] for r in runs)
    out["runs"] = [r["images_per_s"] for r in runs]
    stages = [r.get("stage_ms_per_batch") or {} for r in runs]
    if stages and stages[0]:
        out["stage_ms_per_batch"] = {k: statistics.median(st.get(k, 0.0) for st in stages) for k in stages[0]}
    return out


def ratios(name: str, results: dict[str, dict]) -> dict[str, float]:
    """A Sluice pipeline's speed over each peer's counterpart that ran: {peer title: ratio}."""
    if peer_of(name) is not None:
        return {}
    out = {}
    for peer in PEERS:
        other = counterpart(name, peer)
        if other in results:
            out[peer.title] = results[name]["images_per_s"] / results[other]["images_per_s"]
    return out


def format_table(results: dict[str, dict]) -> str:
    """The results table: one row per pipeline, with a Sluice pipeline's speed over each peer's
    counterpart (a column per peer that ran: Sluice/torchvision, Sluice/DALI, Sluice/SPDL)."""
    per_row = {name: ratios(name, results) for name in results}
    titles = [p.title for p in PEERS if any(p.title in r for r in per_row.values())]
    rows = [("pipeline", "images/s", "CPU s/image", "peak RSS MB", "1st batch s", *(f"vs {t}" for t in titles))]
    for name, r in results.items():
        rows.append((name, f"{r['images_per_s']:.0f}", f"{r['cpu_s_per_image'] * 1000:.2f} ms", f"{r['peak_rss_mb']:.0f}",
                     f"{r['first_batch_s']:.2f}",
                     *(f"{per_row[name][t]:.2f}x" if t in per_row[name] else "" for t in titles)))
    if "train" in results and "decode-only" in results:
        rows.append(("train / decode-only (the libjpeg-turbo floor)",
                     f"{results['train']['images_per_s'] / results['decode-only']['images_per_s']:.2f}x",
                     *([""] * (len(rows[0]) - 2))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_stages(results: dict[str, dict]) -> str:
    """Per-stage ms per batch of the Sluice pipelines (a table, one row per pipeline)."""
    present = {n for r in results.values() for n in (r.get("stage_ms_per_batch") or {})}
    names = [name for name, _ in STAGES if name not in OPTIONAL_STAGES or name in present] + ["other"]
    rows = [("ms per batch", *names, "total")]
    for kind, r in results.items():
        st = r.get("stage_ms_per_batch") or {}
        if st:
            rows.append((kind, *(f"{st.get(n, 0.0):.2f}" for n in names), f"{sum(st.values()):.2f}"))
    if len(rows) == 1:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows)


def plot(results: dict[str, dict], path: str, title: str):
    """A bar chart of images/s (PNG), each Sluice pipeline labelled with its speed-up."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    values = [results[n]["images_per_s"] for n in names]
    colors = ["#999999" if peer_of(n) else "#1f77b4" for n in names]
    fig, ax = plt.subplots(figsize=(8, 4))
    bars = ax.bar(names, values, color=colors)
    for b, n in zip(bars, names):
        label = f"{b.get_height():.0f}"
        for peer_title, ratio in ratios(n, results).items():
            label += f"\n{ratio:.1f}x {peer_title}"
        ax.annotate(label, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=9)
    ax.set_ylabel("images/s (median)")
    ax.set_title(title)
    ax.margins(y=0.1 + 0.1 * max([len(ratios(n, results)) for n in names] + [1]))
    plt.xticks(rotation=20, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def write_json(path: str, obj):
    """`obj` as indented JSON to `path` ('-': standard output)."""
    text = json.dumps(obj, indent=2)
    if path == "-":
        print(text)
    else:
        with open(path, "w") as f:
            f.write(text + "\n")
