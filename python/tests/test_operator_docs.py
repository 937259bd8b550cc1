"""docs/operators.md is generated from the registry's schemas (scripts/gen_operator_docs.py) and
kept current: the checked-in file must equal what the generator writes now."""
import pathlib
import re
import subprocess
import sys

import pytest

from sluice import _sluice
from sluice.tools import opdocs

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operators.md"
PUBLIC = sorted(n for n in _sluice.list_operators() if opdocs.is_public(n))


def test_the_checked_in_reference_is_current():
    assert opdocs.is_current(DOC.read_text(encoding="utf-8")), \
        "docs/operators.md is stale: run PYTHONPATH=python .venv/bin/python scripts/gen_operator_docs.py"


def test_the_script_checks_and_writes(tmp_path):
    env_path = str(ROOT / "python")
    script = str(ROOT / "scripts" / "gen_operator_docs.py")
    env = {"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"}
    assert subprocess.run([sys.executable, script, "--check"], env=env).returncode == 0
    out = tmp_path / "ops.md"
    out.write_text(DOC.read_text(encoding="utf-8").replace("| `seed` |", "| `seeds` |", 1))
    assert subprocess.run([sys.executable, script, "--check", "--output", str(out)], env=env,
                          capture_output=True).returncode == 1
    write = [sys.executable, script, "--output", str(out)] + ([] if _sluice.cuda_built else ["--cpu-only"])
    assert subprocess.run(write, env=env, capture_output=True).returncode == 0
    assert opdocs.is_current(out.read_text(encoding="utf-8"))


def test_a_schema_change_makes_it_stale(monkeypatch):
    """What the staleness check compares moves with the schema: a changed default, constraint or
    doc changes the generated text."""
    real = _sluice.get_operator_info

    class Changed:
        def __init__(self, info):
            self._info = info

        def __getattr__(self, attr):
            return getattr(self._info, attr)

        @property
        def arguments(self):
            args = list(self._info.arguments)
            first = args[0]
            fake = type("Arg", (), {a: getattr(first, a) for a in
                                    ("name", "type", "required", "default", "doc", "per_sample", "constraint")})
            fake.doc = first.doc + " (changed)"
            return [fake] + args[1:]

    monkeypatch.setattr(_sluice, "get_operator_info", lambda n: Changed(real(n)) if n == PUBLIC[0] else real(n))
    assert not opdocs.is_current(DOC.read_text(encoding="utf-8"))


def test_every_operator_is_documented_and_no_test_operator_is():
    text = DOC.read_text(encoding="utf-8")
    for name in PUBLIC:
        assert f"\n## `{name}`\n" in text, name
    assert "testing." not in text
    assert "`_select." not in text  # sluice.auto_aug's internal operators


@pytest.mark.parametrize("name", PUBLIC)
def test_each_section_has_the_schema(name):
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## `{name}`\n", 1)[1].split("\n## ", 1)[0]
    info = _sluice.get_operator_info(name)
    devices = re.search(r"- \*\*Devices\*\*: (.*)", section).group(1).split(", ")
    assert set(f"`{b}`" for b in info.backends) <= set(devices)
    assert set(devices) - set(f"`{b}`" for b in info.backends) <= ({"`gpu`", "`mixed`"} if not _sluice.cuda_built else set())
    assert "- **DALI**: " in section
    if name not in opdocs.SLUICE_ONLY:
        assert f"`nvidia.dali.fn.{name}`" in section
    for a in info.arguments:
        row = next((line for line in section.splitlines() if line.startswith(f"| `{a.name}` |")), None)
        assert row is not None, f"{name}.{a.name}"
        assert f"| {a.type} |" in row
        assert ("**required**" in row) if a.required else (f"`{repr(a.default)}`".replace("|", "\\|") in row)
        if a.constraint:
            assert a.constraint.replace("|", "\\|") in row


def test_constraints_are_shown():
    """Ranges and enumerations (ArgSchema::ConstraintText) reach the reference."""
    args = {a.name: a for a in _sluice.get_operator_info("random.coin_flip").arguments}
    assert args["probability"].constraint
    assert args["probability"].constraint in DOC.read_text(encoding="utf-8")


def test_a_cpu_only_build_compares_without_the_cuda_devices():
    text = ("| [`resize`](#resize) | cpu, gpu | `fn.resize` | x |\n"
            "- **Devices**: `cpu`, `gpu`\n- **Devices**: `cpu`, `mixed`\n- **Devices**: `cpu`\n")
    assert opdocs.without_cuda_devices(text) == (
        "| [`resize`](#resize) | cpu | `fn.resize` | x |\n"
        "- **Devices**: `cpu`\n- **Devices**: `cpu`\n- **Devices**: `cpu`\n")
