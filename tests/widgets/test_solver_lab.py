"""SolverLab (issue 17): controls refit every estimator in a background thread,
a newer change cancels the running fit, Stop keeps a stopped fit, the readout
reports the test metric, and each paper view follows the fitted model."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import polyrank as pr
from polyrank.result import STATUS_CALLBACK
from polyrank_widgets import SolverLab
from polyrank_widgets._text import escape

T = 300      # seconds: the first fit of a solver may compile its kernels


def _ordinal(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    s = X @ np.array([1.0, 0.5]) + 0.1 * rng.normal(size=n)
    return X, np.digitize(s, [-0.7, 0.0, 0.7]) + 3        # labels 3..6


def _ranking(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 4))
    qid = np.repeat(np.arange(6), 10)
    y = np.digitize(X @ np.array([1.0, -1.0, 0.5, 0.0]), [-1.0, 1.0])
    return X, y, qid


def _cases():
    Xc, yc = make_classification(120, 5, random_state=0)
    Xm, Ym = make_multilabel_classification(80, 6, n_classes=4, random_state=0)
    Xm = Xm / Xm.std(0)
    Xo, yo = _ordinal()
    Xr, yr, qr = _ranking()
    return {
        "LabelRanker": (pr.LabelRanker(random_state=0), Xm, Ym, {"C": (1e-2, 1e1)}, {}, (Xm, Ym)),
        "M3LClassifier": (pr.M3LClassifier(random_state=0), Xm, Ym, {"C": (1e-2, 3.0)}, {},
                          (Xm, Ym)),
        "RankSVM": (pr.RankSVM(), Xr, yr, {"C": (1e-2, 1e1)}, {"qid": qr}, (Xr, yr, qr)),
        "SignConstrainedClassifier": (pr.SignConstrainedClassifier(random_state=0), Xc, yc,
                                      {"lam": (1e-4, 1e-1)}, {}, (Xc, yc)),
        "SignConstrainedRegressor": (pr.SignConstrainedRegressor(random_state=0), Xc,
                                     Xc @ np.arange(5.0), {"lam": (1e-4, 1e-1)}, {},
                                     (Xc, Xc @ np.arange(5.0))),
        "OrdinalMarginRanker": (pr.OrdinalMarginRanker(), Xo, yo, {"c": (1e-1, 1e2)}, {},
                                (Xo, yo)),
        "PRank": (pr.PRank(random_state=0), Xo, yo, {"max_iter": (1, 10)}, {}, (Xo, yo)),
    }


CASES = _cases()

#: the readout's name of each estimator's test metric (what its score computes)
METRICS = {
    "LabelRanker": "label ranking average precision (higher is better)",
    "M3LClassifier": "1 − Hamming loss (higher is better)",
    "RankSVM": "mean NDCG over queries (LETOR) (higher is better)",
    "SignConstrainedClassifier": "accuracy (higher is better)",
    "SignConstrainedRegressor": "R² (higher is better)",
    "OrdinalMarginRanker": "mean absolute error (lower is better)",
    "PRank": "mean absolute error (lower is better)",
}


def _value(est, pname):
    """The value the estimator uses for ``pname`` (None: what its fit resolves)."""
    v = est.get_params()[pname]
    return {"C": getattr(est, "C_", v), "c": getattr(est, "c_", v)}.get(pname, v) \
        if v is None else v


@pytest.mark.parametrize("name", list(CASES))
def test_every_estimator_in_a_pipeline(name):
    """make_pipeline(StandardScaler(), E()): the callback reaches E (the gap
    monitor fills), the sliders drive E's parameters and start at the value
    E uses, the data pass through the scaler (the lab's fit is the pipeline
    fitted by hand), and the readout names the test metric."""
    est, X, y, params, fit_params, test = CASES[name]
    X = X * np.linspace(1.0, 40.0, X.shape[1]) + 3.0        # raw units: the scaler matters
    test = (X, *test[1:]) if test[0] is CASES[name][1] else test
    pipe = make_pipeline(StandardScaler(), clone(est))
    lab = SolverLab(pipe, X, y, fit_params=fit_params, test=test)
    assert lab.wait(T) and lab.error_ is None, lab.error_
    fitted = lab.estimator_
    step = fitted[-1]
    assert type(step) is type(est) and fitted is not pipe and lab.n_fits_ == 1
    assert len(lab.monitor) > 0                  # the callback reached the last step
    assert getattr(lab, "view_error_", None) is None, lab.view_error_   # the paper view drew
    for pname, control in lab.controls.items():
        assert control.value == pytest.approx(_value(step, pname))
    # the same pipeline fitted by hand
    routed = {f"{fitted.steps[-1][0]}__{k}": v for k, v in fit_params.items()}
    ref = clone(pipe).fit(X, y, **routed)
    np.testing.assert_allclose(fitted.predict(X), ref.predict(X))
    Xs = ref[:-1].transform(test[0])
    assert lab.score_ == pytest.approx(ref[-1].score(Xs, *test[1:]))
    assert f"test {METRICS[name]}" in lab.readout.value
    assert lab.metric_ == METRICS[name]
    status = step.result_.status if hasattr(step, "result_") else "fitted"
    assert f">{escape(status)}</b>" in lab.readout.value
    # a control moves the last step's parameter, through the pipeline's routing
    if lab.controls:
        (pname, control), = lab.controls.items()
        control.value = 10.0 ** control.min
        assert lab.wait(T) and lab.error_ is None, lab.error_
        assert lab.estimator_[-1].get_params()[pname] == pytest.approx(10.0 ** control.min)
        assert pipe[-1].get_params()[pname] == est.get_params()[pname]    # untouched


def test_sliders_start_at_the_estimators_values():
    """The issue's ordinal c started at 3.16 (mid-range of 1e-2..1e3): now
    at the c its fit uses, and a range that does not hold it is widened."""
    X, y = _ordinal()
    lab = SolverLab(pr.OrdinalMarginRanker(), X, y, fit=False)
    assert lab.controls["c"].value == pytest.approx(pr.OrdinalMarginRanker().fit(X, y).c_)
    lab = SolverLab(pr.OrdinalMarginRanker(c=5000.0), X, y, params={"c": (1e-1, 1e2)},
                    fit=False)
    assert lab.controls["c"].value == pytest.approx(5000.0)
    assert 10.0 ** lab.controls["c"].max == pytest.approx(5000.0)
    lab = SolverLab(pr.PRank(max_iter=30), X, y, params={"max_iter": (1, 10)}, fit=False)
    assert lab.controls["max_iter"].value == 30 and lab.controls["max_iter"].max == 30


def test_readout_names_the_gap_and_a_scorer():
    est, X, y, params, fit_params, test = CASES["RankSVM"]
    lab = SolverLab(est, X, y, params=params, fit_params=fit_params, test=test)
    assert lab.wait(T)
    res = lab.estimator_.result_
    text = lab.readout.value
    # "converged" says by which rule; the gap says relative to what
    assert "stopping rule" in text and escape(res.message) in text
    assert f"{res.gap / abs(res.primal_objective):.2g} (gap / |primal objective|)" in text
    assert "relative duality gap" in text
    Xo, yo = _ordinal()
    lab = SolverLab(pr.OrdinalMarginRanker(), Xo, yo, test=(Xo, yo),
                    scoring="neg_mean_absolute_error")
    assert lab.wait(T)
    assert lab.metric_ == "neg_mean_absolute_error (higher is better)"
    assert lab.score_ == pytest.approx(lab.estimator_.score(Xo, yo))
    assert f"<b>{lab.score_:.4g}</b>" in lab.readout.value


@pytest.mark.parametrize("name", list(CASES))
def test_every_estimator_refits_when_a_control_moves(name):
    est, X, y, params, fit_params, test = CASES[name]
    lab = SolverLab(est, X, y, params=params, fit_params=fit_params, test=test,
                    precompute=False)
    assert lab.wait(T) and lab.error_ is None, lab.error_
    first = lab.estimator_
    assert first is not None and first is not est and lab.n_fits_ == 1
    assert lab.score_ == pytest.approx(first.score(*test))
    (pname, control), = lab.controls.items()
    new = 7 if pname == "max_iter" else 10.0 ** control.max    # log slider: max is log10
    control.value = new
    assert lab.wait(T) and lab.error_ is None, lab.error_
    assert lab.n_fits_ == 2 and lab.estimator_ is not first
    assert lab.estimator_.get_params()[pname] == pytest.approx(new)
    # the same fit done by hand: the lab adds the callback and, along a
    # penalty, a warm start from its first fit (issue 45: scikit-learn's
    # warm_start=True, then set_params and fit again)
    ref = clone(est)
    if lab.penalty_ is not None:
        assert lab.last_move_["source"] == "warm" and "warm from" in lab.readout.value
        ref.set_params(warm_start=True, **{pname: first.get_params()[pname]})
        ref.fit(X, y, **fit_params)
    ref = ref.set_params(**{pname: new}).fit(X, y, **fit_params)
    np.testing.assert_allclose(lab.estimator_.predict(X), ref.predict(X))
    assert lab.score_ == pytest.approx(ref.score(*test))
    assert f"test {METRICS[name]}" in lab.readout.value
    shown = -lab.score_ if "lower is better" in METRICS[name] else lab.score_
    assert f"<b>{shown:.4g}</b>" in lab.readout.value
    assert lab.metric_value_ == shown           # a loss as itself, not negated
    assert est.get_params()[pname] != new          # the user's estimator is untouched


def test_gap_monitor_shows_the_running_fit_and_restarts():
    est, X, y, params, _, test = CASES["LabelRanker"]
    lab = SolverLab(est, X, y, params=params, test=test)
    assert lab.wait(T)
    n1 = len(lab.monitor)
    assert n1 == lab.estimator_.n_iter_ and n1 > 1
    assert lab.monitor.history["gap"][-1] == pytest.approx(lab.estimator_.result_.gap)
    lab.controls["C"].value = 0.05
    assert lab.wait(T)
    # restarted: the history is the new fit's, not appended to the old one
    assert len(lab.monitor) == lab.estimator_.n_iter_
    assert lab.monitor.history["iteration"][0] == 1


def test_a_newer_change_cancels_the_running_fit():
    X, y = make_classification(3000, 20, random_state=1)
    est = pr.SignConstrainedClassifier(random_state=0, tol=1e-12, max_iter=100000)
    lab = SolverLab(est, X, y, params={"lam": (1e-6, 1e-1)}, fit=False)
    lab.controls["lam"].value = 1e-6          # slow: would run 1e5 epochs
    first = lab._thread
    lab.controls["lam"].value = 1e-1          # supersedes it
    assert lab.wait(T)
    first.join(T)
    assert not first.is_alive()
    assert lab.n_fits_ == 1 and lab.estimator_.lam == pytest.approx(1e-1)
    assert lab.estimator_.result_.status == "converged"


class _RefitWhileScored(pr.SignConstrainedClassifier):
    """Scoring the fit at lam = 1e-2 moves the lab's control to 1e-1 and
    waits for that newer fit to end, so the older fit stores its result
    last (a person moving the slider while the test score is computed)."""

    hook: dict = {}

    def score(self, X, y, sample_weight=None):
        lab = self.hook.pop("lab", None)
        if lab is not None and self.lam == pytest.approx(1e-2):
            lab.controls["lam"].value = 1e-1
            assert lab.wait(T)
        return super().score(X, y, sample_weight=sample_weight)


def test_a_fit_superseded_while_scored_keeps_out_of_the_lab():
    X, y = make_classification(200, 5, random_state=0)
    lab = SolverLab(_RefitWhileScored(random_state=0, lam=1e-2), X, y,
                    params={"lam": (1e-3, 1.0)}, test=(X, y), fit=False)
    _RefitWhileScored.hook["lab"] = lab
    lab.refit()
    first = lab._thread
    first.join(T)
    assert lab.wait(T) and not first.is_alive()
    # the newer fit's result stays: the superseded one is dropped
    assert lab.n_fits_ == 1 and lab.estimator_.lam == pytest.approx(1e-1)
    assert lab.score_ == pytest.approx(lab.estimator_.score(X, y))


def test_stop_keeps_a_stopped_fit():
    X, y = make_classification(3000, 20, random_state=1)
    est = pr.SignConstrainedClassifier(random_state=0, tol=1e-14, max_iter=100000,
                                       lam=1e-7)
    lab = SolverLab(est, X, y, params={"lam": (1e-8, 1e-1)})
    while len(lab.monitor) < 3:
        assert lab._thread.is_alive()
        lab._thread.join(0.05)
    lab.stop_button.click()
    assert lab.wait(T)
    assert lab.estimator_.result_.status == STATUS_CALLBACK
    assert "stopped by callback" in lab.readout.value


def test_sign_view_toggles_drive_signs():
    est, X, y, params, _, test = CASES["SignConstrainedClassifier"]
    lab = SolverLab(est, X, y, params=params, test=test)
    assert lab.wait(T)
    free = lab.estimator_.coef_.ravel()
    flip = int(np.argmax(free))                   # force the largest positive weight <= 0
    lab.view.toggles[flip].value = -1
    assert lab.wait(T)
    assert lab.estimator_.signs[flip] == -1
    w = lab.estimator_.coef_.ravel()
    assert w[flip] <= 1e-12 < free[flip]
    np.testing.assert_allclose(lab.view.fig.data[0].y, w)
    held = [lab.view.names.index(n) for n in lab.view.fig.data[1].x]
    assert flip in held and np.all(w[held] == 0)


def test_m3l_r_editor_refits_with_the_edited_prior():
    est, X, Y, params, _, test = CASES["M3LClassifier"]
    lab = SolverLab(est, X, Y, params=params, test=test)
    assert lab.wait(T)
    assert lab.view.R.shape == (4, 4)
    lab.view.select(1, 2)
    lab.view.r_slider.value = 0.4
    assert lab.wait(T) and lab.error_ is None
    R = np.asarray(lab.estimator_.R)
    assert R[1, 2] == R[2, 1] == pytest.approx(0.4)
    # C=None has no slider position: the slider starts mid-range, and sets C
    ref = pr.M3LClassifier(random_state=0, R=R, C=lab.estimator_.C).fit(X, Y)
    np.testing.assert_allclose(lab.estimator_.decision_function(X), ref.decision_function(X),
                               rtol=1e-6, atol=1e-8)
    assert np.asarray(lab.view.fig.data[0].z)[2][1] == pytest.approx(0.4)
    # an R that is not positive definite: the readout says so, nothing is fitted
    fitted = lab.estimator_
    lab.view.set_r(0, 1, -0.99)
    lab.view.set_r(0, 2, 0.99)
    lab.view.set_r(1, 2, 0.99)
    assert lab.wait(T)
    assert lab.error_ is not None and "R" in lab.error_
    assert "fit failed" in lab.readout.value and lab.estimator_ is fitted


def test_ordinal_view_draws_the_thresholds_curves():
    est, X, y, params, _, test = CASES["OrdinalMarginRanker"]
    lab = SolverLab(est, X, y, params=params, test=test)
    assert lab.wait(T)
    z = np.asarray(lab.view.fig.data[0].z)
    f = lab.estimator_.decision_function(np.c_[lab.view.g0[:3], np.full(3, lab.view.g1[0])])
    np.testing.assert_allclose(z[0, :3], f)
    np.testing.assert_allclose(lab.view.thresholds, lab.estimator_.thresholds_)
    # one curve per threshold, at its level
    levels = [c.contours.start for c in lab.view.fig.data[:-1]]
    np.testing.assert_allclose(levels, lab.estimator_.thresholds_)


def test_label_ranker_view_follows_the_example_and_piece():
    est, X, Y, params, _, test = CASES["LabelRanker"]
    lab = SolverLab(est, X, Y, params=params, test=test)
    assert lab.wait(T)
    i = int(np.flatnonzero(Y.sum(1) >= 2)[0])
    lab.view.example.value = i
    v = lab.view.viewer
    # the y of example i: its labels, then the threshold label at 0.5
    np.testing.assert_array_equal(v.y, np.r_[Y[i], 0.5])
    scores = lab.estimator_.decision_function(X[i:i + 1])[0]
    np.testing.assert_allclose(v.scores[:-1] - v.scores[-1], scores, atol=1e-10)
    piece = v.pieces[v.piece_index]
    assert lab.view.knots.C == pytest.approx(lab.estimator_.C * piece.sigma)


def test_ranksvm_view_is_tron():
    est, X, y, params, fit_params, test = CASES["RankSVM"]
    lab = SolverLab(est, X, y, params=params, fit_params=fit_params, test=test)
    assert lab.wait(T)
    assert len(lab.view.monitor.history["iteration"]) == lab.estimator_.n_iter_


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"params": {"nope": (1, 2)}}, ValueError, "params: 'nope'"),
    ({"params": {"lam": (0.0, 1.0)}}, ValueError, "lo > 0"),
    ({"params": {"lam": (2.0, 1.0)}}, ValueError, "lo < hi"),
    ({"params": {"lam": "big"}}, TypeError, r"params\['lam'\]"),
    ({"params": [("C", (1, 2))]}, TypeError, "params: expected a dict"),
    ({"fit_params": [1]}, TypeError, "fit_params"),
    ({"test": [1, 2]}, TypeError, "test"),
    ({"test": (1,)}, ValueError, "test"),
    ({"test": (1, 2, 3), "scoring": "accuracy"}, ValueError, "scoring"),
    ({"test": (1, 2), "scoring": "no such metric"}, ValueError, "scoring"),
    ({"scoring": 3}, TypeError, "scoring"),
])
def test_bad_arguments(kwargs, exc, match):
    X, y = make_classification(30, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(exc, match=match):
        SolverLab(pr.SignConstrainedClassifier(), X, y, fit=False, **kwargs)
    with pytest.raises(TypeError, match="estimator"):
        SolverLab(object(), X, y, fit=False)


@pytest.mark.slow
def test_snapshot_leaves_one_png_per_figure():
    """The static images a notebook keeps for readers without a kernel
    (kaleido + Chromium, both in the dev install and CI)."""
    est, X, y, params, _, test = CASES["SignConstrainedClassifier"]
    lab = SolverLab(est, X, y, params=params, test=test)
    assert lab.wait(T)
    snap = lab.snapshot()
    assert len(snap) == 3                  # gap monitor, path panel, coefficient bars
    assert all(p.startswith(b"\x89PNG\r\n\x1a\n") and len(p) > 5000 for p in snap.png)
    from IPython.core.formatters import DisplayFormatter
    from IPython.display import Image
    assert all(isinstance(Image(data=p, format="png"), Image) for p in snap.png)
    assert DisplayFormatter().format(Image(data=snap.png[0], format="png"))[0]["image/png"]
