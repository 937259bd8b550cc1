"""examples/video_classification.py end to end (a few steps, in a subprocess) on the videos
scripts/make_video_data.py makes, which are deterministic (the same bytes twice)."""
import filecmp
import os
import re
import subprocess
import sys

import pytest

from video_files import FFMPEG

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg not installed")
pytest.importorskip("torch")


def make_data(out):
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_video_data.py"), str(out), "--per-class", "2",
                    "--seconds", "1.2", "--size", "96x64"], check=True, capture_output=True)


def test_make_video_data_is_deterministic(tmp_path):
    make_data(tmp_path / "a")
    make_data(tmp_path / "b")
    names = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "a")
                   for d, _, fs in os.walk(tmp_path / "a") for f in fs)
    assert len(names) == 8
    match, mismatch, errors = filecmp.cmpfiles(tmp_path / "a", tmp_path / "b", names, shallow=False)
    assert not mismatch and not errors


def test_video_classification_trains(tmp_path):
    make_data(tmp_path / "data")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "video_classification.py"), str(tmp_path / "data"),
                        "--steps", "3", "--batch-size", "4"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    steps = re.findall(r"step \d+: clips \((\d+), 3, 8, 56, 56\), loss ([\d.]+)", r.stdout)
    assert len(steps) == 3 and all(n == "4" for n, _ in steps), r.stdout
    assert "video_classification: 3 steps" in r.stdout
