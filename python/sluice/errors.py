"""Exceptions raised by Sluice.

Every error from the C++ core arrives as :class:`SluiceError` with the context that locates its
cause: the operator instance (``op``), the argument, and the sample's ``source`` (file path, or
archive member and offset), plus the sample index and batch number when known.
"""
import difflib


class SluiceError(RuntimeError):
    """An error reported by Sluice. ``str(e)`` is the full message; the attributes hold its parts."""

    def __init__(self, text, *, op="", argument="", source="", sample=-1, iteration=-1, message=None):
        super().__init__(text)
        self.op = op
        self.argument = argument
        self.source = source
        self.sample = sample
        self.iteration = iteration
        self.message = text if message is None else message


class ArgumentError(SluiceError, TypeError):
    """An operator call that its schema rejects (an unknown or invalid argument, a wrong number of
    inputs), raised where the operator is called, before build. ``op`` names the operator (its
    instance name, or its registry name) and ``argument`` the argument, as the C++ core reports."""


def did_you_mean(word, candidates):
    """`` (did you mean 'x'?)`` for the closest candidate, or an empty string."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
