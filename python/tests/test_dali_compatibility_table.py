"""docs/dali-compatibility.md lists every argument of every operator, as the schemas have them.

Fails when an operator's schema gains or loses an argument the table does not list: each operator
(but the test-only fn.testing.*) has a section; the arguments it lists as present (supported,
differs, Sluice only) are exactly the schema's (external_source: its Python signature's), less the
common ones listed once; the ones it lists as not supported are not in the schema.
"""
import inspect
import pathlib
import re

import pytest

import sluice
from sluice.schema import all_schemas

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "dali-compatibility.md"
STATUSES = {"supported", "differs", "not supported", "Sluice only"}
PRESENT = {"supported", "differs", "Sluice only"}
# Arguments the Python layer handles (every operator takes them).
PYTHON_ARGS = {"device", "name"}


def parse_tables():
    """{section: {argument: status}} for every '### `name`' section, plus the common arguments."""
    sections, current = {}, None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^#{2,3} (.*)$", line)
        if heading:
            name = re.fullmatch(r"`([\w.]+)`", heading.group(1).strip())
            current = name.group(1) if name and line.startswith("### ") else None
            if heading.group(1).strip() == "Operators":
                current = "(common)"
            if current is not None:
                sections.setdefault(current, {})
            continue
        row = re.match(r"^\| `(\w+)` \|([^|]*)\|([^|]*)\|", line)
        if current is not None and row:
            status = row.group(3).strip()
            assert status in STATUSES, f"{current}.{row.group(1)}: unknown status {status!r}"
            assert row.group(1) not in sections[current], f"{current}.{row.group(1)} listed twice"
            sections[current][row.group(1)] = status
    return sections


TABLES = parse_tables()
COMMON = {a for a, s in TABLES["(common)"].items() if s in PRESENT}
OPERATORS = {n: s for n, s in all_schemas().items() if not n.startswith("testing.")}
# Sections that inherit another's rows: "the arguments of `decoders.image` and:", and
# fast_resize_crop_mirror (resize_crop_mirror's, but for the antialias default).
INHERITS = {"fast_resize_crop_mirror": "resize_crop_mirror",
            "decoders.image_crop": "decoders.image", "decoders.image_random_crop": "decoders.image",
            "decoders.image_slice": "decoders.image"}


def listed(op, statuses):
    rows = dict(TABLES.get(INHERITS.get(op, ""), {}))
    rows.update(TABLES[op])
    names = set()
    for a, s in rows.items():
        if s not in statuses:
            continue
        if a.endswith("_k") and op in OPERATORS:  # one row for a numbered family: at_k = at_0, at_1, ...
            family = {x for x in OPERATORS[op].arguments if re.fullmatch(re.escape(a[:-1]) + r"\d+", x)}
            assert family, f"{op}.{a}: the schema has no {a[:-1]}0, {a[:-1]}1, ..."
            names |= family
        else:
            names.add(a)
    return names


def schema_arguments(op):
    if op == "external_source":  # implemented in Python: its signature is what users call
        params = set(inspect.signature(sluice.fn.external_source).parameters)
        return params - PYTHON_ARGS - COMMON
    # DALI's deprecated arguments the schema accepts (renamed or ignored) are listed too.
    return (set(OPERATORS[op].arguments) | set(OPERATORS[op].deprecated_arguments)) - COMMON


def test_the_common_arguments_are_every_operators():
    assert COMMON == {"seed", "bytes_per_sample_hint", "preserve"}
    for op, schema in OPERATORS.items():
        assert COMMON <= set(schema.arguments), op


def test_every_operator_has_a_section():
    assert set(OPERATORS) <= set(TABLES), f"no section for {sorted(set(OPERATORS) - set(TABLES))}"


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_the_table_lists_exactly_the_schemas_arguments(op):
    have = schema_arguments(op)
    present = listed(op, PRESENT)
    assert not have - present, f"{op}: the schema has {sorted(have - present)}, which the table does not list"
    assert not present - have, f"{op}: the table lists {sorted(present - have)}, which the schema does not have"
    wrongly_absent = listed(op, {"not supported"}) & have
    assert not wrongly_absent, f"{op}: listed as not supported but in the schema: {sorted(wrongly_absent)}"


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_not_supported_arguments_are_rejected_by_name(op):
    """A DALI argument the table says Sluice lacks is an error naming it, not silently ignored."""
    if op == "external_source":
        return  # Python signature: an unknown keyword is Python's own TypeError
    for arg in listed(op, {"not supported"}):
        inputs = [f"in{i}" for i in range(OPERATORS[op].min_inputs)]
        with pytest.raises(sluice.ArgumentError) as e:
            sluice._sluice.validate_operator(op, "", "cpu", inputs, {}, {arg: 1})
        assert e.value.argument == arg, (op, arg, str(e.value))
