"""Sluice's command-line tools, apart from the runtime modules: the `sluice` command (cli) and
what it runs: bench, prepare, the operator reference (opdocs), with one progress bar (progress).

Nothing here is imported by ``import sluice``; the runtime never depends on this package.
"""
