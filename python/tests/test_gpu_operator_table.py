"""docs/dali-compatibility.md's table of DALI's GPU and mixed operators against Sluice's
(scripts/gen_gpu_operator_table.py) is current: the checked-in block equals what the script writes
from DALI's recorded list and this build's registry (a CPU-only build checks all but Sluice's
devices)."""
import importlib.util
import json
import pathlib

from sluice import _sluice

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("gen_gpu_operator_table", ROOT / "scripts" / "gen_gpu_operator_table.py")
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
DATA = json.loads(gen.DATA.read_text(encoding="utf-8"))


def test_the_checked_in_table_is_current():
    text = gen.DOC.read_text(encoding="utf-8")
    assert gen.is_current(text, DATA, gen._sluice_devices(), _sluice.cuda_built), \
        "the GPU operator table is stale: run PYTHONPATH=python .venv/bin/python scripts/gen_gpu_operator_table.py"


def test_dalis_list_is_dalis():
    """The recorded list is DALI 2.4's: 106 public GPU names (93 operators and 13 legacy aliases)
    and the mixed decoders."""
    assert DATA["dali_version"].startswith("2.4")
    gpu = [r for r in DATA["gpu"] if not r["internal"]]
    assert len(gpu) == 106 and sum(not r["alias_of"] for r in gpu) == 93
    assert {"brightness", "rotate", "spectrogram", "box_encoder", "readers.video"} <= {r["fn"] for r in gpu}
    assert "decoders.image" in {r["fn"] for r in DATA["mixed"]}


def test_a_new_backend_makes_it_stale():
    text = gen.DOC.read_text(encoding="utf-8")
    devices = gen._sluice_devices()
    devices["rotate"] = devices["rotate"] + ["gpu"]
    assert not gen.is_current(text, DATA, devices, True)
    assert "| `fn.rotate` |  | cpu, gpu | gpu backend |" in gen.table(DATA, devices)


def test_rows_say_what_a_missing_backend_does():
    devices = {"brightness": ["cpu", "gpu"], "rotate": ["cpu"]}
    t = gen.table(DATA, devices)
    assert "| `fn.brightness` |  | cpu, gpu | gpu backend |" in t
    assert "| `fn.rotate` |  | cpu | CPU only: a pipeline asking for it fails at build" in t
    assert "| `fn.sphere` |  | - | not in Sluice |" in t
    assert "| `fn.random.coin_flip` | `coin_flip` |" in t
