"""The hostile-input tier (issue 28, item 9): every public entry point that
takes X, on inputs a user can plausibly pass and that must end in a clear
error or a correct finite answer -- never a crash, a NaN model called
converged, or a silently repaired input.

- Malformed sparse structure (scipy does not check ``indices``/``indptr``
  at construction) could corrupt memory: those cases run in a subprocess
  per estimator and assert its exit code.
- Sparse matrices with duplicates or unsorted indices are canonical
  matrices in disguise: the same model as the dense equivalent.
- Magnitudes up to 1e308 (hypothesis): refused with the remedy, or a
  finite model.
- Sparse Y, one class, empty/degenerate queries, wrong lengths: messages
  that name the right argument.
- Ctrl-C leaves the estimator unfitted; a NaN model raises NumericalError;
  allocations beyond the available memory are refused up front.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import polyrank as pr
from polyrank import _memory, metrics
from polyrank.exceptions import NumericalError
from polyrank.validation import check_design, check_sparse_structure

pytestmark = pytest.mark.hostile

ESTIMATORS = ("LabelRanker", "M3LClassifier", "RankSVM", "SignConstrainedClassifier",
              "SignConstrainedRegressor", "OrdinalMarginRanker", "PRank")


def problem(name, n=40, d=5, seed=0):
    """(estimator, X, y, fit kwargs) of a small well-posed problem."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n)
    kw = {}
    if name in ("LabelRanker", "M3LClassifier"):
        y = (X[:, :3] + 0.3 * rng.normal(size=(n, 3)) > 0).astype(int)
    elif name == "SignConstrainedClassifier":
        y = (s > 0).astype(int)
    elif name == "SignConstrainedRegressor":
        y = s
    else:
        y = np.digitize(s, np.quantile(s, [0.25, 0.5, 0.75]))
        if name == "RankSVM":
            kw = {"qid": np.repeat(np.arange(4), n // 4)}
    est = getattr(pr, name)()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)            # two fits compared see the same order
    return est, X, y, kw


def fresh(est):
    """An unfitted copy of ``est`` with the same parameters."""
    return type(est)(**est.get_params())


def scores(model, X):
    """decision_function, or predict for a regressor."""
    f = getattr(model, "decision_function", None)
    return f(X) if f is not None else model.predict(X)


def quiet_fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **kw)


# ------------------------------------------------ malformed sparse structure

_MALFORMED = """
import json, sys, numpy as np, scipy.sparse as sp
sys.path.insert(0, {tests!r})
from test_hostile import fresh, problem, quiet_fit
name = {name!r}
est, X, y, kw = problem(name)
def cases():
    A = sp.csr_matrix(X)
    def csr(data, ind, ptr, shape=X.shape):
        return sp.csr_matrix((data, ind, ptr), shape=shape)
    big = A.indices.copy(); big[7] = 10 ** 6
    yield "column index too large", csr(A.data, big, A.indptr)
    neg = A.indices.copy(); neg[3] = -5
    yield "negative column index", csr(A.data, neg, A.indptr)
    ptr = A.indptr.copy(); ptr[5], ptr[6] = ptr[6], ptr[5]
    yield "decreasing indptr", csr(A.data, A.indices, ptr)
    M = csr(A.data, A.indices, A.indptr.copy()); M.indptr[-1] += 50   # after scipy's checks
    yield "indptr past the entries", M
    C = sp.csc_matrix(X); rows = C.indices.copy(); rows[2] = X.shape[0] + 3
    yield "csc row index too large", sp.csc_matrix((C.data, rows, C.indptr), shape=X.shape)
    Q = sp.coo_matrix(X); Q.col[0] = 99                      # after scipy's checks
    yield "coo column index too large", Q
out = []
fitted = quiet_fit(fresh(est), X, y, **kw)
for case, M in cases():
    for phase in ("fit", "predict"):
        try:
            if phase == "fit":
                quiet_fit(fresh(est), M, y, **kw)
            else:
                fitted.predict(M)
            out.append([case, phase, "no error", ""])
        except Exception as exc:
            out.append([case, phase, type(exc).__name__, str(exc)])
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ESTIMATORS)
def test_malformed_sparse_structure_is_refused_in_a_subprocess(name):
    """A CSR/CSC/COO matrix whose indices or indptr are out of range
    (scipy accepts them at construction) aborted the interpreter or was fitted
    on out-of-bounds memory; now fit and predict refuse it with a ValueError
    naming X, and the process ends normally."""
    code = _MALFORMED.format(tests=os.path.dirname(__file__), name=name)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) == 12
    for case, phase, kind, message in results:
        assert kind == "ValueError", (case, phase, kind, message)
        assert message.startswith("X: malformed sparse matrix"), (case, phase, message)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_structure_check_names_the_problem_and_does_not_modify(fmt):
    X = sp.random(20, 6, density=0.4, format="csr", random_state=0)
    X.indices[4] = 6
    M = X.asformat(fmt) if fmt == "csr" else None
    if fmt == "csc":
        C = sp.random(20, 6, density=0.4, format="csc", random_state=0)
        C.indices[4] = 20
        M = C
    elif fmt == "coo":
        Q = sp.random(20, 6, density=0.4, format="coo", random_state=0)
        Q.row[1] = -1
        M = Q
    before = {k: getattr(M, k).copy() for k in ("data", "indices", "indptr", "row", "col")
              if hasattr(M, k)}
    with pytest.raises(ValueError, match="^X: malformed sparse matrix: .* outside"):
        check_sparse_structure(M)
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(M, k), v)


def test_canonical_sparse_is_a_copy():
    """Duplicates summed and indices sorted on a copy; the caller's matrix
    keeps its (non-canonical) arrays."""
    data, ind, ptr = np.array([1.0, 2.0, 5.0]), np.array([2, 2, 0]), np.array([0, 3, 3])
    X = sp.csr_matrix((data, ind, ptr), shape=(2, 3))
    out = check_design(X)
    np.testing.assert_array_equal(out.toarray(), [[5.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    assert out.has_canonical_format and out is not X
    np.testing.assert_array_equal(X.indices, [2, 2, 0])
    np.testing.assert_array_equal(X.data, [1.0, 2.0, 5.0])


def _duplicated(X):
    """X as a CSR matrix whose every non-zero is stored twice (halves), in
    reversed order inside each row: duplicates and unsorted indices."""
    A = sp.csr_matrix(X)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    r = np.concatenate([rows, rows])[::-1]
    c = np.concatenate([A.indices, A.indices])[::-1]
    v = np.concatenate([0.5 * A.data, 0.5 * A.data])[::-1]
    order = np.argsort(r, kind="stable")
    r, c, v = r[order], c[order], v[order]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=A.shape[0]))])
    M = sp.csr_matrix((v, c, ptr), shape=A.shape)
    assert not M.has_canonical_format
    return M


@pytest.mark.parametrize("name", ESTIMATORS)
def test_duplicates_and_unsorted_indices_give_the_dense_model(name):
    est, X, y, kw = problem(name)
    M = _duplicated(X)
    dense = quiet_fit(fresh(est), X, y, **kw)
    sparse = quiet_fit(fresh(est), M, y, **kw)
    np.testing.assert_allclose(scores(sparse, M), scores(dense, X), rtol=1e-7, atol=1e-9)
    assert not M.has_canonical_format           # the user's matrix was not touched


# ------------------------------------------------ magnitudes and non-finite

@pytest.mark.slow
@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(exponent=st.integers(-300, 308), sparse=st.booleans(),
       dtype=st.sampled_from([np.float64, np.float32]), where=st.integers(0, 39))
def test_magnitudes_give_a_clear_error_or_a_finite_model(name, exponent, sparse, dtype,
                                                          where):
    """One entry (or every entry) scaled to 10^exponent: a ValueError that
    says to scale X, or a finite model whose status is not converged on NaN."""
    est, X, y, kw = problem(name)
    X = X.copy()
    if where % 2:
        X[where, where % X.shape[1]] *= 10.0 ** exponent
    else:
        X *= 10.0 ** exponent
    if dtype is np.float32:
        with np.errstate(over="ignore"):
            X32 = X.astype(np.float32)
        if np.isfinite(X32).all():          # (float32 overflow is not this test's subject)
            X = X32
    Xin = sp.csr_matrix(X) if sparse else X
    try:
        model = quiet_fit(est, Xin, y, **kw)
    except ValueError as exc:            # a clear error that says what to do
        msg = str(exc)
        assert any(w in msg for w in ("scale X", "standardi", "StandardScaler",
                                      "Input X contains infinity")), msg
        return
    assert np.all(np.isfinite(scores(model, Xin)))
    res = getattr(model, "result_", None)
    if res is not None:
        assert res.status != "converged" or np.isfinite(res.primal_objective) or \
            np.isnan(res.primal_objective) and name == "PRank"


@pytest.mark.slow
@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("scale", [1e30, 1e100, 1e150])
def test_one_huge_column_ends_promptly(name, scale):
    """One column scaled far beyond the others (within the gate's bound):
    a clear error or a finite model, in a bounded number of steps (TRON
    looped forever on a NaN predicted reduction at 1e100)."""
    est, X, y, kw = problem(name)
    X = X.copy()
    X[:, 0] *= scale
    try:
        model = quiet_fit(est, X, y, **kw)
    except ValueError as exc:
        assert any(w in str(exc) for w in ("scale", "standardi", "StandardScaler")), str(exc)
        return
    assert np.all(np.isfinite(scores(model, X)))


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("value", [1e308, 1e200, -1e160, np.inf, np.nan])
def test_huge_and_non_finite_entries_are_refused_up_front(name, value):
    est, X, y, kw = problem(name)
    X = X.copy()
    X[3, 1] = value
    for Xin in (X, sp.csr_matrix(X)):
        # scikit-learn's own message for NaN/inf ("Input X contains NaN"), ours beyond
        with pytest.raises(ValueError, match=r"^(X: entry .* too large.*scale X|Input X "
                                             r"contains (NaN|infinity))"):
            est.fit(Xin, y, **kw)
    fitted = quiet_fit(problem(name)[0], *problem(name)[1:3], **kw)
    with pytest.raises(ValueError, match="^(X: |Input X)"):
        fitted.predict(X)


def test_softmax_with_huge_features_is_refused_not_zero_division():
    est, X, y, kw = problem("SignConstrainedClassifier")
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    with pytest.raises(ValueError, match="too large"):
        pr.SignConstrainedClassifier(loss="softmax").fit(X * 1e200, y3)


def test_soft_project_huge_instance_is_refused():
    U = np.arange(6.0)[:, None]
    with pytest.raises(ValueError, match=r"^x: entry 1e\+200 .* too large"):
        pr.soft_project([1e200], np.arange(1.0, 7.0), U, [3, 4, 5], [0, 1, 2], C=10.0)


# ------------------------------------------------ targets and messages

@pytest.mark.parametrize("name", ["LabelRanker", "M3LClassifier"])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_Y_gives_the_dense_result(name, fmt):
    est, X, Y, _ = problem(name)
    dense = quiet_fit(fresh(est), X, Y)
    sparse = quiet_fit(fresh(est), X, sp.csr_matrix(Y).asformat(fmt))
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(X), dense.predict(X))
    assert sparse.score(X, sp.csr_matrix(Y).asformat(fmt)) == dense.score(X, Y)


def test_malformed_sparse_Y_is_refused_naming_y():
    _, X, Y, _ = problem("M3LClassifier")
    S = sp.csr_matrix(Y)
    S.indices[0] = 50
    with pytest.raises(ValueError, match="^y: malformed sparse matrix"):
        pr.M3LClassifier().fit(X, S)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_messages_name_the_right_argument(name):
    est, X, y, kw = problem(name)
    n = X.shape[0]
    with pytest.raises(ValueError, match=r"(?i)^(X|y|Found input variables).*"
                                         r"(inconsistent|expected|length)"):
        est.fit(X, y[:-3] if np.ndim(y) == 1 else y[:-3], **kw)
    if "sample_weight" in est.fit.__code__.co_varnames:
        for bad in (np.ones(n - 2), -np.ones(n), np.ones((n, 2)), np.full(n, np.nan)):
            with pytest.raises(ValueError, match="^sample_weight: "):
                est.fit(X, y, sample_weight=bad, **kw)
    if name == "RankSVM":
        with pytest.raises(ValueError, match=r"^qid: expected length 40 \(one per row of X\)"):
            est.fit(X, y, qid=np.zeros(n - 1))
    with pytest.raises(TypeError, match="X"):
        est.fit(np.array([["a"] * X.shape[1]] * n), y, **kw)


def test_tron_start_is_named_w0():
    from polyrank.ranksvm import ranksvm_tron

    _, X, y, kw = problem("RankSVM")
    with pytest.raises(ValueError, match=r"^w0: expected shape \(5\)"):
        ranksvm_tron(X, y, kw["qid"], w0=np.ones(2))


def test_metrics_name_their_arguments():
    y = np.array([2, 1, 0, 1.0])
    s = np.array([0.3, 0.2, 0.1, 0.0])
    with pytest.raises(ValueError, match=r"^qid: expected length 4 \(one per entry of y_score\)"):
        metrics.mean_ndcg(y, s, [1, 1, 2])
    with pytest.raises(ValueError, match="^y_true: expected length 4"):
        metrics.pairwise_accuracy(y[:3], s, [1, 1, 2, 2])
    with pytest.raises(ValueError, match="^y_score: contains NaN"):
        metrics.mean_ndcg(y, [np.nan, 0, 0, 0], [1, 1, 2, 2])


@pytest.mark.parametrize("name", ["LabelRanker", "M3LClassifier", "SignConstrainedClassifier",
                                  "OrdinalMarginRanker", "PRank"])
def test_one_class_is_refused(name):
    est, X, y, kw = problem(name)
    y1 = np.zeros(X.shape[0], dtype=int)
    with pytest.raises(ValueError, match="(?i)class|label|grade|preference|constant"):
        est.fit(X, y1, **kw)


def test_ranksvm_without_any_preference_pair_is_refused():
    _, X, y, kw = problem("RankSVM")
    with pytest.raises(ValueError, match="no preference pairs"):
        pr.RankSVM().fit(X, np.arange(X.shape[0]) % 2, qid=np.arange(X.shape[0]))


# ------------------------------------------------ endings: interrupt, NaN model, memory

class _Interrupt:
    """A callback that raises KeyboardInterrupt at its first call (as Ctrl-C
    would between two passes)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, info):
        self.calls += 1
        raise KeyboardInterrupt


@pytest.mark.parametrize("name", ESTIMATORS)
def test_interrupted_refit_leaves_the_estimator_unfitted(name):
    est, X, y, kw = problem(name)
    est.set_params(**({"tol": 1e-12} if "tol" in est.get_params() else {}),
                   **({"max_iter": 50} if name == "PRank" else {}))
    quiet_fit(est, X, y, **kw)
    check_is_fitted(est)
    stop = _Interrupt()
    with pytest.raises(KeyboardInterrupt), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, callback=stop, **kw)
    assert stop.calls == 1
    with pytest.raises(NotFittedError):
        est.predict(X)
    assert not [k for k in vars(est) if k.endswith("_") and not k.endswith("__")]


_SIGINT = """
import signal, sys, time, numpy as np
# what a terminal gives: Ctrl-C raises KeyboardInterrupt (a process started in
# the background by a shell without job control inherits SIGINT ignored, and
# Python then keeps ignoring it)
signal.signal(signal.SIGINT, signal.default_int_handler)
from polyrank import LabelRanker
rng = np.random.default_rng(0)
X = rng.normal(size=(3000, 50)); Y = (X[:, :20] + rng.normal(size=(3000, 20)) > 0).astype(int)
est = LabelRanker(tol=1e-14, max_iter=100000, shrinking=False)
said = []
def running(info):
    # the first iteration: the kernels are loaded or compiled (an interrupt
    # during numba's compile is numba's, not the fit's: a RuntimeError)
    if not said:
        said.append(1)
        print("running", flush=True)
print("start", flush=True)
try:
    est.fit(X, Y, callback=running)
except KeyboardInterrupt:
    print("interrupted", hasattr(est, "coef_"), time.perf_counter(), flush=True)
"""


@pytest.mark.slow
def test_ctrl_c_stops_a_long_fit_promptly():
    proc = subprocess.Popen([sys.executable, "-c", _SIGINT], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "start"
    assert proc.stdout.readline().strip() == "running"
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    word, fitted, _ = out.split()
    assert word == "interrupted" and fitted == "False"
    assert time.perf_counter() - sent < 60          # a pass, not the whole solve


def test_nan_model_raises_numerical_error_and_leaves_unfitted(monkeypatch):
    """A driver whose model holds NaN (what an overflow mid-run gives) is
    never 'converged': the fit raises NumericalError and keeps nothing."""
    from polyrank.sign import estimator as sign_estimator

    real = sign_estimator.sc_sdca_trusted

    def poisoned(*args, **kwargs):
        res = real(*args, **kwargs)
        res.x.flat[0] = np.nan
        res.status = "numerical failure"
        return res

    est, X, y, _ = problem("SignConstrainedClassifier")
    quiet_fit(est, X, y)
    monkeypatch.setattr(sign_estimator, "sc_sdca_trusted", poisoned)
    with pytest.raises(NumericalError, match="NaN or infinity") as info:
        est.fit(X, y)
    assert info.value.result.status == "numerical failure"
    with pytest.raises(NotFittedError):
        est.predict(X)


def test_finish_never_calls_a_nan_model_converged():
    from polyrank.result import CallbackRunner, finish

    res = finish(CallbackRunner(None), "converged", solver="demo", x=np.array([1.0, np.nan]),
                 dual=None, primal=1.0, dual_objective=1.0, nit=1, unit="passes", rule="r",
                 progress="p", limit="l")
    assert res.status == "numerical failure" and not res.success


def test_allocations_beyond_the_available_memory_are_refused(monkeypatch):
    monkeypatch.setattr(_memory, "available_bytes", lambda: 10 * 2 ** 20)     # 10 MB
    rng = np.random.default_rng(0)
    Y = rng.random((400, 300))                           # 300 ranked labels: 44,850 pairs
    X = rng.normal(size=(400, 3))
    with pytest.raises(MemoryError, match=r"decomposition='all_pairs' of 400 rows x 300 "
                                          r"labels .* needs [0-9.]+ GB, more than the 10.0 MB "
                                          r"available; use decomposition="):
        pr.LabelRanker().fit(X, Y)
    Xk = rng.normal(size=(2000, 3))
    Yk = (Xk[:, :2] > 0).astype(int)
    with pytest.raises(MemoryError, match=r"2,000 x 2,000 .* needs .* kernel='linear'"):
        pr.M3LClassifier(kernel="rbf", cache_mb=10_000).fit(Xk, Yk)
    with pytest.raises(MemoryError, match="kernel matrix"):
        pr.LabelRanker(kernel="rbf").fit(Xk, Yk)


def test_verbose_shows_progress_of_the_gram_matrix(capfd):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    Y = (X[:, :2] > 0).astype(int)
    quiet_fit(pr.M3LClassifier(kernel="rbf", verbose=1, max_iter=2), X, Y)
    assert "M3L Gram matrix (300 x 300)" in capfd.readouterr().err


def test_tron_reports_no_gap_where_the_dual_means_nothing():
    """At C = 1e12 the dual at alpha(w) was a meaningless -8e25 (gap 3e23 on
    MQ2008); it is NaN now, while a well-posed C still gives a small gap."""
    from conftest import ranksvm_problem

    X, y, qid = ranksvm_problem(3, l=200)
    big = pr.RankSVM(C=1e12).fit(X, y, qid=qid).result_
    assert np.isnan(big.gap) and np.isnan(big.dual_objective)
    small = pr.RankSVM(C=1.0, tol=1e-8).fit(X, y, qid=qid).result_
    assert 0 <= small.gap <= 1e-6 * small.primal_objective
