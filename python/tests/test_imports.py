"""The package's import graph has no cycles, counting imports inside functions too."""
import ast
import pathlib

import sluice

PACKAGE = pathlib.Path(sluice.__file__).parent


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph():
    """module -> the package modules it imports (anywhere in it: top level or inside functions)."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    # Extension modules (sluice._sluice) import nothing from the package: leaves.
    extensions = {module_name(p.with_name(p.name.split(".")[0] + ".py")) for p in PACKAGE.rglob("*.so")}
    graph = {m: set() for m in [*files, *extensions]}

    def resolve(name):  # the package module `name` denotes, or None (outside the package)
        while name and name not in graph:
            name = name.rpartition(".")[0]
        return name or None

    for mod, path in files.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".")
                    base = base[:len(base) - node.level + (1 if is_package else 0)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module
                # `from . import fn` imports the module sluice.fn; `from .graph import x` sluice.graph.
                targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in graph else prefix for a in node.names]
            for t in targets:
                target = resolve(t) if t.split(".")[0] == "sluice" else None
                if target and target != mod:
                    graph[mod].add(target)
    return graph


def find_cycle(graph):
    state = {}

    def visit(m, stack):
        state[m] = "open"
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                cycle = visit(n, stack + [n])
                if cycle:
                    return cycle
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m, [m])
            if cycle:
                return cycle
    return None


def test_the_import_graph_is_acyclic():
    graph = import_graph()
    assert {"sluice", "sluice.graph", "sluice.pipeline", "sluice.current", "sluice._sluice"} <= set(graph)
    assert "sluice.graph" in graph["sluice.pipeline"] and "sluice.current" in graph["sluice.graph"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_current_pipeline_stack_is_a_leaf():
    assert import_graph()["sluice.current"] == set()


def test_the_checker_sees_function_level_and_absolute_imports():
    graph = import_graph()
    assert "sluice.tools.bench" in graph["sluice.tools.cli"]  # `from .bench import main` inside main()
    assert "sluice" in graph["sluice.tools.bench_pipelines"]  # `import sluice` inside a function
    assert "sluice.types" in graph["sluice.plugin.base_iterator"]  # `from ..types import ...`
