"""The DALI golden coverage table in docs/dali-compatibility.md (written by scripts/gen_golden_coverage.py)
is current, the goldens cover at least the stated share of DALI 2.4's output-changing CPU arguments,
and every argument the classification (dali_goldens/coverage_classes.py) excuses is what it says:
a documented difference has its row in the operator's table saying "not supported" or "differs",
and every classified operator and argument exists in DALI's schema.
"""
import importlib.util
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("gen_golden_coverage",
                                               os.path.join(ROOT, "scripts", "gen_golden_coverage.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
SCHEMA = json.load(open(os.path.join(HERE, "dali_goldens", "dali_cpu_schema.json"), encoding="utf-8"))["operators"]
classes = gen.load_module(os.path.join(HERE, "dali_goldens", "coverage_classes.py"), "coverage_classes_test")
RESULT = gen.compute()
# Sections of docs/dali-compatibility.md whose table starts with another's rows.
INHERITS = {"decoders.image_crop": "decoders.image", "decoders.image_random_crop": "decoders.image",
            "decoders.image_slice": "decoders.image"}


def test_the_table_in_the_doc_is_current():
    text = open(gen.DOC, encoding="utf-8").read()
    assert gen.update(text, gen.render(RESULT)) == text, \
        "docs/dali-compatibility.md's golden coverage table is stale: run scripts/gen_golden_coverage.py"


def test_the_goldens_cover_the_arguments_that_change_the_output():
    t = gen.totals(RESULT)
    missing = [f"{op}.{arg}" for op, rows in RESULT["operators"].items() for arg, (status, _) in rows.items()
               if status == "not_covered"]
    assert t["share"] >= gen.MIN_COVERAGE, (
        f"the goldens cover {t['covered']}/{t['testable']} = {100 * t['share']:.1f}% of the output-changing "
        f"arguments, under {100 * gen.MIN_COVERAGE:.0f}%; not covered: {', '.join(missing)}")


def test_every_operator_has_a_golden_case_or_a_reason():
    for op, rows in RESULT["operators"].items():
        if "" in rows:  # a deprecated name: its replacement is counted
            continue
        assert op in RESULT["ops_seen"] or op in classes.NO_GOLDEN_OPS, \
            f"{op}: no golden case exercises it, and coverage_classes.NO_GOLDEN_OPS gives no reason"


def _doc_rows():
    sections, current = {}, None
    for line in open(gen.DOC, encoding="utf-8"):
        heading = re.match(r"^(#{2,3}) (.*)$", line)
        if heading:
            name = re.fullmatch(r"`([\w.]+)`", heading.group(2).strip())
            current = name.group(1) if name and heading.group(1) == "###" else None
            continue
        row = re.match(r"^\| `(\w+)` \|[^|]*\|([^|]*)\|", line)
        if current and row:
            sections.setdefault(current, {})[row.group(1)] = row.group(2).strip()
    return sections


def test_documented_differences_are_documented_as_such():
    rows = _doc_rows()
    for op, args in classes.DIFFERENCES.items():
        table = dict(rows.get(INHERITS.get(op, ""), {}))
        table.update(rows.get(op, {}))
        for arg in args:
            assert table.get(arg) in ("not supported", "differs"), \
                f"{op}.{arg} is classified as a documented difference, but its row says {table.get(arg)!r}"


def test_the_classification_names_real_operators_and_arguments():
    for group in (classes.NO_EFFECT, classes.DIFFERENCES):
        for op, args in group.items():
            assert op in SCHEMA and not SCHEMA[op]["deprecated"], f"{op}: not a current DALI CPU operator"
            for arg in args:
                assert arg in SCHEMA[op]["args"], f"{op}.{arg}: DALI's {op} has no such argument"
    every_arg = {a for op in SCHEMA.values() for a in op["args"]}
    for arg in classes.NO_EFFECT_ANY:
        assert arg in every_arg, f"{arg}: no DALI CPU operator has it"


def test_the_tracer_records_operators_and_non_default_arguments():
    calls = gen.trace(lambda fn, types, x: [fn.resize(fn.flip(x, horizontal=1), resize_x=3,
                                                      interp_type=types.INTERP_CUBIC)[0] + 1,
                                            *fn.box_encoder(x, x, criteria=0.5)],
                      lambda op: 2 if op == "box_encoder" else 1)
    assert [c[0] for c in calls] == ["flip", "resize", "box_encoder"]
    assert set(calls[1][1]) == {"resize_x", "interp_type"}
    assert gen.is_default(1, gen.parse_default("1")) and gen.is_default(gen.Token("types.INTERP_LINEAR"), "1")
    assert not gen.is_default(gen.Token("types.INTERP_CUBIC"), "1")
    assert gen.is_default([0.5, 0.5], gen.parse_default("[0.500000, 0.500000, ]"))
    assert not gen.is_default(True, gen.parse_default("False"))
