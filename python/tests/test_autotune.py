"""Autotuning (a Sluice extension): num_threads="auto", prefetch_queue_depth="auto", memory_budget."""
import numpy as np
import pytest

import sluice
from sluice import fn


def _random_pipe(**kwargs):
    pipe = sluice.Pipeline(batch_size=16, seed=11, **kwargs)
    with pipe:
        values = fn.testing.counter(shape=[256])
        noise = fn.random.uniform(range=[0.0, 100.0])
        pipe.set_outputs(fn.testing.add_constant(values, value=noise), fn.random.coin_flip(probability=0.3))
    return pipe


def _run(pipe, iterations):
    return [[np.array(b.as_tensor()) for b in pipe.run()] for _ in range(iterations)]


def test_auto_arguments_reach_the_options_and_the_properties():
    pipe = _random_pipe(num_threads="auto", prefetch_queue_depth="auto", memory_budget=1 << 30)
    o = pipe._options
    assert o.auto_threads and o.auto_queue_depth and o.memory_budget == 1 << 30
    assert pipe.num_threads == "auto" and pipe.prefetch_queue_depth == "auto" and pipe.memory_budget == 1 << 30
    # DALI's -1 keeps its meaning (one thread per CPU, fixed), not "auto".
    fixed = _random_pipe(num_threads=-1)
    assert not fixed._options.auto_threads and isinstance(fixed.num_threads, int)


def test_pipeline_def_passes_the_autotune_arguments():
    @sluice.pipeline_def(batch_size=4, seed=1)
    def graph():
        return fn.testing.counter()

    pipe = graph(num_threads="auto", prefetch_queue_depth="auto", memory_budget=10**9)
    assert pipe.num_threads == "auto" and pipe.prefetch_queue_depth == "auto" and pipe.memory_budget == 10**9
    pipe.build()
    assert pipe.executor_statistics()["autotune"]["auto_threads"]


@pytest.mark.parametrize("kwargs,error,name", [
    ({"num_threads": "fast"}, ValueError, "num_threads"),
    ({"num_threads": 2.5}, TypeError, "num_threads"),
    ({"num_threads": "AUTO"}, ValueError, "num_threads"),
    ({"prefetch_queue_depth": "deep"}, ValueError, "prefetch_queue_depth"),
    ({"memory_budget": 0}, ValueError, "memory_budget"),
    ({"memory_budget": -5}, ValueError, "memory_budget"),
    ({"memory_budget": "1GB"}, TypeError, "memory_budget"),
    ({"memory_budget": 1.5e9}, TypeError, "memory_budget"),
])
def test_bad_values_are_rejected_naming_the_argument(kwargs, error, name):
    with pytest.raises(error, match=name):
        sluice.Pipeline(batch_size=2, **kwargs)


def test_the_same_seed_gives_the_same_batches_whatever_the_threads():
    ref = _run(_random_pipe(num_threads=1), 60)
    auto = _random_pipe(num_threads="auto", prefetch_queue_depth="auto")
    got = _run(auto, 60)
    for a, b in zip(ref, got):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    # The search measured another count after the default's baseline (it goes up to twice the CPUs).
    changes = auto.executor_statistics()["autotune"]["changes"]
    assert len({c["threads"] for c in changes}) >= 2, changes


def test_statistics_report_the_choice_and_its_measurements():
    pipe = _random_pipe(num_threads="auto", prefetch_queue_depth="auto")
    _run(pipe, 30)
    stats = pipe.executor_statistics()
    a = stats["autotune"]
    assert "op" not in a  # not an operator's entry
    assert a["auto_threads"] and a["auto_queue_depth"] and a["memory_budget"] is None
    assert 1 <= a["threads"] <= a["max_threads"] and 1 <= a["depth"] <= a["max_depth"] == 4
    m = a["measured"]
    assert m["batches"] >= 4 and m["stage_ms"] > 0 and m["period_ms"] > 0
    assert m["slot_bytes"] >= 16 * 256 * 8 and m["output_bytes"] > 0
    first = a["changes"][0]
    search = a["search"]
    # The search starts at the fixed default (every available CPU) and may measure up to twice that.
    assert search["default_threads"] >= 1 and a["max_threads"] == 2 * search["default_threads"]
    assert first["batch"] == 0 and first["threads"] == search["default_threads"]
    assert "every available CPU" in first["reason"]
    assert search["phase"] in ("baseline", "up", "down", "settled") and search["searches"] >= 1
    # 30 batches: the baseline step (6 windows of 4 after 2 of warm-up) is done and reported.
    assert search["trials"], a["changes"]
    base = search["trials"][0]
    assert base["threads"] == search["default_threads"] and base["kept"] and base["batches_per_s"] > 0
    assert 0 <= base["wait_fraction"] <= 1
    assert search["best_batches_per_s"] >= base["batches_per_s"]
    assert any("batches/s (the default)" in c["reason"] for c in a["changes"])
    # Without autotuning there is no entry.
    plain = _random_pipe(num_threads=2)
    _run(plain, 2)
    assert "autotune" not in plain.executor_statistics()
    # Autotuning without auto threads: no search.
    depth_only = _random_pipe(num_threads=2, prefetch_queue_depth="auto")
    _run(depth_only, 2)
    assert depth_only.executor_statistics()["autotune"]["search"] is None


def test_memory_budget_lowers_the_depth_to_fit():
    probe = _random_pipe(num_threads=2, memory_budget=1 << 40)
    _run(probe, 3)
    m = probe.executor_statistics()["autotune"]["measured"]
    # Room for one slot and the outputs the consumer holds, not for two slots.
    budget = m["slot_bytes"] + m["output_bytes"] + m["slot_bytes"] // 2
    pipe = _random_pipe(num_threads=2, prefetch_queue_depth=3, memory_budget=budget)
    _run(pipe, 10)
    a = pipe.executor_statistics()["autotune"]
    assert a["depth"] == 1 and a["memory_budget"] == budget
    assert a["measured"]["needed_bytes"] <= budget
    assert any("memory_budget" in c["reason"] for c in a["changes"])


def test_a_batch_that_cannot_fit_the_budget_is_an_error_with_the_numbers():
    pipe = _random_pipe(num_threads=2, memory_budget=1000)
    with pytest.raises(sluice.SluiceError, match=r"memory_budget") as e:
        pipe.run()
    text = str(e.value)
    assert "one batch needs" in text and "memory_budget of 1000 bytes" in text
    needed = int(text.split("one batch needs ")[1].split(" bytes")[0])
    assert needed > 1000
