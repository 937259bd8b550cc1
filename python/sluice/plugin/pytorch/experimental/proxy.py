"""DALI's ``nvidia.dali.plugin.pytorch.experimental.proxy``: one Sluice pipeline serving the worker
processes of a PyTorch DataLoader.

A Dataset's ``__getitem__`` calls ``server.proxy(...)`` with one sample's inputs (one argument per
``external_source`` of the pipeline, by name; positional when there is one). The proxy keeps the
inputs and returns a ``DALIOutputSampleRef`` per pipeline output. The DataLoader's collate turns the
refs of one batch into ``DALIOutputBatchRef`` placeholders and (``deterministic=False``) sends the
batch's inputs to the server at once, from the worker. In the main process ``proxy.DataLoader``
(or ``server.produce_data(batch)``) replaces each placeholder with the pipeline's output for that
batch, a torch tensor. The server is a thread of the main process: it feeds each batch's inputs to
the external sources, runs the pipeline (at most ``prefetch_queue_depth`` iterations in flight) and
queues the outputs under the batch's id, so batches from several workers may finish in any order.

With ``deterministic=True`` the workers only collect inputs; the main process sends each batch to
the server when the DataLoader delivers it, i.e. in the sampler's order, so a pipeline with state
(random operators, seeds) gives the same outputs as the pipeline fed the same batches directly.

Differences from DALI (docs/dali-compatibility.md): ``num_workers=0`` works (DALI's DataLoader
needs workers); an error in the pipeline (or in feeding it) reaches the consumer of that batch
instead of ending the server thread; waiting for a batch while the server is not running raises
instead of waiting forever; batch ids carry a per-process token, so batches left unconsumed by an
earlier epoch are never taken for a later epoch's.
"""
import gc
import os
import queue
import threading
import uuid
from inspect import Parameter, Signature

import torch.multiprocessing as _mp
from torch.utils import data as _torchdata
from torch.utils.data._utils.collate import default_collate_fn_map as _default_collate_fn_map

from ....errors import SluiceError
from ....pipeline import Pipeline as _Pipeline
from .. import to_torch as _to_torch

__all__ = ["DALIServer", "DataLoader"]

# How long the server thread and a waiting consumer block before re-checking whether to stop:
# bounds the latency of stop_thread() and of noticing a server that is not running.
_POLL_S = 0.05


class DALIOutputSampleRef:
    """What ``server.proxy(...)`` returns: output `output_idx` of sample `sample_idx` of a batch."""

    def __init__(self, proxy, pipe_run_ref, output_idx, sample_idx):
        self.proxy = proxy
        self.pipe_run_ref = pipe_run_ref
        self.output_idx = output_idx
        self.sample_idx = sample_idx

    def __repr__(self):
        return (f"DALIOutputSampleRef({self.pipe_run_ref}, output_idx={self.output_idx}, "
                f"sample_idx={self.sample_idx})")


class DALIPipelineRunRef:
    """One pipeline iteration: its id and, until it is sent to the server, its inputs
    (``call_args``: input name -> list of samples)."""

    def __init__(self, batch_id):
        self.batch_id = batch_id
        self.call_args = {}
        self.is_scheduled = False
        self.is_complete = False

    def __repr__(self):
        return (f"DALIPipelineRunRef(batch_id={self.batch_id}, inputs={list(self.call_args)}, "
                f"is_scheduled={self.is_scheduled}, is_complete={self.is_complete})")


class DALIOutputBatchRef:
    """The collated placeholder of output `output_idx` of an iteration; produce_data() replaces it."""

    def __init__(self, pipe_run_ref, output_idx):
        self.pipe_run_ref = pipe_run_ref
        self.output_idx = output_idx

    def __repr__(self):
        return f"DALIOutputBatchRef(pipe_run_ref={self.pipe_run_ref}, output_idx={self.output_idx})"


def _collate_dali_output_sample_ref_fn(samples, *, collate_fn_map=None):
    """default_collate's rule for DALIOutputSampleRef: the samples must be one whole batch, in order;
    the batch is complete (the next proxy call starts another) and, unless deterministic, sent."""
    first = samples[0]
    for i, sample in enumerate(samples):
        if (sample.proxy is not first.proxy or sample.pipe_run_ref is not first.pipe_run_ref
                or sample.output_idx != first.output_idx):
            raise RuntimeError("DALI proxy: all samples of a batch must come from one batch of proxy calls "
                               "(the DataLoader's batch_size must be the number of proxy calls per batch)")
        if sample.sample_idx != i:
            raise RuntimeError(f"DALI proxy: sample {sample.sample_idx} of the proxy's batch was collated at "
                               f"position {i} (samples must be collated in the order the proxy was called)")
    run_ref = first.pipe_run_ref
    run_ref.is_complete = True
    if not first.proxy._deterministic and not run_ref.is_scheduled:
        run_ref = first.proxy._schedule_batch(run_ref)
    return DALIOutputBatchRef(run_ref, first.output_idx)


# As DALI does: default_collate (and every collate built on its map) handles the sample refs.
_default_collate_fn_map.update({DALIOutputSampleRef: _collate_dali_output_sample_ref_fn})


class _WorkerData:
    """The batch being collected by one DataLoader worker (or thread, without workers)."""

    def __init__(self, worker_id):
        self.worker_id = worker_id
        self.pid = os.getpid()
        # The token keeps ids unique across worker processes of different epochs and loaders.
        self.token = uuid.uuid4().hex[:12]
        self.pipe_run_ref = None
        self.next_batch_idx = 0
        self.batch_sample_idx = 0


class _DALIProxy:
    """The callable a Dataset calls (``server.proxy``); pickled into the DataLoader's workers."""

    def __init__(self, signature, input_q, deterministic):
        self._signature = signature
        self._dali_input_q = input_q
        self._deterministic = deterministic
        self._worker_data = None
        self._num_outputs = len(signature.return_annotation)
        self.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])

    def __call__(self, *args, **kwargs):
        try:
            bound = self._signature.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"DALI proxy: expected the pipeline's inputs {self.__signature__}: {e}") from None
        return self._add_sample(bound.arguments)

    def _get_worker_data(self):
        info = _torchdata.get_worker_info()
        worker_id = info.id if info is not None else threading.get_ident()
        wd = self._worker_data
        # A forked worker inherits the parent's data: it must not continue the parent's ids.
        if wd is None or wd.worker_id != worker_id or wd.pid != os.getpid():
            wd = self._worker_data = _WorkerData(worker_id)
        return wd

    def _add_sample(self, inputs):
        wd = self._get_worker_data()
        if wd.pipe_run_ref is None or wd.pipe_run_ref.is_complete:
            wd.pipe_run_ref = DALIPipelineRunRef((wd.token, wd.worker_id, wd.next_batch_idx))
            wd.next_batch_idx += 1
            wd.batch_sample_idx = 0
        for name, value in inputs.items():
            if name != "self":
                wd.pipe_run_ref.call_args.setdefault(name, []).append(value)
        refs = tuple(DALIOutputSampleRef(self, wd.pipe_run_ref, i, wd.batch_sample_idx)
                     for i in range(self._num_outputs))
        wd.batch_sample_idx += 1
        return refs[0] if len(refs) == 1 else refs

    def _schedule_batch(self, pipe_run_ref):
        """Sends a complete batch's inputs to the server; the ref that stays behind keeps only the id."""
        if not pipe_run_ref.call_args:
            raise RuntimeError("DALI proxy: no inputs for the pipeline to run (was the batch already sent?)")
        if not pipe_run_ref.is_complete:
            raise RuntimeError("DALI proxy: the batch is not complete (not collated)")
        item = DALIPipelineRunRef(pipe_run_ref.batch_id)
        item.call_args = pipe_run_ref.call_args
        item.is_complete = item.is_scheduled = True
        self._dali_input_q.put(item)
        pipe_run_ref.call_args = {}
        pipe_run_ref.is_scheduled = True
        return pipe_run_ref


def _external_source_names(pipeline):
    """The names of the pipeline's external sources fed by feed_input (those without `source`), in
    graph order: the proxy's parameters."""
    if pipeline._deserialized:
        raise RuntimeError("DALIServer: the external sources of a deserialized pipeline cannot be found")
    pipeline._build_graph()
    return [name for name, group in pipeline._all_sources.items() if group.source is None]


class DALIServer:
    """Runs `pipeline` for the batches a DataLoader's workers collect through ``server.proxy``.

    `deterministic`: send each batch to the pipeline in the order the DataLoader delivers them (from
    the main process), not as soon as a worker collates it: reproducible outputs for pipelines with
    state, at the cost of the pipeline starting a batch only when it is asked for.
    Start and stop it with ``with DALIServer(pipe) as server:`` (or start_thread()/stop_thread()).
    """

    def __init__(self, pipeline, deterministic=False):
        if not isinstance(pipeline, _Pipeline):
            raise TypeError(f"Expected a Sluice pipeline, got: {pipeline!r}")
        self._pipe = pipeline
        self._dali_input_names = _external_source_names(pipeline)
        if not self._dali_input_names:
            raise RuntimeError("The provided pipeline doesn't have any inputs (external_source without `source`)")
        kind = Parameter.POSITIONAL_OR_KEYWORD if len(self._dali_input_names) == 1 else Parameter.KEYWORD_ONLY
        params = [Parameter("self", Parameter.POSITIONAL_OR_KEYWORD)]
        params += [Parameter(name, kind) for name in self._dali_input_names]
        self._signature = Signature(params, return_annotation=tuple(
            DALIOutputSampleRef for _ in range(pipeline.num_outputs)))
        self._dali_input_q = _mp.Queue()     # workers (or the main process) -> server thread
        self._dali_output_q = queue.Queue()  # server thread -> main process: (batch_id, outputs, error)
        self._thread = None
        self._thread_stop_event = None
        self._cache_outputs = {}
        self._deterministic = deterministic
        self._proxy = None

    def __del__(self):
        if getattr(self, "_thread", None) is not None:
            self.stop_thread()

    @property
    def proxy(self):
        """The callable for the Dataset: ``proxy(input)`` or ``proxy(name=..., ...)``."""
        if self._proxy is None:
            self._proxy = _DALIProxy(self._signature, self._dali_input_q, self._deterministic)
        return self._proxy

    # --- the main process's side ----------------------------------------------------------------
    def _get_outputs(self, pipe_run_ref):
        """The outputs of one iteration (torch tensors), waiting for the server; outputs of other
        iterations that arrive first are kept for their own callers. An error of the iteration is
        raised here."""
        req = pipe_run_ref.batch_id
        if not pipe_run_ref.is_scheduled:  # deterministic: sent now, in the DataLoader's order
            self._dali_input_q.put(pipe_run_ref)
            pipe_run_ref.is_scheduled = True
        while req not in self._cache_outputs:
            try:
                batch_id, outputs, err = self._dali_output_q.get(timeout=_POLL_S)
            except queue.Empty:
                if not self._is_thread_running():
                    raise RuntimeError(f"DALIServer is not running: the outputs of batch {req} cannot be produced "
                                       f"(use `with DALIServer(pipe) as server:` or server.start_thread())") from None
                continue
            self._cache_outputs[batch_id] = (outputs, err)
        outputs, err = self._cache_outputs.pop(req)
        if err is not None:
            try:
                raise err
            finally:
                # No frame -> error -> traceback -> frame cycle: a DataLoader iterator in the traceback
                # left to the cyclic collector shuts its workers down only after a 5 s join timeout each
                # (its queues' finalizers run first, so the workers never get the stop signal).
                err = None
        return outputs

    def produce_data(self, obj):
        """`obj` (a collated batch: lists, tuples, named tuples, dicts, objects) with every
        DALIOutputBatchRef replaced by the pipeline's output. Lists, dicts and objects are changed in
        place; tuples are rebuilt."""
        return self._produce(obj, {}, {})

    def _produce(self, obj, done, runs):
        key = id(obj)
        if key in done:
            return done[key]
        if isinstance(obj, DALIOutputBatchRef):
            run_key = id(obj.pipe_run_ref)
            if run_key not in runs:
                runs[run_key] = self._get_outputs(obj.pipe_run_ref)
            result = runs[run_key][obj.output_idx]
        elif isinstance(obj, (str, bytes, int, float, bool, type(None))) or type(obj).__module__ == "torch":
            result = obj
        elif isinstance(obj, list):
            done[key] = obj  # before recursing: cycles end here
            obj[:] = [self._produce(x, done, runs) for x in obj]
            result = obj
        elif isinstance(obj, tuple):
            items = [self._produce(x, done, runs) for x in obj]
            if all(a is b for a, b in zip(items, obj)):
                result = obj
            elif hasattr(obj, "_fields"):
                result = type(obj)(*items)
            else:
                result = type(obj)(items)
        elif isinstance(obj, dict):
            done[key] = obj
            for k in list(obj):
                obj[k] = self._produce(obj[k], done, runs)
            result = obj
        elif hasattr(obj, "__dict__") and not isinstance(obj, type):
            done[key] = obj
            for name, value in list(vars(obj).items()):
                new = self._produce(value, done, runs)
                if new is not value:
                    setattr(obj, name, new)
            result = obj
        else:
            result = obj
        done[key] = result
        return result

    # --- the server thread ------------------------------------------------------------------------
    def _prefetch_depth(self):
        return max(1, self._pipe._built().prefetch_depth())

    def _feed_and_schedule(self, item):
        """Feeds one iteration's inputs and schedules it; the error, if any (the iteration is then not
        scheduled, and its consumer gets the error)."""
        try:
            for name, samples in item.call_args.items():
                self._pipe.feed_input(name, samples)
            self._pipe._run_once()
            return None
        except Exception as e:  # noqa: BLE001 - handed to the batch's consumer
            e.add_note(f"(raised by DALIServer while feeding batch {item.batch_id} to the pipeline)")
            return e

    def _take_outputs(self, batch_id):
        try:
            outs = self._pipe.outputs()
            # Copies: the next outputs() may reuse the pipeline's buffers while these wait in the queue.
            result = tuple(_to_torch(out).clone() for out in outs)
            err = None
        except Exception as e:  # noqa: BLE001 - handed to the batch's consumer
            e.add_note(f"(raised by the DALIServer's pipeline for batch {batch_id})")
            result, err = None, e
        self._dali_output_q.put((batch_id, result, err))
        err = None  # no cycle through this frame (see _get_outputs)

    def _thread_fn(self, stop):
        depth = self._prefetch_depth()
        in_flight = []  # batch ids scheduled in the pipeline, oldest first
        while not stop.is_set() or in_flight:
            if not stop.is_set():
                # Fill the pipeline's queue with what is waiting; block briefly only when it is empty.
                while len(in_flight) < depth:
                    try:
                        item = (self._dali_input_q.get(timeout=_POLL_S) if not in_flight
                                else self._dali_input_q.get_nowait())
                    except queue.Empty:
                        break
                    err = self._feed_and_schedule(item)
                    if err is None:
                        in_flight.append(item.batch_id)
                    else:
                        self._dali_output_q.put((item.batch_id, None, err))
            if in_flight:  # on stop: the scheduled iterations are taken, so a restart starts clean
                self._take_outputs(in_flight.pop(0))

    def start_thread(self):
        """Builds the pipeline (errors raised here) and starts the server thread."""
        if self._thread is not None:
            return
        self._pipe.build()
        self._thread_stop_event = threading.Event()
        self._thread = threading.Thread(target=self._thread_fn, args=(self._thread_stop_event,),
                                        name="sluice-DALIServer", daemon=True)
        self._thread.start()

    def stop_thread(self):
        """Stops the server thread (after the iterations already in the pipeline finish)."""
        if self._thread is None:
            return
        self._thread_stop_event.set()
        self._thread.join()
        self._thread = None
        self._thread_stop_event = None

    def _is_thread_running(self):
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self):
        self.start_thread()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        self.stop_thread()
        return False


class _IterMixin:
    def _next_data(self):
        self._loader.ensure_server_listening()
        return self._loader.dali_server.produce_data(super()._next_data())


class _SingleProcessIter(_IterMixin, _torchdata.dataloader._SingleProcessDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._loader = loader


class _MultiProcessIter(_IterMixin, _torchdata.dataloader._MultiProcessingDataLoaderIter):
    def __init__(self, loader):
        # The workers are forked from a process whose pipelines own threads. A garbage collection in a
        # worker that destroyed an inherited, unreachable Sluice pipeline would join threads that do not
        # exist in the child (a crash): garbage is collected here first, and what remains is frozen
        # (gc.freeze: never examined by the children's collections) while the workers are forked.
        gc.collect()
        gc.freeze()
        try:
            super().__init__(loader)
        finally:
            gc.unfreeze()
        self._loader = loader


class DataLoader(_torchdata.dataloader.DataLoader):
    """torch's DataLoader, with a DALIServer first: its batches have the pipeline's outputs in place
    of the proxy's placeholders. Starts the server if it is not running (and stops it when deleted)."""

    def __init__(self, dali_server, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.dali_server = dali_server
        self.server_started_by_loader = False

    def __del__(self):
        if getattr(self, "server_started_by_loader", False) and self.dali_server._is_thread_running():
            self.dali_server.stop_thread()

    def ensure_server_listening(self):
        if not self.dali_server._is_thread_running():
            self.dali_server.start_thread()
            self.server_started_by_loader = True

    def _get_iterator(self):
        return _MultiProcessIter(self) if self.num_workers > 0 else _SingleProcessIter(self)
