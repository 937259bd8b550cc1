"""A one-line progress bar on stderr for the `sluice` command (no dependency).

Shown only on a terminal and only once the work has taken more than `delay` seconds, so quick
runs and redirected output stay quiet."""
import sys
import time


class ProgressBar:
    def __init__(self, label, total, unit="", enabled=None, delay=1.0, stream=None, width=30):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label, self.total, self.unit, self.delay, self.width = label, total, unit, delay, width
        self.done = 0
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.drawn = False

    def update(self, done=None, total=None, advance=0):
        """Sets the progress (`done` of `total`) or advances it by `advance`; redraws at most
        ten times a second."""
        if total is not None:
            self.total = total
        self.done = done if done is not None else self.done + advance
        now = time.perf_counter()
        if not self.enabled or now - self.t0 < self.delay or (now - self.last < 0.1 and self.done < self.total):
            return
        self.last = now
        self.drawn = True
        frac = min(1.0, self.done / self.total) if self.total else 0.0
        fill = int(self.width * frac)
        self.stream.write(f"\r{self.label} [{'#' * fill}{'-' * (self.width - fill)}] {100 * frac:5.1f}%"
                          f" {_size(self.done, self.unit)}/{_size(self.total, self.unit)}"
                          f" {now - self.t0:5.1f}s")
        self.stream.flush()

    def close(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _size(n, unit):
    if unit != "B":
        return f"{n}{unit}"
    for u in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or u == "GiB":
            return f"{n:.0f}{u}" if u == "B" else f"{n:.1f}{u}"
        n /= 1024
