"""The peers sluice bench compares Sluice with, and how each is launched: PyTorch's DataLoader with
torchvision transforms, NVIDIA DALI in CPU mode and Meta's SPDL. This is the one list of them: the
pipeline names ("<peer>-<recipe>"), the report's ratio columns, which interpreter runs a peer and
why a peer's rows are skipped all come from PEERS.

A peer's rows run in their own process like every pipeline's, with the peer's interpreter: DALI and
SPDL are best installed in venvs of their own (`--dali-python`, `--spdl-python`), which must also
import this package: made from a Python of the version Sluice's compiled module was built for. The
DALI and SPDL workers need NumPy, not torch."""
from __future__ import annotations

import functools
import importlib
import os
import subprocess
import sys
from dataclasses import dataclass

import sluice


@dataclass(frozen=True)
class Peer:
    name: str  # the pipelines' prefix: "<name>-<recipe>"
    title: str  # its column in the report: "vs <title>"
    module: str  # what must import in its interpreter
    recipes: tuple[str, ...]  # the Sluice recipes it has a counterpart of
    python_option: str | None  # the bench option naming another interpreter for it, or None
    install: str  # printed when it cannot be imported
    epochs: str  # "module:function" in sluice.tools, (recipe, data, batch_size, threads, seed) ->
    #              one iterable of (images, labels) batches per epoch, run in the worker

    def epochs_function(self):
        module, function = self.epochs.split(":")
        return getattr(importlib.import_module(module, __package__), function)


PEERS = (
    Peer("torchvision", "torchvision", "torchvision", ("train", "val", "train-randaug"), None,
         "apt-get install python3-torchvision", ".bench_pipelines:torchvision_epochs"),
    Peer("dali", "DALI", "nvidia.dali", ("train", "val"), "--dali-python",
         'pip install nvidia-dali-cuda120==2.4.0 nvidia-nvimgcodec-cu12 "numpy<2" (see docs/benchmarks.md: peers)',
         ".bench_pipelines:dali_epochs"),
    Peer("spdl", "SPDL", "spdl.io", ("train", "val"), "--spdl-python",
         "pip install spdl (see docs/benchmarks.md: peers)",
         ".bench_spdl:spdl_epochs"),
)
PEER_PIPELINES = [f"{p.name}-{r}" for p in PEERS for r in p.recipes]
# The recipe a Sluice pipeline shares with the peers (train-wds is train on other files).
_RECIPE_OF = {"train": "train", "train-wds": "train", "val": "val", "train-randaug": "train-randaug"}


def peer_of(kind: str) -> tuple[Peer, str] | None:
    """(peer, recipe) of a peer pipeline ("dali-val" -> (DALI, "val")); None for Sluice's own."""
    for p in PEERS:
        recipe = kind[len(p.name) + 1:] if kind.startswith(p.name + "-") else None
        if recipe in p.recipes:
            return p, recipe
    return None


def counterpart(kind: str, peer: Peer) -> str | None:
    """The peer's pipeline a Sluice pipeline is compared with ("train-wds", torchvision ->
    "torchvision-train"), or None."""
    recipe = _RECIPE_OF.get(kind)
    return f"{peer.name}-{recipe}" if recipe in peer.recipes else None


def python_attr(peer: Peer) -> str | None:
    """The argparse attribute of the peer's interpreter option ("--dali-python" -> "dali_python")."""
    return peer.python_option[2:].replace("-", "_") if peer.python_option else None


def interpreter(kind: str, args) -> str:
    """The Python that runs pipeline `kind`: the peer's option when given, else this one."""
    found = peer_of(kind)
    attr = python_attr(found[0]) if found else None
    return (getattr(args, attr, None) if attr else None) or sys.executable


def worker_env() -> dict:
    """The environment of a worker: this sluice package importable from a source checkout (a
    site-packages folder is not put on another venv's path: its packages would shadow the venv's)."""
    env = dict(os.environ)
    parent = os.path.dirname(os.path.dirname(os.path.abspath(sluice.__file__)))
    if os.path.basename(parent) not in ("site-packages", "dist-packages"):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (parent, env.get("PYTHONPATH")) if p)
    return env


def unavailable(kind: str, args) -> str | None:
    """Why pipeline `kind` cannot run (its library does not import in its interpreter), or None."""
    found = peer_of(kind)
    if found is None:
        return None
    peer, _ = found
    python = interpreter(kind, args)
    error = _import_error(python, peer.module)
    if error is None:
        return None
    where = f" ({peer.python_option} {python})" if python != sys.executable else (
        f" (or name a Python that has it with {peer.python_option})" if peer.python_option else "")
    return f"{error}{where}; install: {peer.install}"


@functools.lru_cache(maxsize=None)
def _import_error(python: str, module: str) -> str | None:
    """The last line of the error `python` gives importing `module` and the bench's worker (a venv of
    another Python version fails on sluice's compiled module), or None when both import."""
    if not os.access(python, os.X_OK):
        return f"{python} is not an executable Python"
    proc = subprocess.run([python, "-c", f"import {module}, sluice.tools.bench_measure"], env=worker_env(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode == 0:
        return None
    lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
    return lines[-1] if lines else f"importing {module} failed (exit code {proc.returncode})"


def worker_command(kind: str, args) -> list[str]:
    """The command that measures one run of `kind` in a fresh process (sluice bench --worker)."""
    cmd = [interpreter(kind, args), "-m", "sluice.tools.bench", "--worker", kind, "--data", args.data,
           "--threads", str(args.threads), "--batch-size", str(args.batch_size), "--epochs", str(args.epochs),
           "--seed", str(args.seed)]
    if args.no_progress:
        cmd.append("--no-progress")
    return cmd
