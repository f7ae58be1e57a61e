"""Every estimator's fit on bundled real data, its peer beside it, and its quality.

One class per estimator and data set.  Each has

- ``time_fit`` / ``peakmem_fit``: the polyrank estimator with its defaults (a fixed
  ``random_state``) after the preprocessing its docstring recommends;
- ``time_fit_peer`` / ``peakmem_fit_peer``: the peer a user would pick (liblinear
  through scikit-learn's LinearSVC, libsvm's SVC, Ridge, mord), so that the ratio is
  visible in the same run, not only an absolute time; LinearSVC with a fixed
  ``random_state`` as ours, so that every tracked metric is deterministic;
- ``track_test_error`` / ``track_test_error_peer``: the test metric (a loss or an
  error rate: lower is better, as asv assumes), computed once per environment in
  ``setup_cache``; ``track_iterations`` and ``track_relative_gap`` of polyrank's fit.

A changed default shows here as a changed time or metric: it must be explained in the
CHANGELOG.  ``setup_cache`` first compiles the package's kernels into the numba cache
(``polyrank.<paper>._warmup()``), so that the timings never include compilation
(``benchmarks.startup`` times that).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import nnls
from sklearn.linear_model import Ridge
from sklearn.metrics import hamming_loss, label_ranking_loss, mean_absolute_error
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from . import common
from .common import Split, final_estimator, finite_or_skip, relative_gap, warm


class _Fit:
    """The benchmarks of one estimator on one data set (see the module docstring).

    A subclass sets ``package`` (the polyrank subpackage that fits), ``unit`` (its
    test metric), ``data`` and ``ours``/``peer``/``error``, and defines its own
    ``setup_cache`` (asv keys the cache by the function's source line, so an inherited
    one would be shared by every subclass).
    """

    package = "sopopo"
    unit = "test error"
    timeout = 900
    number = 1
    repeat = (1, 5, 20.0)
    warmup_time = 0.1        # one untimed call first: the kernels load from the cache

    def data(self) -> Split:
        raise NotImplementedError

    def ours(self):
        raise NotImplementedError

    def peer(self):
        raise NotImplementedError

    def error(self, model, d: Split) -> float:
        raise NotImplementedError

    def fit_ours(self, d: Split):
        return self.ours().fit(d.X, d.y, **d.fit_params)

    def fit_peer(self, d: Split):
        return self.peer().fit(d.X, d.y)

    def _cache(self) -> dict:
        warm(self.package)
        d = self.data()
        ours, peer = self.fit_ours(d), self.fit_peer(d)
        est = final_estimator(ours)
        return {"error": self.error(ours, d), "error_peer": self.error(peer, d),
                "nit": getattr(getattr(est, "result_", None), "nit", None),
                "gap": relative_gap(est), **self.extra(ours, peer, d)}

    def extra(self, ours, peer, d: Split) -> dict:
        """More numbers for ``setup_cache`` (a subclass's own ``track_``)."""
        return {}

    def setup(self, cache):
        self.d = self.data()

    def time_fit(self, cache):
        self.fit_ours(self.d)

    def time_fit_peer(self, cache):
        self.fit_peer(self.d)

    def peakmem_fit(self, cache):
        self.fit_ours(self.d)

    def peakmem_fit_peer(self, cache):
        self.fit_peer(self.d)

    def track_test_error(self, cache):
        return cache["error"]

    def track_test_error_peer(self, cache):
        return cache["error_peer"]

    def track_iterations(self, cache):
        return finite_or_skip(cache["nit"])

    track_iterations.unit = "iterations"   # type: ignore[attr-defined]

    def track_relative_gap(self, cache):
        return finite_or_skip(cache["gap"])

    track_relative_gap.unit = "gap / primal"   # type: ignore[attr-defined]


# ---------------------------------------------------------------- label ranking, multi-label

class LabelRankerYeast(_Fit):
    """``make_pipeline(StandardScaler(), LabelRanker())`` on yeast vs one-vs-rest
    LinearSVC (liblinear); test label ranking loss."""

    package = "sopopo"
    unit = "label ranking loss"

    def setup_cache(self):
        return self._cache()

    def data(self):
        return common.yeast()

    def ours(self):
        from polyrank import LabelRanker

        return make_pipeline(StandardScaler(), LabelRanker(random_state=0))

    def peer(self):
        return make_pipeline(StandardScaler(), OneVsRestClassifier(LinearSVC(random_state=0)))

    def error(self, model, d):
        return float(label_ranking_loss(d.y_test, model.decision_function(d.X_test)))


class M3LLinearYeast(_Fit):
    """``make_pipeline(StandardScaler(), M3LClassifier())`` on yeast vs one-vs-rest
    LinearSVC (liblinear); test Hamming loss."""

    package = "m3l"
    unit = "Hamming loss"

    def setup_cache(self):
        return self._cache()

    def data(self):
        return common.yeast()

    def ours(self):
        from polyrank import M3LClassifier

        return make_pipeline(StandardScaler(), M3LClassifier(random_state=0))

    def peer(self):
        return make_pipeline(StandardScaler(), OneVsRestClassifier(LinearSVC(random_state=0)))

    def error(self, model, d):
        return float(hamming_loss(d.y_test, model.predict(d.X_test)))


class M3LRbfYeast(M3LLinearYeast):
    """``M3LClassifier(kernel="rbf")`` after a StandardScaler on yeast vs one-vs-rest
    SVC (libsvm) with the same kernel width (``gamma="auto"`` = 1 / n_features, M3L's
    default); test Hamming loss."""

    def setup_cache(self):
        return self._cache()

    def ours(self):
        from polyrank import M3LClassifier

        return make_pipeline(StandardScaler(), M3LClassifier(kernel="rbf", random_state=0))

    def peer(self):
        return make_pipeline(StandardScaler(), OneVsRestClassifier(SVC(gamma="auto")))


# ---------------------------------------------------------------- sign constraints

class SignClassifierPhishing(_Fit):
    """``SignConstrainedClassifier()`` after ``StandardScaler(with_mean=False)`` on
    phishing (sparse) vs LinearSVC (liblinear); test error rate."""

    package = "sign"
    unit = "error rate"

    def setup_cache(self):
        return self._cache()

    def data(self):
        return common.phishing()

    def ours(self):
        from polyrank import SignConstrainedClassifier

        return make_pipeline(StandardScaler(with_mean=False),
                             SignConstrainedClassifier(random_state=0))

    def peer(self):
        return make_pipeline(StandardScaler(with_mean=False), LinearSVC(random_state=0))

    def error(self, model, d):
        return 1.0 - float(model.score(d.X_test, d.y_test))


def _wine_regression() -> Split:
    """Red wine standardised (on the training rows), quality centred: the problem on
    which non-negative SC-SDCA without bias equals ``Ridge(positive=True)``."""
    d = common.wine()
    scaler = StandardScaler().fit(d.X)
    mean = float(np.mean(d.y))
    return Split(scaler.transform(d.X), d.y - mean, scaler.transform(d.X_test),
                 d.y_test - mean)


class SignRegressorWine(_Fit):
    """``SignConstrainedRegressor(signs=+1, bias=0)`` (square loss, lam = 1e-3) on
    standardised red wine vs ``Ridge(alpha=lam n, positive=True)``, the same problem;
    test mean squared error, the largest coefficient difference to Ridge's, and each
    one's largest coefficient error against the exact solution (``scipy.optimize.nnls``
    on the stacked system [X; sqrt(lam n) I] w = [y; 0]): Ridge's L-BFGS-B stops
    about 1e-3 away from it, so the difference to Ridge measures Ridge more than us."""

    package = "sign"
    unit = "mean squared error"

    def setup_cache(self):
        return self._cache()

    def data(self):
        return _wine_regression()

    def ours(self):
        from polyrank import SignConstrainedRegressor

        return SignConstrainedRegressor(signs=np.ones(11), bias=0.0, random_state=0)

    def peer(self):
        return Ridge(alpha=1e-3 * len(self.data().y), positive=True, fit_intercept=False)

    def error(self, model, d):
        return float(np.mean((model.predict(d.X_test) - d.y_test) ** 2))

    def extra(self, ours, peer, d):
        n, p = d.X.shape
        exact, _ = nnls(np.vstack([d.X, np.sqrt(1e-3 * n) * np.eye(p)]),
                        np.concatenate([d.y, np.zeros(p)]), maxiter=100 * p)
        return {"coef_diff": float(np.max(np.abs(np.ravel(ours.coef_) - peer.coef_))),
                "coef_error": float(np.max(np.abs(np.ravel(ours.coef_) - exact))),
                "coef_error_peer": float(np.max(np.abs(peer.coef_ - exact)))}

    def track_coef_diff_peer(self, cache):
        return cache["coef_diff"]

    track_coef_diff_peer.unit = "max |w - w_Ridge|"   # type: ignore[attr-defined]

    def track_coef_error(self, cache):
        return cache["coef_error"]

    track_coef_error.unit = "max |w - w_exact|"   # type: ignore[attr-defined]

    def track_coef_error_peer(self, cache):
        return cache["coef_error_peer"]

    track_coef_error_peer.unit = "max |w_Ridge - w_exact|"   # type: ignore[attr-defined]


# ---------------------------------------------------------------- RankSVM

class RankSVML2MQ2008(_Fit):
    """``RankSVM()`` (L2 loss, Tree-TRON) on MQ2008 vs LinearSVC (liblinear,
    squared hinge, no intercept) on the 52,325 pair differences, the same problem;
    test 1 - mean NDCG."""

    package = "ranksvm"
    unit = "1 - mean NDCG"
    loss = "l2"

    def setup_cache(self):
        return self._cache()

    def data(self):
        return common.mq2008()

    def ours(self):
        from polyrank import RankSVM

        return RankSVM(loss=self.loss, random_state=0)

    def peer(self):
        return LinearSVC(loss="squared_hinge" if self.loss == "l2" else "hinge",
                         fit_intercept=False, random_state=0)

    def fit_peer(self, d):
        P, s = common.mq2008_pairs()
        return self.peer().fit(P, s)

    def error(self, model, d):
        from polyrank.metrics import mean_ndcg

        return 1.0 - float(mean_ndcg(d.y_test, model.decision_function(d.X_test), d.qid_test))


class RankSVML1MQ2008(RankSVML2MQ2008):
    """``RankSVM(loss="l1")`` (dual coordinate descent) on MQ2008 vs LinearSVC (hinge)
    on the pair differences; test 1 - mean NDCG."""

    loss = "l1"

    def setup_cache(self):
        return self._cache()


class RankSVML1Convergence:
    """``RankSVM(loss="l1", C=C, random_state=0)`` on MQ2008 with the default
    ``max_iter``, at C = 2^8 (the paper's Table 3 choice for MQ2008) and 2^10 (the
    top of its grid, Sec. 4), where a fit stopped at the cap before the polish
    (issue 42): the passes of the last stage (1,000 = the cap) and the relative
    gap.  Tracked only (a fit takes 1-3 s now; up to a minute at the cap before)."""

    params = [8, 10]
    param_names = ["log2_C"]
    timeout = 900

    def setup_cache(self):
        from polyrank import RankSVM

        warm("ranksvm")
        d = common.mq2008()
        out = {}
        for log2_c in self.params:
            est = RankSVM(loss="l1", C=2.0 ** log2_c, random_state=0).fit(
                d.X, d.y, **d.fit_params)
            out[log2_c] = {"nit": est.result_.nit, "gap": relative_gap(est)}
        return out

    def track_iterations(self, cache, log2_c):
        return finite_or_skip(cache[log2_c]["nit"])

    track_iterations.unit = "iterations"   # type: ignore[attr-defined]

    def track_relative_gap(self, cache, log2_c):
        return finite_or_skip(cache[log2_c]["gap"])

    track_relative_gap.unit = "gap / primal"   # type: ignore[attr-defined]


# ---------------------------------------------------------------- ordinal

class OrdinalMarginRankerWine(_Fit):
    """``make_pipeline(StandardScaler(), OrdinalMarginRanker())`` on red wine vs mord's
    ``LogisticAT()`` in the same pipeline; test mean absolute error (grades)."""

    package = "ordinal"
    unit = "MAE"

    def setup_cache(self):
        return self._cache()

    def data(self):
        return common.wine()

    def ours(self):
        from polyrank import OrdinalMarginRanker

        return make_pipeline(StandardScaler(), OrdinalMarginRanker())

    def peer(self):
        import mord

        return make_pipeline(StandardScaler(), mord.LogisticAT())

    def error(self, model, d):
        return float(mean_absolute_error(d.y_test, model.predict(d.X_test)))


class PRankWine(OrdinalMarginRankerWine):
    """``make_pipeline(StandardScaler(), PRank())`` on red wine vs mord's
    ``LogisticAT()``; test mean absolute error (grades)."""

    def setup_cache(self):
        return self._cache()

    def ours(self):
        from polyrank import PRank

        return make_pipeline(StandardScaler(), PRank(random_state=0))
