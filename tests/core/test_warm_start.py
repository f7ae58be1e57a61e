"""``warm_start`` of every estimator (issue 45, item 1): a fit after
``set_params`` on a neighbouring penalty starts from the previous solution,
reaches the cold fit's objective to the solver's tolerance in fewer passes
(a count, never a time), and falls back to a cold start, said in
``result_.warm_start``, when the data changed."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from polyrank import LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM
from polyrank._warm import USED, fingerprint
from polyrank.sign import SignConstrainedClassifier, SignConstrainedRegressor


def _data():
    rng = np.random.default_rng(0)
    n, d = 600, 10
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    s = X @ w + 0.5 * rng.standard_normal(n)
    grades = np.digitize(s, np.quantile(s, [0.25, 0.5, 0.75]))
    Y = (X @ rng.standard_normal((d, 4)) + 0.3 * rng.standard_normal((n, 4)) > 0)
    return {"X": X, "s": s, "grades": grades, "Y": Y.astype(int), "w": w,
            "qid": np.repeat(np.arange(60), 10)}


D = _data()


def _passes(est) -> float:
    """The solver's work in its own unit, continuation stages included; a
    shrinking solver's (LabelRanker) in full passes over all its pieces
    (``result_.full_passes``: a pass over the active twentieth of the pieces
    counts a twentieth)."""
    if "full_passes" in est.result_:
        return float(est.result_.full_passes)
    return int(est.n_iter_) + int(est.result_.get("continuation_passes", 0))


#: name: (estimator, penalty parameter, value, neighbour, y key, fit params,
#: relative objective tolerance between two fits that each met the solver's rule)
CASES = {
    "ranksvm-tron": (RankSVM(), "C", 1.0, 1.25, "grades", {"qid": D["qid"]}, 1e-3),
    "ranksvm-dcd": (RankSVM(loss="l1", random_state=0), "C", 1.0, 1.25, "grades",
                    {"qid": D["qid"]}, 2e-3),
    "sign-classifier": (SignConstrainedClassifier(random_state=0), "lam", 1e-2, 8e-3, "s>0",
                        {}, 1e-5),
    "sign-regressor": (SignConstrainedRegressor(random_state=0), "lam", 1e-2, 8e-3, "s", {},
                       1e-8),
    "label-ranker": (LabelRanker(random_state=0), "C", 0.5, 0.63, "Y", {}, 2e-3),
    "m3l": (M3LClassifier(random_state=0, tol=1e-4), "C", 0.5, 0.63, "Y", {}, 1e-3),
    "m3l-rbf": (M3LClassifier(random_state=0, kernel="rbf"), "C", 0.5, 0.63, "Y", {}, 1e-4),
    "svor-tron": (OrdinalMarginRanker(c=1.0), "c", 1.0, 1.25, "grades", {}, 1e-5),
    "svor-dcd": (OrdinalMarginRanker(loss="hinge", kernel="rbf"), "c", 0.5, 0.63, "grades",
                 {}, 1e-4),
}


def _y(key):
    return D["s"] > 0 if key == "s>0" else D[key]


def _fit(est, key, fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(D["X"], _y(key), **fit_params)


@pytest.mark.parametrize("name", sorted(CASES))
def test_warm_start_after_set_params_is_used_and_reaches_the_cold_objective(name):
    est, param, c0, c1, key, fit_params, rtol = CASES[name]
    cold = _fit(clone(est).set_params(**{param: c1}), key, fit_params)
    assert cold.result_.warm_start == "cold: warm_start=False"
    warm = _fit(clone(est).set_params(**{param: c0}, warm_start=True), key, fit_params)
    assert warm.result_.warm_start == "cold: no previous fit"
    _fit(warm.set_params(**{param: c1}), key, fit_params)
    assert warm.result_.warm_start == USED
    assert warm.result_.success and cold.result_.success
    assert warm.result_.primal_objective == pytest.approx(cold.result_.primal_objective,
                                                          rel=rtol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_warm_start_on_a_neighbouring_penalty_takes_fewer_passes(name):
    est, param, c0, c1, key, fit_params, _ = CASES[name]
    cold = _fit(clone(est).set_params(**{param: c1}), key, fit_params)
    warm = _fit(clone(est).set_params(**{param: c0}, warm_start=True), key, fit_params)
    _fit(warm.set_params(**{param: c1}), key, fit_params)
    assert _passes(warm) < _passes(cold), (name, _passes(warm), _passes(cold))


@pytest.mark.parametrize("name", sorted(CASES))
def test_changed_data_falls_back_to_a_cold_start_and_says_so(name):
    est, param, c0, _, key, fit_params, _ = CASES[name]
    warm = _fit(clone(est).set_params(**{param: c0}, warm_start=True), key, fit_params)
    X2 = D["X"].copy()
    X2[0, 0] += 1.0                       # row 0 is always among the sampled rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm.fit(X2, _y(key), **fit_params)
    assert warm.result_.warm_start.startswith("cold: the data changed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm.fit(X2[:-10], _y(key)[:-10],
                 **{k: v[:-10] for k, v in fit_params.items()})
    assert "shape changed" in warm.result_.warm_start


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_cold_fit_is_the_same_with_warm_start_on_and_off(name):
    """The first fit of warm_start=True is the plain cold solve, bit for bit."""
    est, param, c0, _, key, fit_params, _ = CASES[name]
    a = _fit(clone(est).set_params(**{param: c0}), key, fit_params)
    b = _fit(clone(est).set_params(**{param: c0}, warm_start=True), key, fit_params)
    assert np.array_equal(a.result_.x, b.result_.x)
    assert a.n_iter_ == b.n_iter_


def test_a_smaller_C_keeps_the_dual_start_feasible():
    """Down the grid the multipliers are scaled by C_new / C_old: they stay in
    the smaller box, and the solve converges to the cold objective."""
    for est, param in ((LabelRanker(random_state=0), "C"),
                       (OrdinalMarginRanker(loss="hinge", kernel="rbf"), "c")):
        y = D["Y"] if param == "C" else D["grades"]
        warm = _fit(clone(est).set_params(**{param: 2.0}, warm_start=True),
                    "Y" if param == "C" else "grades", {})
        _fit(warm.set_params(**{param: 0.5}), "Y" if param == "C" else "grades", {})
        cold = clone(est).set_params(**{param: 0.5}).fit(D["X"], y)
        assert warm.result_.warm_start == USED and warm.result_.success
        assert warm.result_.primal_objective == pytest.approx(
            cold.result_.primal_objective, rel=2e-3)


def test_sc_pegasos_starts_cold_and_says_why():
    est = SignConstrainedClassifier(solver="pegasos", random_state=0, max_iter=2000,
                                    warm_start=True)
    _fit(est, "s>0", {})
    _fit(est.set_params(lam=2e-3), "s>0", {})
    assert est.result_.warm_start.startswith("cold: SC-Pegasos")


def test_sign_warm_start_survives_a_change_of_signs():
    """The SDCA dual box does not depend on the signs: a warm start after a
    change of signs is used and reaches the cold objective."""
    signs = np.sign(D["w"])
    est = SignConstrainedRegressor(random_state=0, warm_start=True)
    _fit(est, "s", {})
    _fit(est.set_params(signs=signs), "s", {})
    cold = SignConstrainedRegressor(random_state=0, signs=signs).fit(D["X"], D["s"])
    assert est.result_.warm_start == USED
    assert est.result_.primal_objective == pytest.approx(cold.result_.primal_objective,
                                                         rel=1e-8)


def test_prank_warm_start_continues_the_passes():
    """Two fits of one pass each, the second warm, are one fit of two passes."""
    X, y = D["X"], D["grades"]
    for average in (True, False):
        warm = PRank(max_iter=1, average=average, warm_start=True).fit(X, y)
        warm.fit(X, y)
        once = PRank(max_iter=2, average=average).fit(X, y)
        assert warm.result_.warm_start == USED
        assert np.allclose(warm.result_.x, once.result_.x, rtol=1e-12, atol=1e-12)
        assert np.allclose(warm.thresholds_, once.thresholds_, rtol=1e-12, atol=1e-12)


def test_paper_formulation_warm_starts_from_the_working_set():
    est = OrdinalMarginRanker(formulation="paper", c=1.0, warm_start=True)
    _fit(est, "grades", {})
    _fit(est.set_params(c=1.25), "grades", {})
    cold = OrdinalMarginRanker(formulation="paper", c=1.25).fit(D["X"], D["grades"])
    assert est.result_.warm_start == USED
    assert est.result_.primal_objective == pytest.approx(cold.result_.primal_objective,
                                                         rel=1e-5)
    assert est.n_iter_ <= cold.n_iter_


def test_fingerprint_sees_sampled_rows_targets_and_weights():
    X = D["X"]
    base = fingerprint(X, D["s"], None)
    assert fingerprint(X.copy(), D["s"].copy(), None) == base
    assert fingerprint(X, D["s"] + 1, None) != base
    assert fingerprint(X, D["s"], np.ones(len(X))) != base
    X2 = X.copy()
    X2[-1] += 1.0
    assert fingerprint(X2, D["s"], None) != base


def test_prepared_is_kept_only_while_warm_start_and_the_key_match():
    """``_warm.prepared``: built once per key with warm_start=True, never kept otherwise."""
    from polyrank._warm import fingerprint, prepared

    class Est:
        warm_start = True

    est, calls = Est(), []
    key = fingerprint(np.ones((4, 2)))

    def build():
        calls.append(1)
        return len(calls)

    assert prepared(est, key, build) == (1, False)
    assert prepared(est, key, build) == (1, True)
    assert prepared(est, key + ("other setting",), build) == (2, False)
    est.warm_start = False
    assert prepared(est, key + ("other setting",), build) == (3, False)
    est.warm_start = True
    assert prepared(est, key + ("other setting",), build) == (4, False)


def test_ranksvm_warm_fits_without_a_newton_step_are_certified():
    """A warm TRON fit may end at its (extrapolated) start point only when the
    gradient rule holds there and the duality gap certifies it within
    WARM_START_GAP * tol of the minimum; the path still moves (every
    objective within the tolerance of the cold fit's)."""
    from polyrank.ranksvm import ranksvm_path
    from polyrank.ranksvm.estimator import WARM_START_GAP

    grid = np.logspace(-1, 1, 8)
    warm = ranksvm_path(D["X"], D["grades"], qid=D["qid"], Cs=grid)
    cold = ranksvm_path(D["X"], D["grades"], qid=D["qid"], Cs=grid, warm=False)
    assert warm.warm_start[1:] == [USED] * (grid.size - 1)
    for k in np.flatnonzero(warm.n_iter == 0):
        assert warm.gaps[k] <= WARM_START_GAP * 1e-3 * warm.objectives[k]
    # never worse than the cold fit beyond the tolerance (often better: the
    # gradient rule leaves the cold fits up to 3e-3 above the minimum here)
    assert np.all(warm.objectives <= cold.objectives * (1 + 1e-3))


def test_ranksvm_extrapolates_only_when_C_goes_on_in_the_same_direction():
    from polyrank._warm import WarmState
    from polyrank.ranksvm.estimator import _extrapolated

    w1, w0 = np.array([2.0, 1.0]), np.array([1.0, 1.0])
    state = WarmState(("k",), 1.0, {"w": w1, "w_before": w0, "C_before": 0.1})
    assert np.allclose(_extrapolated(state, 10.0), [3.0, 1.0])    # one more decade
    assert _extrapolated(state, 0.5) is w1                        # turned back
    assert _extrapolated(state, 1e4) is w1                        # too far ahead
    assert _extrapolated(WarmState(("k",), 1.0, {"w": w1}), 10.0) is w1


def test_label_ranker_carries_its_shrinking_threshold_only_on_the_same_data():
    from polyrank.sopopo.estimator import WARM_SHRINK_UP

    est = LabelRanker(random_state=0, warm_start=True, C=0.5)
    _fit(est, "Y", {})
    first = est.result_
    scale = float(first.trace.to_dict()["eps_shrink"][0])       # the cold start's
    _fit(est.set_params(C=0.63), "Y", {})
    assert est.result_.warm_start == USED
    start = float(est.result_.trace.to_dict()["eps_shrink"][0])
    assert start <= min(WARM_SHRINK_UP * first.eps_shrink, scale) + 1e-15
    assert start < scale
    X2 = D["X"].copy()
    X2[0, 0] += 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X2, D["Y"])
    assert est.result_.warm_start.startswith("cold: the data changed")
    assert float(est.result_.trace.to_dict()["eps_shrink"][0]) == scale


def test_label_ranker_reuses_W_only_for_the_same_bias():
    """The explicit form's W is carried over (scaled by C_new / C_old) only
    when X's bias column is the same: after set_params(bias=...) the warm
    fit rebuilds W = X'c from its duals and reaches the cold objective."""
    from polyrank.sopopo.estimator import _warm_init

    est = _fit(LabelRanker(random_state=0, warm_start=True, C=0.5), "Y", {})
    from polyrank._warm import state_of

    state, pieces = state_of(est), est.result_.dual["pieces"]
    assert len(_warm_init(state, pieces, USED, 1.0)[0]) == 3      # W scaled along
    assert len(_warm_init(state, pieces, USED, 2.0)[0]) == 2      # rebuilt from duals
    _fit(est.set_params(C=0.63, bias=2.0), "Y", {})
    cold = _fit(LabelRanker(random_state=0, C=0.63, bias=2.0), "Y", {})
    assert est.result_.warm_start == USED and est.result_.success
    assert est.result_.primal_objective == pytest.approx(cold.result_.primal_objective,
                                                         rel=2e-3)
