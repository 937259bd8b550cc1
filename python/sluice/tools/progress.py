"""The one-line progress bar on stderr of the `sluice` tools (no dependency): wds2idx, prepare and
bench's runs all draw this one.

Shown only on a terminal and only once the work has taken more than `delay` seconds, so quick
runs and redirected output stay quiet."""
import sys
import time


class ProgressBar:
    """`label [####------]  40.0% done/total unit  elapsed rate unit/s`, redrawn in place.

    `unit` "B" shows byte counts with binary prefixes; any other unit is a word after the counts
    ("images"), or none (""). On close a drawn bar is ended with a newline (`keep`), or erased
    (keep=False: one of many short-lived bars, as bench's per-run ones, that leave nothing behind).
    """

    def __init__(self, label, total, unit="", enabled=None, delay=1.0, stream=None, width=30, keep=True):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label, self.total, self.unit, self.delay, self.width = label, total, unit, delay, width
        self.keep = keep
        self.done = 0
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.drawn = False
        self.line_length = 0

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
        elapsed = now - self.t0
        rate = self.done / max(1e-9, elapsed)
        unit = f" {self.unit}" if self.unit not in ("", "B") else ""
        line = (f"{self.label} [{'#' * fill}{'-' * (self.width - fill)}] {100 * frac:5.1f}%"
                f" {self._amount(self.done)}/{self._amount(self.total)}{unit} {elapsed:5.1f}s"
                f" {self._amount(rate)}{unit}/s")
        self.line_length = max(self.line_length, len(line))
        self.stream.write("\r" + line.ljust(self.line_length))  # over a longer previous line
        self.stream.flush()

    def _amount(self, n):
        return _bytes(n) if self.unit == "B" else f"{n:.0f}"

    def close(self):
        if self.drawn:
            self.stream.write("\n" if self.keep else "\r" + " " * self.line_length + "\r")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _bytes(n):
    for u in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or u == "GiB":
            return f"{n:.0f}{u}" if u == "B" else f"{n:.1f}{u}"
        n /= 1024
