"""The result/trace/callback contract of DESIGN.md."""

import numpy as np
import pytest

from polyrank.result import STATUS_CALLBACK, CallbackRunner, IterInfo, SolverResult, Trace


def test_solver_result_is_a_dict_with_attributes():
    r = SolverResult(x=np.zeros(2), gap=0.5, status="converged")
    assert r.gap == r["gap"] == 0.5
    r.nit = 3
    assert r["nit"] == 3
    with pytest.raises(AttributeError):
        _ = r.missing                             # the attribute lookup raises
    assert "gap" in repr(r)


def test_trace_columns_and_extras():
    t = Trace()
    t.append(IterInfo(1, 0.1, 3.0, 1.0, 2.0, delta=0.5))
    t.append(IterInfo(2, 0.2, 2.5, 2.0, 0.5, delta=0.25))
    assert t.columns == ["iteration", "time_s", "primal", "dual", "gap", "delta"]
    np.testing.assert_array_equal(t.gap, [2.0, 0.5])
    np.testing.assert_array_equal(t["delta"], [0.5, 0.25])
    assert t.iteration.dtype == np.int64 and len(t) == 2
    d = t.to_dict()
    d["gap"][0] = -1
    assert t.gap[0] == 2.0                       # to_dict returns copies
    with pytest.raises(ValueError, match="columns"):
        t.append(IterInfo(3, 0.3, 2.0, 2.0, 0.0))   # missing the extra


def test_callback_runner_stop_iteration_and_every():
    calls = []

    def cb(info):
        calls.append(info.iteration)
        if info.iteration == 4:
            raise StopIteration

    run = CallbackRunner(cb, callback_every=2)
    stops = [run.record(i, 2.0, 1.0, extra=i) for i in range(1, 6)]
    assert stops == [False, False, False, True, False]
    assert calls == [2, 4]
    assert len(run.trace) == 5 and run.trace.gap[0] == 1.0


def test_callback_errors_propagate_and_bad_arguments():
    def broken(info):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        CallbackRunner(broken).record(1, 1.0, 0.0)
    with pytest.raises(TypeError, match="callback"):
        CallbackRunner(42)
    with pytest.raises(ValueError, match="callback_every"):
        CallbackRunner(None, 0)
    assert STATUS_CALLBACK == "stopped by callback"


def test_trace_to_pandas():
    pd = pytest.importorskip("pandas")
    t = Trace()
    t.append(IterInfo(1, 0.1, 3.0, 1.0, 2.0, delta=0.5))
    t.append(IterInfo(2, 0.2, 2.5, 2.0, 0.5, delta=0.25))
    df = t.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.index) == [1, 2]
    assert list(df.columns) == ["time_s", "primal", "dual", "gap", "delta"]
    np.testing.assert_array_equal(df["gap"].to_numpy(), [2.0, 0.5])


def test_verbose_log_line_and_chained_callback(capsys):
    from polyrank._sklearn import log_callback

    seen = []
    cb = log_callback(seen.append, 2, "Est")
    for i in (1, 2, 3, 4):
        cb(IterInfo(i, 0.1 * i, 2.0, 1.0, 1.0, n_active=5.0))
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[2] for ln in lines] == ["2", "4"]        # every 2nd iteration
    assert lines[0].startswith("Est iter") and "n_active 5" in lines[0]
    assert [s.iteration for s in seen] == [1, 2, 3, 4]           # user callback sees all
    assert log_callback(None, 0, "Est") is None


def test_convergence_warning_points_at_the_users_line():
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from polyrank import RankSVM

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.arange(40) % 3
    for model in (RankSVM(max_iter=1), make_pipeline(StandardScaler(), RankSVM(max_iter=1))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(X, y)
        hits = [w for w in caught if w.category is ConvergenceWarning]
        assert len(hits) == 1 and hits[0].filename == __file__


def test_finish_has_one_message_per_status_and_one_meaning_of_success():
    from polyrank.result import STATUS_COMPLETED, STATUS_CONVERGED, STATUS_MESSAGES, finish

    fields = dict(solver="demo", x=np.zeros(2), dual=None, primal=2.0,
                  dual_objective=1.5, nit=3, unit="passes", rule="gap 0.5 <= 1",
                  progress="gap 0.5", limit="max_iter=3", advice="scale X")
    messages = set()
    for status in STATUS_MESSAGES:
        res = finish(CallbackRunner(None), status, **fields, extra_key=7)
        # success: the run ended as designed (its rule met, or an online
        # algorithm's fixed passes completed)
        assert res.success is (status in (STATUS_CONVERGED, STATUS_COMPLETED))
        assert res.status == status and res.gap == 0.5 and res.extra_key == 7
        assert "{" not in res.message and "3 passes" in res.message
        messages.add(res.message)
    assert len(messages) == len(STATUS_MESSAGES)           # every status says why
    with pytest.raises(ValueError, match="status"):
        finish(CallbackRunner(None), "done", **fields)
    with pytest.raises(ValueError, match="extras"):
        finish(CallbackRunner(None), STATUS_CONVERGED, **fields, success=True)
