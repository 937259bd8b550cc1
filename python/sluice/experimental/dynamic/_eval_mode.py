"""``EvalMode`` (DALI's evaluation modes). DALI runs operators asynchronously by default, on an
executor thread, and ``EvalMode.sync_cpu`` / ``sync_full`` make calls complete before they return.
Sluice's dynamic mode always completes a call before it returns (an error raises at the call), so
every mode behaves as ``sync_full``; the modes exist so that DALI's code runs unchanged."""
import enum
import threading

_local = threading.local()


class EvalMode(enum.Enum):
    """``with ndd.EvalMode.sync_cpu: ...`` selects a mode for the block (see the module's doc)."""
    default = "default"
    deferred = "deferred"
    eager = "eager"
    sync_cpu = "sync_cpu"
    sync_full = "sync_full"

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        return False

    @staticmethod
    def current():
        """The innermost mode entered on this thread (``EvalMode.default`` outside any block)."""
        stack = getattr(_local, "stack", None)
        return stack[-1] if stack else EvalMode.default
