"""SolverLab answers at once (issue 45, item 3; issue 46, item 4): a move to a
value the lab holds redraws from its cache with no fit, any other move starts
from the nearest solution it holds, a background thread precomputes the
slider's positions around the current value (cancelled by a move, never
beside a foreground fit), and every refit reads X as it was prepared once."""

from __future__ import annotations

import threading
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import polyrank as pr
from polyrank_widgets import SolverLab
from polyrank_widgets.lab_cache import (
    Precomputer,
    SolutionCache,
    WarmPool,
    canonical_x,
    settings_key,
    slider_positions,
)

T = 300      # seconds: the first fit of a solver may compile its kernels


def _ranking(n_q=30, per=20, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_q * per, d))
    qid = np.repeat(np.arange(n_q), per)
    y = np.digitize(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n_q * per), [-1.0, 1.0])
    return X, y, qid


def _neighbour(control, steps=-1):
    """The log slider's value ``steps`` positions from its current one."""
    return 10.0 ** (np.log10(control.value) + steps * control.step)


def test_a_move_to_a_precomputed_value_redraws_from_the_cache():
    X, y = make_classification(200, 5, random_state=0)
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), X, y,
                    params={"lam": (1e-4, 1e-1)}, test=(X, y))
    assert lab.wait(T) and lab.error_ is None and lab.penalty_ == "lam"
    first = lab.estimator_
    lam = lab.controls["lam"]
    target = _neighbour(lam)
    assert lab.wait_cached(target, T)                 # the background fitted it
    sol = lab.cache.get(settings_key(lab.values(), "lam"), target)
    assert sol.background and sol.start.startswith("warm from lam")
    n_fits = lab.n_fits_
    lam.value = target
    # no fit for that move: the cached model is shown at once
    assert lab.last_move_["source"] == "cache" and lab.last_move_["fits"] == 0
    assert lab.n_fits_ == n_fits and lab.n_cached_ == 1
    assert lab.estimator_ is sol.estimator and lab.estimator_ is not first
    assert lab.estimator_.lam == pytest.approx(target)
    assert lab.score_ == pytest.approx(lab.estimator_.score(X, y))
    assert "from the cache (no fit" in lab.readout.value
    # the gap monitor replays the cached fit; its model is the one drawn
    assert len(lab.monitor) == lab.estimator_.n_iter_
    np.testing.assert_allclose(lab.view.fig.data[0].y, lab.estimator_.coef_.ravel())
    # a cached model is a snapshot: later fits (the background's) leave it alone
    coef = lab.estimator_.coef_.copy()
    assert lab.wait_cached(_neighbour(lam, -2), T)
    np.testing.assert_array_equal(lab.estimator_.coef_, coef)
    lab.close()


def test_a_move_fits_warm_from_the_nearest_solution_in_fewer_passes():
    X, y, qid = _ranking()
    lab = SolverLab(pr.RankSVM(C=1.0, tol=1e-8), X, y, params={"C": (1e-3, 1e2)},
                    fit_params={"qid": qid}, precompute=False)
    assert lab.wait(T) and lab.error_ is None
    assert lab.last_move_["source"] == "cold"
    lab.controls["C"].value = 2.0
    assert lab.wait(T) and lab.error_ is None
    warm = lab.estimator_
    assert lab.last_move_ == {**lab.last_move_, "value": 2.0, "source": "warm", "fits": 1}
    assert warm.result_.warm_start == "used"
    assert "warm from C = 1" in lab.readout.value
    cold = pr.RankSVM(C=2.0, tol=1e-8).fit(X, y, qid=qid)
    assert warm.n_iter_ < cold.n_iter_                       # a count, not a time
    assert warm.result_.primal_objective == pytest.approx(cold.result_.primal_objective,
                                                          rel=1e-6)
    # back to the first value: the lab holds it
    lab.controls["C"].value = 1.0
    assert lab.last_move_["source"] == "cache" and lab.n_fits_ == 2


def test_the_pool_lends_the_nearest_free_head():
    made = []
    pool = WarmPool(lambda: made.append(object()) or made[-1], size=2)
    key = ("k",)
    a, start = pool.take(key, 1.0)
    assert start is None and a is made[0]                 # empty pool: a cold estimator
    pool.give(key, 1.0, a)
    b, _ = pool.take(key, 100.0, spawn_beyond=0.3)        # far, room: a second lineage
    assert b is made[1]
    pool.give(key, 100.0, b)
    got, start = pool.take(key, 50.0)
    assert got is b and start == 100.0                    # the nearest in log C
    pool.give(key, 50.0, got)
    got, start = pool.take(key, 1.2)
    assert got is a and start == 1.0
    pool.give(key, 1.2, got)
    got, start = pool.take(("other",), 1.2)               # another setting: cold
    assert start is None and len(made) == 3
    pool.give(("other",), 1.2, got)


def test_a_fit_waits_for_the_head_a_cancelled_background_fit_returns():
    pool = WarmPool(object, size=2)
    key = ("k",)
    head, _ = pool.take(key, 1.0)
    pool.give(key, 1.0, head)
    busy, _ = pool.take(key, 1.1)                         # the background's fit
    threading.Timer(0.3, pool.give, (key, 1.1, busy)).start()
    got, start = pool.take(key, 1.2, wait_s=30)           # the foreground's: warm
    assert got is head and start == 1.1


def test_precompute_is_cancelled_at_the_next_pass_and_waits_for_the_foreground():
    running, stopped, busy = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def fit_one(value, cancelled):
        seen.append(value)
        running.set()
        while not cancelled():          # a solver pass between callbacks
            time.sleep(0.01)
        stopped.set()
        return False

    pre = Precomputer(fit_one, busy.is_set)
    pre.restart([1.0, 2.0])
    assert running.wait(30)
    busy.set()                          # a foreground fit starts: the move cancels
    pre.cancel()
    assert stopped.wait(30)
    assert seen == [1.0]
    pre.restart([3.0])                  # planned while the foreground runs: waits
    time.sleep(1.0)
    assert seen == [1.0]
    busy.clear()
    deadline = time.monotonic() + 30
    while len(seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert seen == [1.0, 3.0]
    pre.close()


def test_slider_positions_are_the_sliders_own_values_nearest_first():
    got = slider_positions(1.0, -3.0, 2.0, 0.05, ring=(1, 2))
    np.testing.assert_allclose(got, [10 ** 0.05, 10 ** -0.05, 10 ** 0.1, 10 ** -0.1])
    assert slider_positions(10 ** 2, -3.0, 2.0, 0.05, ring=(1,)) == pytest.approx([10 ** 1.95])
    assert settings_key({"C": 1.0, "signs": np.ones(3)}, "C") \
        != settings_key({"C": 1.0, "signs": -np.ones(3)}, "C")
    cache = SolutionCache(max_keys=1)
    cache.put(("a",), _sol(1.0))
    cache.put(("b",), _sol(1.0))
    assert cache.get(("a",), 1.0) is None and cache.get(("b",), 1.0 + 1e-12) is not None


def _sol(value):
    from polyrank_widgets.lab_cache import Solution
    return Solution(value, None, None, 0.0)


class _Counting(pr.RankSVM):
    """RankSVM that records the X each fit reads."""

    seen: list = []

    def fit(self, X, y, qid=None, sample_weight=None, **kw):
        type(self).seen.append(X)
        return super().fit(X, y, qid=qid, sample_weight=sample_weight, **kw)


class _CountingScaler(TransformerMixin, BaseEstimator):
    """StandardScaler that counts its fits and transforms of X."""

    calls: list = []

    def fit(self, X, y=None):
        self.calls.append("fit")
        self.scaler_ = StandardScaler().fit(X)
        return self

    def transform(self, X):
        self.calls.append("transform")
        return self.scaler_.transform(X)


def test_every_refit_reads_the_x_prepared_once():
    X, y, qid = _ranking()
    frame = pd.DataFrame(X.astype(np.float32), columns=[f"f{j}" for j in range(6)])
    _Counting.seen = []
    lab = SolverLab(_Counting(), frame, y, fit_params={"qid": qid}, test=(frame, y, qid))
    assert lab.wait(T) and lab.error_ is None
    for C in (0.5, 3.0):
        lab.controls["C"].value = C
        assert lab.wait(T)
    lab._pre.cancel()
    assert lab.wait_cached(3.0, 1) and len(_Counting.seen) >= 3
    # one float64 array, converted once, read by every fit (foreground and background)
    assert all(Xs is lab._X for Xs in _Counting.seen)
    assert lab._X.dtype == np.float64 and lab._X.flags.c_contiguous
    np.testing.assert_array_equal(lab._X, frame.to_numpy(np.float64))
    lab.close()
    # a pipeline's leading steps: fitted and applied once, whatever the refits
    _CountingScaler.calls = []
    lab = SolverLab(make_pipeline(_CountingScaler(), pr.RankSVM()), X, y,
                    fit_params={"qid": qid}, test=(X, y, qid), precompute=False)
    for C in (0.5, 3.0):
        lab.controls["C"].value = C
        assert lab.wait(T) and lab.error_ is None
    assert _CountingScaler.calls == ["fit", "transform", "transform"]     # X, X_test
    assert lab.estimator_.predict(X).shape == (X.shape[0],)               # raw X in


def test_a_refit_makes_no_copy_of_x():
    """tracemalloc's peak during a warm refit of a pipeline stays below the
    size of X (main: the scaler's transform copied X on every refit)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 50)) * 3.0 + 1.0
    qid = np.repeat(np.arange(200), 100)
    y = (X[:, 0] > 1).astype(int) + (X[:, 1] > 1)
    lab = SolverLab(make_pipeline(StandardScaler(), pr.RankSVM()), X, y,
                    fit_params={"qid": qid}, precompute=False, views=False)
    assert lab.wait(T) and lab.error_ is None
    lab.controls["C"].value = 2.0                  # a first warm refit (workspaces)
    assert lab.wait(T)
    tracemalloc.start()
    try:
        lab.controls["C"].value = 4.0
        assert lab.wait(T) and lab.error_ is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert lab.last_move_["source"] == "warm"
    assert peak < X.nbytes, (peak, X.nbytes)


def test_the_stop_button_is_active_only_while_a_fit_runs():
    X, y = make_classification(3000, 20, random_state=1)
    est = pr.SignConstrainedClassifier(random_state=0, tol=1e-14, max_iter=100000, lam=1e-7)
    lab = SolverLab(est, X, y, params={"lam": (1e-8, 1e-1)}, fit=False, precompute=False)
    assert lab.stop_button.disabled                  # nothing to stop yet
    lab.refit()
    assert not lab.stop_button.disabled
    lab.stop()
    assert lab.wait(T)
    assert lab.stop_button.disabled


def test_the_path_view_follows_the_cache_and_marks_the_current_value():
    X, y = make_classification(200, 5, random_state=0)
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), X, y,
                    params={"lam": (1e-4, 1e-1)}, test=(X, y))
    assert lab.wait(T)
    lam = lab.controls["lam"]
    assert lab.wait_cached(_neighbour(lam, 2), T)
    lab.controls["lam"].value = lam.value          # redraw the view (a cache hit)
    sols = lab.cache.solutions(settings_key(lab.values(), "lam"))
    fig = lab.path_view.fig
    metric = [t for t in fig.data if t.xaxis == "x2" and not t.name.startswith("current")][0]
    cached = {round(s.value, 12): s for s in sols}
    for x, v in zip(metric.x, metric.y):
        assert v == pytest.approx(cached[round(x, 12)].score)          # accuracy
    assert len(metric.x) >= 3
    current = [t for t in fig.data if t.name.startswith("current lam")]
    assert len(current) == 2 and all(t.x[0] == pytest.approx(lam.value) for t in current)
    coef = [t for t in fig.data if t.name == "w[0, 0]"][0]
    for x, w in zip(coef.x, coef.y):
        assert w == pytest.approx(cached[round(x, 12)].estimator.coef_.ravel()[0])
    disp = lab.path()
    assert disp.Cs.size == len(sols) and disp.current == pytest.approx(lam.value)
    lab.close()


def test_canonical_x_converts_once_and_keeps_what_is_canonical():
    A = np.ones((3, 2))
    assert canonical_x(A) is A
    F = canonical_x(np.ones((3, 2), dtype=np.float32))
    assert F.dtype == np.float64
    import scipy.sparse as sp
    S = sp.csr_matrix(A)
    assert canonical_x(S) is S
    assert canonical_x(sp.csc_matrix(A)).format == "csr"
