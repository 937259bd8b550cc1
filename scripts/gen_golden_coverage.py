#!/usr/bin/env python3
"""Generates the DALI golden coverage table in docs/dali-compatibility.md: for every operator DALI 2.4
runs on the CPU (python/tests/dali_goldens/dali_cpu_schema.json, written by
`scripts/record_dali_goldens.py schema`) and each of its arguments, whether a golden case (the
python/tests/dali_goldens/*_cases.py that real DALI recorded) gives it a non-default value, and if
not, why (python/tests/dali_goldens/coverage_classes.py: no output effect, documented difference).

    PYTHONPATH=python .venv/bin/python scripts/gen_golden_coverage.py          # rewrite the table
    PYTHONPATH=python .venv/bin/python scripts/gen_golden_coverage.py --check  # exit 1 when stale

The cases are not annotated by hand: each case function is run on a tracing stand-in for DALI's
`fn`, `types` and `math` modules that records every operator call and its keyword arguments, so the
table follows the cases as they are. A case its test marks as not yet equal (NOT_YET_EQUAL in
python/tests/test_dali_goldens_<family>.py, or test_dali_goldens_coverage.py for the cov_* families:
strict xfails) covers its arguments as "covered, differs". python/tests/test_golden_coverage.py fails when the
table is stale or the coverage falls below MIN_COVERAGE.
"""
import argparse
import ast
import glob
import importlib.util
import inspect
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDENS = os.path.join(ROOT, "python", "tests", "dali_goldens")
TESTS = os.path.join(ROOT, "python", "tests")
DOC = os.path.join(ROOT, "docs", "dali-compatibility.md")
BEGIN = "<!-- golden-coverage:begin (scripts/gen_golden_coverage.py writes this part) -->"
END = "<!-- golden-coverage:end -->"
# Of the arguments that change the output and are not documented differences, the share the goldens
# must cover (issue 40's goal).
MIN_COVERAGE = 0.90


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- tracing -------------------------------------------------------------------------------------

class Node:
    """Stands for a DataNode: every operation on it gives another Node. The case's input knows its
    layout and type; cast and the operators that keep both (LAYOUT_KEEPING) pass them on."""

    def __init__(self, outputs=1, layout=None, dtype=None):
        self._outputs, self._layout, self._dtype = outputs, layout, dtype

    def __iter__(self):
        return iter([Node() for _ in range(self._outputs)])

    def __getitem__(self, key):
        return Node()

    def __getattr__(self, name):  # x.shape(), x.gpu(), ...
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: Node()

    def _op(self, *args):
        return Node()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _op
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = _op
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _op
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _op
    __neg__ = __pos__ = __invert__ = __abs__ = _op
    __hash__ = object.__hash__


# Operators whose output has their input's layout and type (for tracing the layouts cases feed).
LAYOUT_KEEPING = {"slice", "crop", "pad", "flip", "copy", "erase"}
DTYPES = {"UINT8": "uint8", "UINT16": "uint16", "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64",
          "FLOAT16": "float16", "FLOAT": "float32", "FLOAT64": "float64", "BOOL": "bool"}


class Token(str):
    """A `types.X` value: its name (INTERP_* also carry DALI's integer value, to compare with defaults)."""


# DALI's integer values of the enums its schema defaults are written in.
ENUM_VALUES = {"INTERP_NN": "0", "INTERP_LINEAR": "1", "INTERP_CUBIC": "2", "INTERP_LANCZOS3": "3",
               "INTERP_TRIANGULAR": "4", "INTERP_GAUSSIAN": "5",
               "UINT8": "0", "UINT16": "1", "INT8": "4", "INT16": "5", "INT32": "6", "INT64": "7", "FLOAT16": "8",
               "FLOAT": "9", "FLOAT64": "10", "BOOL": "11", "RGB": "0", "BGR": "1", "GRAY": "2", "YCbCr": "3"}


class Types:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in ("Constant", "ScalarConstant"):  # functions making a constant node
            return lambda *a, **k: Node()
        return Token(f"types.{name}")


class Recorder:
    """A stand-in `fn` (or `math`, `plugins`): `rec.a.b(x, k=v)` records ("a.b", {k: v})."""

    def __init__(self, calls, outputs, path=""):
        self._calls, self._outputs, self._path = calls, outputs, path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Recorder(self._calls, self._outputs, f"{self._path}.{name}" if self._path else name)

    def __call__(self, *args, **kwargs):
        source = next((a for a in args if isinstance(a, Node)), None)
        fed = (source._layout, source._dtype) if source is not None and source._dtype else None
        self._calls.append((self._path, kwargs, fed))
        if fed and self._path == "cast" and isinstance(kwargs.get("dtype"), Token):
            return Node(1, fed[0], DTYPES.get(kwargs["dtype"].split(".", 1)[1]))
        if fed and self._path in LAYOUT_KEEPING:
            return Node(1, *fed)
        return Node(self._outputs(self._path))


def trace(build, outputs, layout=None, dtype=None):
    """The (operator, kwargs, (input layout, input type) or None) calls one case function makes, its
    input being of that layout and type."""
    calls = []
    params = len(inspect.signature(build).parameters)
    fn = Recorder(calls, outputs)
    if params == 2:  # a reader case: (fn, the folder its data was written to)
        build(fn, "/nonexistent-golden-data")
        return calls
    args = [fn, Types()] + [Recorder(calls, outputs, "math")] * (params - 3) + [Node(1, layout, dtype)]
    build(*args)
    return calls


# The input layout and type of the older families' case lists (the cov_* families say theirs in inputs()).
ROOTS = {("image", "PIXEL_CASES"): ("HWC", "uint8"), ("plugins", "CASES"): ("HWC", "uint8"),
         ("detection", "CASES"): (None, "float32"), ("tensor", "CASES"): (None, "float32"),
         ("audio", "SIGNAL_CASES"): (None, "float32")}


def case_functions(family, module):
    """{case name: (function, input layout, input type)} over the module's *CASES dicts (values: a
    function, or a tuple ending in one: (kind, function) in the cov_* families, (kind, layout,
    function) in audio's ARRAY_CASES)."""
    out = {}
    kinds = module.inputs() if family.startswith("cov_") else {}
    for attr in sorted(dir(module)):
        value = getattr(module, attr)
        if not (attr.endswith("CASES") and isinstance(value, dict)):
            continue
        for name, entry in value.items():
            layout, dtype = ROOTS.get((family, attr), (None, None))
            if family == "video":  # data, not functions: (video, decoder kwargs) or reader kwargs
                if isinstance(entry, dict):
                    out[name] = ((lambda kw: lambda fn, root: fn.experimental.readers.video(**kw))(entry), None, None)
                else:
                    out[name] = ((lambda kw: lambda fn, types, x: [fn.experimental.decoders.video(x, **kw)])(entry[1]),
                                 None, "uint8")
                continue
            if isinstance(entry, tuple) and len(entry) == 2 and entry[0] in kinds:
                layout, arrays = kinds[entry[0]]
                dtype = arrays[0].dtype.name
            elif isinstance(entry, tuple) and len(entry) == 3:
                layout, dtype = entry[1], "float32"
            out[name] = (entry[-1] if isinstance(entry, tuple) else entry, layout, dtype)
    return out


def case_status(family):
    """{case: reason} for the family's cases marked not yet equal (a case DALI rejects is compared as
    that error, which Sluice must give too: it counts as covering its arguments)."""
    marks = {}
    test = os.path.join(TESTS, "test_dali_goldens_coverage.py" if family.startswith("cov_")
                        else f"test_dali_goldens_{family}.py")
    if os.path.exists(test):
        tree = ast.parse(open(test, encoding="utf-8").read())
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "NOT_YET_EQUAL" for t in node.targets):
                marks.update(eval(compile(ast.Expression(node.value), test, "eval"), {}))  # literal data
    return marks


# ---- classification ------------------------------------------------------------------------------

def parse_default(text):
    if text is None:
        return None
    try:
        return ast.literal_eval(text.replace(", ]", "]"))
    except (ValueError, SyntaxError):
        return text


def is_default(value, default):
    """True when a case's value is the schema's default (so it does not exercise the argument)."""
    if isinstance(value, Token):
        name = value.split(".", 1)[1]
        return ENUM_VALUES.get(name) == str(default)
    if isinstance(value, bool) or isinstance(default, bool):
        return isinstance(value, bool) and isinstance(default, bool) and value == default
    if isinstance(value, (int, float)) and isinstance(default, (int, float)):
        return float(value) == float(default)
    if isinstance(value, str) and isinstance(default, str):
        return value == default
    if isinstance(value, (list, tuple)) and isinstance(default, list):
        return len(value) == len(default) and all(is_default(v, d) for v, d in zip(value, default))
    return False


def compute():
    """{"operators": {op: {arg: (status, detail)}}, "cases": n, ...}; status is one of
    covered, differs, documented, no_effect, not_covered, alias (a deprecated operator's)."""
    schema = json.load(open(os.path.join(GOLDENS, "dali_cpu_schema.json"), encoding="utf-8"))["operators"]
    classes = load_module(os.path.join(GOLDENS, "coverage_classes.py"), "coverage_classes")

    def canonical(op):
        """DALI's deprecated names (experimental.debayer, ...) are their replacements' goldens."""
        entry = schema.get(op)
        return entry["in_favor_of"] if entry and entry["deprecated"] and entry["in_favor_of"] else op

    def outputs(path):
        return classes.OUTPUTS.get(canonical(path), 1)

    hits, cases, inputs = {}, 0, {}  # (op, arg) -> {case: reason or None}; op -> {(layout, type)}
    ops_seen = {}
    for path in sorted(glob.glob(os.path.join(GOLDENS, "*_cases.py"))):
        family = os.path.basename(path)[:-len("_cases.py")]
        module = load_module(path, f"coverage_{family}_cases")
        marks = case_status(family)
        for name, (build, layout, dtype) in case_functions(family, module).items():
            cases += 1
            for op, kwargs, fed in trace(build, outputs, layout, dtype):
                op = canonical(op)
                if op not in schema:
                    continue
                ops_seen.setdefault(op, set()).add(f"{family}:{name}")
                if fed:
                    inputs.setdefault(op, set()).add(fed)
                for arg, value in kwargs.items():
                    args = schema[op]["args"]
                    if arg in args and not is_default(value, parse_default(args[arg]["default"])):
                        hits.setdefault((op, arg), {})[f"{family}:{name}"] = marks.get(name)
    table = {}
    for op, entry in sorted(schema.items()):
        if entry["deprecated"]:
            table[op] = {"": ("alias", entry["in_favor_of"] or classes.DEPRECATED_OPS.get(op, ""))}
            continue
        rows = {}
        for arg, info in sorted(entry["args"].items()):
            by_case = hits.get((op, arg), {})
            clean = sorted(c for c, reason in by_case.items() if reason is None)
            if info["deprecated"]:
                new = info["deprecated"]["renamed_to"]
                rows[arg] = ("no_effect", f"deprecated alias of `{new}`" if new else "deprecated, ignored by DALI")
            elif arg in classes.NO_EFFECT_ANY:
                rows[arg] = ("no_effect", classes.NO_EFFECT_ANY[arg])
            elif arg in classes.NO_EFFECT.get(op, {}):
                rows[arg] = ("no_effect", classes.NO_EFFECT[op][arg])
            elif clean:
                rows[arg] = ("covered", clean[0])
            elif by_case:
                case, reason = sorted(by_case.items())[0]
                rows[arg] = ("differs", f"{case}: {reason}")
            elif arg in classes.DIFFERENCES.get(op, {}):
                rows[arg] = ("documented", classes.DIFFERENCES[op][arg])
            else:  # counted as not covered; an argument or operator no golden can record says why
                rows[arg] = ("not_covered", classes.NO_GOLDEN.get(op, {}).get(arg, classes.NO_GOLDEN_OPS.get(op, "")))
        table[op] = rows
    takes = {}
    for op, e in schema.items():  # sequences: DALI expands frames, or lists an F layout; volumes: a D layout
        layouts = [layout for per_input in e["layouts"] for layout in per_input]
        takes[op] = (e["sequences"] or any(layout.startswith("F") for layout in layouts),
                     e["volumes"] or any("D" in layout for layout in layouts))
    return {"operators": table, "cases": cases, "ops_seen": ops_seen, "inputs": inputs, "takes": takes}


def totals(result):
    ops = [o for o, rows in result["operators"].items() if "" not in rows]
    counts = {}
    for o in ops:
        for status, _ in result["operators"][o].values():
            counts[status] = counts.get(status, 0) + 1
    effect = sum(counts.get(s, 0) for s in ("covered", "differs", "documented", "not_covered"))
    covered = counts.get("covered", 0) + counts.get("differs", 0)
    testable = effect - counts.get("documented", 0)
    with_case = [o for o in ops if o in result["ops_seen"]]
    fed = {o: {layout or "" for layout, _ in result["inputs"].get(o, ())} for o in ops}
    seq = [o for o in ops if result["takes"][o][0]]
    vol = [o for o in ops if result["takes"][o][1]]
    return {"operators": len(ops), "aliases": len(result["operators"]) - len(ops), "with_cases": len(with_case),
            "arguments": sum(counts.values()), "effect": effect, "covered": covered,
            "differs": counts.get("differs", 0), "documented": counts.get("documented", 0),
            "no_effect": counts.get("no_effect", 0), "not_covered": counts.get("not_covered", 0),
            "testable": testable, "share": covered / testable if testable else 1.0, "cases": result["cases"],
            "sequences": len(seq), "sequences_fed": sum(any(x.startswith("F") for x in fed[o]) for o in seq),
            "volumes": len(vol), "volumes_fed": sum(any("D" in x for x in fed[o]) for o in vol)}


# ---- rendering -----------------------------------------------------------------------------------

def render(result):
    t = totals(result)
    lines = [BEGIN, "",
             f"Totals: {t['operators']} operators (and {t['aliases']} deprecated names of them), "
             f"{t['with_cases']} with golden cases; {t['arguments']} arguments, of which {t['no_effect']} "
             f"have no effect on the output; of the {t['effect']} that do, {t['covered']} are covered "
             f"({t['differs']} of them by cases where Sluice still differs from DALI), {t['documented']} are "
             f"documented differences and {t['not_covered']} are not covered: "
             f"{t['covered']}/{t['testable']} = {100 * t['share']:.1f}% of the arguments that are not documented "
             f"differences, {t['covered']}/{t['effect']} = {100 * t['covered'] / max(t['effect'], 1):.1f}% of all "
             f"that change the output. Golden cases: {t['cases']}. Of the {t['sequences']} operators DALI "
             f"lets take sequences, {t['sequences_fed']} are fed one by a case; of the {t['volumes']} that take "
             f"volumes, {t['volumes_fed']} are fed one (the last column: the layouts and types the cases feed "
             f"each operator directly, as traced).", "",
             "| operator | covered | covered, Sluice differs | documented difference | not covered | inputs fed |",
             "|---|---|---|---|---|---|"]
    no_effect = {}
    for op, rows in result["operators"].items():
        if "" in rows:
            continue
        cells = {"covered": [], "differs": [], "documented": [], "not_covered": []}
        for arg, (status, detail) in rows.items():
            if status == "no_effect":
                no_effect.setdefault(detail, []).append(f"{op}.{arg}")
            elif status == "differs":
                cells[status].append(f"`{arg}` ({detail})")
            elif status == "documented":
                cells[status].append(f"`{arg}` ({detail})")
            else:
                cells[status].append(f"`{arg}`")
        by_reason = {}  # not covered, grouped by why no golden can cover them ("" when one could)
        for arg, (status, detail) in rows.items():
            if status == "not_covered":
                by_reason.setdefault(detail, []).append(f"`{arg}`")
        cells["not_covered"] = [", ".join(args) + (f" (no golden: {why})" if why else "")
                                for why, args in sorted(by_reason.items())]
        fed = ", ".join(f"{layout} {dtype}" if layout else dtype
                        for layout, dtype in sorted(result["inputs"].get(op, ()), key=lambda f: (f[0] or "", f[1])))
        lines.append(f"| `{op}` | " + " | ".join(", ".join(cells[k]) for k in cells) + f" | {fed} |")
    lines += ["", "Deprecated operator names (their arguments are counted under the replacement):", "",
              ", ".join(f"`{op}` → `{rows[''][1]}`" if rows[""][1] else f"`{op}`"
                        for op, rows in result["operators"].items() if "" in rows), "",
              "Arguments that do not change the output (not counted):", "",
              "| reason | arguments |", "|---|---|"]
    for reason, args in sorted(no_effect.items()):
        by_name = {}
        for qualified in args:
            by_name.setdefault(qualified.rsplit(".", 1)[1], []).append(qualified)
        shown = []  # an argument many operators share once, with the count; the others by operator
        for name, qualified in sorted(by_name.items()):
            shown += [f"`{name}` ({len(qualified)} operators)"] if len(qualified) > 3 else \
                [f"`{q}`" for q in qualified]
        lines.append(f"| {reason} | {', '.join(shown)} |")
    lines += ["", END]
    return "\n".join(lines)


def update(text, table):
    if BEGIN not in text:
        raise SystemExit(f"{DOC}: no '{BEGIN}' marker")
    head, rest = text.split(BEGIN, 1)
    return head + table + rest.split(END, 1)[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the doc's table is stale")
    args = ap.parse_args()
    result = compute()
    text = open(DOC, encoding="utf-8").read()
    new = update(text, render(result))
    t = totals(result)
    print(f"{t['operators']} operators, {t['with_cases']} with cases; covered {t['covered']}/{t['testable']} "
          f"({100 * t['share']:.1f}%), {t['documented']} documented, {t['not_covered']} not covered, "
          f"{t['cases']} cases", file=sys.stderr)
    if args.check:
        sys.exit(0 if new == text else 1)
    if new != text:
        open(DOC, "w", encoding="utf-8").write(new)


if __name__ == "__main__":
    main()
