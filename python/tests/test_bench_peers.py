"""sluice bench's peers (tools/bench_peers.py): the pipeline names, each peer's interpreter option,
the skip-with-reason path when a peer's library does not import, and the report's Sluice/peer
ratio columns; then, where the side venvs exist (SLUICE_DALI_PYTHON, SLUICE_SPDL_PYTHON, else
/tmp/dali-venv and /tmp/spdl-venv), a tiny epoch of DALI's and SPDL's train and val on the small
sample set, whose batches must have the shapes and element types of Sluice's."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from sluice.tools import bench
from sluice.tools.bench_peers import PEER_PIPELINES, PEERS, _import_error, counterpart, interpreter, peer_of, unavailable
from sluice.tools.bench_pipelines import ALL_PIPELINES
from sluice.tools.bench_report import format_table, ratios

ROOT = pathlib.Path(__file__).resolve().parents[2]
PEER = {p.name: p for p in PEERS}


def parse(*argv):
    return bench.build_parser().parse_args(list(argv))


def test_peer_pipelines_are_named_from_the_one_list():
    assert PEER_PIPELINES == ["torchvision-train", "torchvision-val", "torchvision-train-randaug",
                              "dali-train", "dali-val", "spdl-train", "spdl-val"]
    assert set(PEER_PIPELINES) <= set(ALL_PIPELINES)
    assert peer_of("dali-val") == (PEER["dali"], "val")
    assert peer_of("torchvision-train-randaug") == (PEER["torchvision"], "train-randaug")
    assert peer_of("spdl-train-randaug") is None and peer_of("train") is None and peer_of("dali-") is None
    assert counterpart("train-wds", PEER["dali"]) == "dali-train"
    assert counterpart("train-randaug", PEER["spdl"]) is None
    assert counterpart("decode-only", PEER["torchvision"]) is None
    # Each peer names the function its worker runs (imported there, with the peer's library).
    assert [p.epochs_function().__name__ for p in PEERS] == ["torchvision_epochs", "dali_epochs", "spdl_epochs"]


def test_each_peer_may_run_in_its_own_interpreter(monkeypatch):
    monkeypatch.delenv("SLUICE_DALI_PYTHON", raising=False)
    monkeypatch.setenv("SLUICE_SPDL_PYTHON", "/opt/spdl/bin/python")
    args = parse("--dali-python", "/opt/dali/bin/python", "--threads", "3")
    assert args.dali_python == "/opt/dali/bin/python" and args.spdl_python == "/opt/spdl/bin/python"
    assert interpreter("dali-train", args) == "/opt/dali/bin/python"
    assert interpreter("spdl-val", args) == "/opt/spdl/bin/python"
    assert interpreter("train", args) == sys.executable
    assert interpreter("torchvision-val", args) == sys.executable
    assert parse().dali_python is None
    cmd = bench.worker_command("dali-val", args)
    assert cmd[:5] == ["/opt/dali/bin/python", "-m", "sluice.tools.bench", "--worker", "dali-val"]
    assert cmd[cmd.index("--threads") + 1] == "3"


def test_a_peer_that_does_not_import_is_skipped_with_the_reason(tmp_path, capsys):
    assert "No module named 'sluice_no_such_library'" in _import_error(sys.executable, "sluice_no_such_library")
    assert _import_error(sys.executable, "json") is None
    args = parse("--dali-python", str(tmp_path / "nopython"))
    reason = unavailable("dali-train", args)
    assert f"{tmp_path / 'nopython'} is not an executable Python" in reason and "nvidia-dali" in reason
    assert unavailable("train", args) is None
    # The whole command: both DALI rows skipped, said on stderr, and the run goes on without them.
    (tmp_path / "data" / "train" / "c0").mkdir(parents=True)
    (tmp_path / "data" / "train" / "c0" / "a.jpg").write_bytes(b"not run")
    out = tmp_path / "r.json"
    assert bench.main(["--data", str(tmp_path / "data"), "--pipelines", "dali-train,dali-val", "--json", str(out),
                       "--dali-python", str(tmp_path / "nopython")]) == 0
    err = capsys.readouterr().err
    assert err.count("sluice bench: skipping dali-") == 2 and "is not an executable Python" in err
    assert json.loads(out.read_text())["results"] == {}


def result(images_per_s):
    return {"images_per_s": images_per_s, "cpu_s_per_image": 0.001, "peak_rss_mb": 100.0, "first_batch_s": 0.5}


def test_report_shows_sluice_over_each_peer():
    results = {"train": result(1200), "val": result(1000), "train-wds": result(1300), "decode-only": result(1250),
               "dali-train": result(800), "spdl-train": result(600), "spdl-val": result(400),
               "torchvision-train": result(500), "torchvision-val": result(400)}
    assert ratios("train", results) == {"torchvision": 2.4, "DALI": 1.5, "SPDL": 2.0}
    assert ratios("val", results) == {"torchvision": 2.5, "SPDL": 2.5}  # no dali-val ran
    assert ratios("dali-train", results) == {} and ratios("decode-only", results) == {}
    lines = format_table(results).splitlines()
    assert lines[0].split()[-6:] == ["vs", "torchvision", "vs", "DALI", "vs", "SPDL"]
    row = {line.split()[0]: line.split() for line in lines[2:-1]}
    assert row["train"][-3:] == ["2.40x", "1.50x", "2.00x"]
    assert row["train-wds"][-3:] == ["2.60x", "1.62x", "2.17x"]
    assert row["val"][-2:] == ["2.50x", "2.50x"] and len(row["val"]) == len(row["train"]) - 1
    assert row["dali-train"][-1] == "0.50"  # no ratio columns on a peer's row
    assert lines[-1].startswith("train / decode-only") and "0.96x" in lines[-1]
    # Only the columns of peers that ran.
    only_tv = format_table({"train": result(1000), "torchvision-train": result(500)}).splitlines()
    assert only_tv[0].split()[-2:] == ["vs", "torchvision"] and only_tv[2].split()[-1] == "2.00x"


def side_python(peer):
    """The side venv's Python of a peer, or None when it has none that imports the library."""
    python = os.environ.get(f"SLUICE_{peer.name.upper()}_PYTHON") or f"/tmp/{peer.name}-venv/bin/python"
    return None if _import_error(python, peer.module) else python


@pytest.fixture(scope="module")
def small_data(tmp_path_factory):
    data = tmp_path_factory.mktemp("peers_small")
    subprocess.run(["bash", str(ROOT / "scripts" / "make_sample_data.sh"), "--small", "--force", str(data)],
                   check=True, stdout=subprocess.DEVNULL, timeout=300, env=dict(os.environ, SLUICE_SAMPLE_DATA_NO_APT="1"))
    return data


def test_sluice_pipelines_of_the_default_run_complete(small_data, tmp_path):
    """sluice bench's own pipelines, decode-only included (its batches are TensorLists of decoded
    images of different shapes, with no single shape to record), through bench.main itself."""
    out = tmp_path / "r.json"
    assert bench.main(["--data", str(small_data), "--pipelines", "train,val,decode-only", "--batch-size", "8",
                       "--repeat", "1", "--no-progress", "--json", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    assert {r: results[r]["images"] for r in ("train", "val", "decode-only")} == {"train": 64, "val": 64,
                                                                                    "decode-only": 64}
    assert results["train"]["batch"]["images"] == [[8, 3, 224, 224], "float32"]
    assert results["decode-only"]["batch"]["images"] is None


@pytest.mark.parametrize("name", ["dali", "spdl"])
def test_peer_batches_match_sluices(name, small_data, tmp_path):
    """A tiny epoch of the peer's train and val in its side venv, through sluice bench itself."""
    peer = PEER[name]
    python = side_python(peer)
    if python is None:
        pytest.skip(f"no side venv with {peer.module} (set SLUICE_{name.upper()}_PYTHON)")
    out = tmp_path / "r.json"
    assert bench.main(["--data", str(small_data), "--pipelines", f"train,val,{name}-train,{name}-val",
                       "--batch-size", "8", "--repeat", "1", "--no-progress", "--json", str(out),
                       peer.python_option, python]) == 0
    results = json.loads(out.read_text())["results"]
    for recipe in ("train", "val"):
        ours, theirs = results[recipe], results[f"{name}-{recipe}"]
        assert theirs["images"] == ours["images"] == 64
        assert theirs["batch"] == ours["batch"] == {"images": [[8, 3, 224, 224], "float32"], "labels": [[8, 1], "int32"]}


def test_plot_labels_sluice_bars_with_each_peer(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    from sluice.tools.bench_report import plot

    plot({"train": result(1200), "dali-train": result(800), "spdl-train": result(600)}, str(tmp_path / "b.png"),
         "Sluice and its peers")
    ax = plt.gcf().axes[0]
    assert ax.get_title() == "Sluice and its peers" and (tmp_path / "b.png").stat().st_size > 0
    assert "1200\n1.5x DALI\n2.0x SPDL" in [t.get_text() for t in ax.texts]
    plt.close("all")
