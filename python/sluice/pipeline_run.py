"""The run methods of a pipeline, with DALI's API types, and the feeding of its inputs.

:class:`PipelineRunMethods` is the part of :class:`sluice.pipeline.Pipeline` that runs it:
``run()`` (the BASIC API), ``schedule_run()`` with ``outputs()`` or
``share_outputs()``/``release_outputs()`` (the SCHEDULED API), the framework iterators' entry points
(``_schedule_run``, ``_share_outputs``, ``_release_outputs``: the ITERATOR API), the check that one
pipeline uses one API type, ``feed_input()``, ``iter_setup()`` (the hook a subclass overrides) and
``reset()`` after the end of an epoch. Each scheduled iteration first asks every external source
with a ``source`` for its batch, then calls ``iter_setup()``, then feeds them; the first
``schedule_run()`` fills the prefetch queue. It expects the attributes the Pipeline constructor and
build set (``_cpp`` through ``_built()``, ``_sources``, ``_repeat_last``, ...) and is not used on
its own.
"""
import operator

import numpy as np

from .errors import SluiceError
from .graph import DataNode
from .tensors import to_samples, wrap_batch
from .types import PipelineAPIType


class PipelineRunMethods:
    """The run methods of a :class:`sluice.pipeline.Pipeline` (see the module's doc)."""

    # --- run methods -------------------------------------------------------------------------
    def enable_api_check(self, enable):
        """Turns the check that one pipeline uses one API type (BASIC, SCHEDULED, ITERATOR) on or off."""
        self._skip_api_check = not enable

    def _use_api(self, api):
        if self._skip_api_check:
            return
        if self._api_type is None:
            self._api_type = api
        elif self._api_type != api:
            raise SluiceError(f"Mixing pipeline API type. Currently used: {self._api_type}, but trying to use "
                              f"{api} (a pipeline cannot mix run methods: run() is the BASIC API; schedule_run(), "
                              f"outputs(), share_outputs() and release_outputs() the SCHEDULED one; the "
                              f"framework iterators use ITERATOR)")

    def run(self, cuda_stream=None, /, **pipeline_inputs):
        """Runs one iteration and returns its outputs (a tuple of TensorListCPU/TensorListGPU).

        `pipeline_inputs` (DALI's shorthand for ``feed_input``): ``run(name=batch)`` feeds the
        external_source `name` first; it needs ``prefetch_queue_depth=1`` or ``exec_pipelined=False``.
        `cuda_stream`: GPU outputs are ordered on this stream (an int handle or an object with
        ``cuda_stream``/``ptr``, as PyTorch's and CuPy's streams)."""
        if pipeline_inputs and not self._are_pipeline_inputs_possible():
            raise SluiceError(f"When using pipeline_inputs named arguments, either `prefetch_queue_depth` in "
                              f"Pipeline constructor shall be set to 1 (for both devices) or `exec_pipelined` "
                              f"shall be set to False. Received: prefetch_queue_depth={self.prefetch_queue_depth}, "
                              f"exec_pipelined={self.exec_pipelined}.")
        self._use_api(PipelineAPIType.BASIC)
        for name, value in pipeline_inputs.items():
            self.feed_input(name, value)
        self._schedule()
        return self._take(release_previous=True, cuda_stream=cuda_stream)

    def _are_pipeline_inputs_possible(self):
        if not self.exec_pipelined:
            return True
        return self._options.cpu_queue_depth <= 1 and self._options.gpu_queue_depth <= 1 and \
            not self._options.auto_queue_depth

    def schedule_run(self):
        """Schedules the next iteration (the first call fills the prefetch queue)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        self._schedule()

    def share_outputs(self, cuda_stream=None):
        """The next scheduled iteration's outputs; they stay valid until release_outputs() (and after:
        Sluice's buffers are reused only when no output object refers to them)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        return self._take(release_previous=False, cuda_stream=cuda_stream)

    def release_outputs(self):
        """Returns the oldest shared outputs' buffers to the pipeline."""
        self._use_api(PipelineAPIType.SCHEDULED)
        self._built().release_outputs()

    def outputs(self, cuda_stream=None):
        """The next scheduled iteration's outputs; releases the previous ones. With ``schedule_run()``
        this is DALI's SCHEDULED API (``run()`` is the two together)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        return self._take(release_previous=True, cuda_stream=cuda_stream)

    # The framework iterators' entry points (the ITERATOR API type, checked once by the iterator).
    def _schedule_run(self):
        self._schedule()

    def _share_outputs(self):
        return self._take(release_previous=False)

    def _release_outputs(self):
        self._built().release_outputs()

    def empty(self):
        """True if no iteration is scheduled and not yet taken."""
        return self._scheduled == 0

    def iter_setup(self):
        """Called before each iteration is scheduled (after the external sources' ``source`` callbacks
        gave their batches, before those are fed); override it to ``feed_input`` the iteration's data,
        as DALI's legacy pipelines do. StopIteration raised here ends the epoch."""

    def _schedule(self):
        cpp = self._built()
        if self._last_iter:
            return  # the epoch ended; reset() starts the next one
        n = cpp.prefetch_depth() if self._first_iter else 1
        self._first_iter = False
        for _ in range(n):
            if not self._schedule_one(cpp):
                return

    def _run_once(self):
        """Schedules exactly one iteration, even the first (DALI's ``Pipeline._run_once``): for callers
        that feed every iteration's inputs themselves and keep at most ``prefetch_queue_depth``
        iterations scheduled (sluice.plugin.pytorch.experimental.proxy's server)."""
        cpp = self._built()
        if self._last_iter:
            return
        self._first_iter = False
        self._schedule_one(cpp)

    def _schedule_one(self, cpp):
        """Prepares and schedules one iteration; False when the sources' epoch ended instead."""
        if self._stop_pending:
            return False
        try:
            self._prepare_iteration()
        except StopIteration:
            self._stop_pending = True
            return False
        for op_name, state in self._repeat_last.items():
            if state[0] == 0 and state[1] is not None:  # nothing new fed: the last batch again
                cpp.feed_input(op_name, *state[1])
                state[0] += 1
        cpp.schedule_run()
        self._scheduled += 1
        for state in self._repeat_last.values():
            state[0] = max(0, state[0] - 1)
        return True

    def _take(self, release_previous, cuda_stream=None):
        cpp = self._built()
        if self._scheduled == 0 and (self._stop_pending or self._last_iter):
            self._last_iter = True
            self._stop_pending = False
            raise StopIteration
        # outputs() is release_outputs() + share_outputs(), as in DALI (and as the C++ Outputs() is): made
        # of the two here, so that outputs() and share_outputs() can be used on one pipeline (DALI's
        # SCHEDULED API), which the C++ API's own run-method check would refuse.
        if release_previous:
            cpp.release_outputs()
        batches = cpp.share_outputs()
        self._scheduled -= 1
        self._check_outputs(batches)
        if cuda_stream is not None:
            stream = _stream_handle(cuda_stream)
            for b in batches:
                if b.device == "gpu":
                    b.wait_on(stream)
        return tuple(wrap_batch(b, self.device_id) for b in batches)

    def _prepare_iteration(self):
        """One iteration's inputs, as DALI orders them: every source is asked first (a StopIteration
        from one leaves none fed), then iter_setup(), then the sources' batches are fed."""
        fed = []
        for group in self._sources:
            try:
                fed.append((group, group.next_batch(self.batch_size)))
            except StopIteration:
                raise
            except Exception as e:
                e.add_note(f"(raised by the source of external_source '{group.op_names[0]}')")
                raise
        self.iter_setup()
        for group, batches in fed:
            for op_name, arrays, layout in zip(group.op_names, batches, group.layout):
                self._cpp.feed_input(op_name, arrays, layout or "")

    def feed_input(self, data_node, data, layout=None, cuda_stream=None, use_copy_kernel=False):
        """Feeds one batch to an external_source without a `source` (by name or DataNode), or
        encoded videos to an experimental.inputs.video (each sample one video, uint8 1-D). The data
        is copied at once (`cuda_stream` and `use_copy_kernel` are accepted for DALI compatibility)."""
        name = data_node.source_call.name if isinstance(data_node, DataNode) else data_node
        cpp = self._built()
        if name not in self._all_sources and name not in self._fed_videos:
            raise SluiceError(f"there is no external_source or experimental.inputs.video named '{name}' "
                              f"in the pipeline")
        group = self._all_sources.get(name)
        if group is not None and group.source is not None:
            raise SluiceError(f"Cannot use `feed_input` on the external source '{name}' with a `source` argument "
                              f"specified.")
        arrays, layout = to_samples(data), layout or ""
        cpp.feed_input(name, arrays, layout)
        state = self._repeat_last.get(name)
        if state is not None:
            state[0] += 1
            state[1] = ([np.array(a, copy=True, order="C") for a in arrays], layout)

    def reset(self):
        """After StopIteration from an external source: starts the next epoch. Otherwise a no-op
        (readers run on across epochs; batches already prefetched belong to the next one). As in
        DALI, a non-cycling iterable source is not restarted (see sluice.external_source)."""
        if not self._last_iter and not self._stop_pending:
            return
        if self._scheduled:
            return  # batches from before the end remain to be taken
        self._last_iter = False
        self._stop_pending = False
        self._first_iter = True
        for group in self._groups:
            group.reset()
        if self._cpp is not None:
            self._cpp.reset()


def _stream_handle(stream):
    """A CUDA stream handle from an int or a framework's stream object (PyTorch ``cuda_stream``, CuPy ``ptr``)."""
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    try:
        return operator.index(stream)
    except TypeError:
        raise TypeError(f"cuda_stream must be a stream handle (int) or a stream object with `cuda_stream` or "
                        f"`ptr`, got {type(stream).__name__}") from None
