"""Results you can look at: Display classes in the manner of scikit-learn's
:class:`sklearn.metrics.RocCurveDisplay` and
:class:`sklearn.metrics.ConfusionMatrixDisplay`, drawn with plotly.

Each class holds the computed numbers as attributes; ``from_estimator``
computes them from a fitted estimator (a polyrank estimator, or a
:class:`~sklearn.pipeline.Pipeline` whose last step is one) and data,
``from_predictions`` from the predictions themselves; both then call
``plot()``, which draws ``figure_`` (a :class:`plotly.graph_objects.Figure`)
and returns the display.  In Jupyter a display shows its figure.

- :class:`RankingDisplay`: NDCG@k and pairwise accuracy of every query
  (:class:`~polyrank.RankSVM`; ``large-scale-linear-ranksvm.txt``, Sec. 4.4).
- :class:`OrdinalDisplay`: the confusion matrix of the grades and the mean
  absolute error of each true grade (:class:`~polyrank.OrdinalMarginRanker`,
  :class:`~polyrank.PRank`; ``row-column-generation-ordinal.txt``, Table 2).
- :class:`LabelRankingDisplay`: the precision and average precision of every
  label, the label ranking loss (:class:`~polyrank.LabelRanker`,
  :class:`~polyrank.M3LClassifier`).
- :class:`GapDisplay`: the primal and dual objectives and the duality gap of
  a fitted estimator's ``result_`` (any polyrank estimator).

The metrics are those of :mod:`polyrank.metrics` and :mod:`sklearn.metrics`,
never computed here a second way.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from sklearn.metrics import (
    average_precision_score,
    confusion_matrix,
    label_ranking_average_precision_score,
    label_ranking_loss,
    mean_absolute_error,
    precision_score,
)
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted

from polyrank.metrics import ndcg_at, ndcg_per_query, pairwise_accuracy
from polyrank.result import SolverResult, Trace
from polyrank.validation import check_int

from ._estimators import last_step
from ._text import escape
from .gap import GapMonitor

__all__ = ["RankingDisplay", "OrdinalDisplay", "LabelRankingDisplay", "GapDisplay"]

_BLUE, _ORANGE, _GREY = "#1f77b4", "#e07b00", "#555"


# ---------------------------------------------------------------- shared pieces
class _Display:
    """What every display shares: the name, the figure, Jupyter's repr."""

    figure_: go.Figure

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The figure in Jupyter once plotted (else the text repr)."""
        fig = getattr(self, "figure_", None)
        if fig is None:
            return {"text/plain": repr(self)}
        return fig._repr_mimebundle_(include=include, exclude=exclude)

    def _title(self, name, text: str) -> str:
        name = self.name if name is None else name
        head = f"{escape(name)}: " if name else ""
        return head + text


def _check_name(name):
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name: expected a str or None, got {type(name).__name__}")
    return name


def _fitted_final(estimator, method: str, display: str):
    """The estimator's last step (itself, or a Pipeline's), checked fitted and
    able to ``method``; its class name is the display's default name."""
    if not hasattr(estimator, "fit"):
        raise TypeError(f"estimator: expected a fitted estimator or Pipeline, got "
                        f"{type(estimator).__name__}")
    check_is_fitted(estimator)
    final = last_step(estimator)[1]
    if not hasattr(estimator, method):
        raise TypeError(f"estimator: {display} needs an estimator with {method}(); "
                        f"{type(final).__name__} has none")
    return final


def _scores(estimator, X) -> np.ndarray:
    """decision_function(X) when the estimator has one, else predict(X)."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X))
    return np.asarray(estimator.predict(X))


def _layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    fig.update_layout(template="plotly_white", width=900, height=height,
                      title=dict(text=title, x=0.0, xanchor="left", xref="paper"),
                      margin=dict(l=70, r=20, t=90, b=60),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02,
                                  xanchor="right", x=1.0))
    return fig


def _mean_line(fig: go.Figure, value: float, text: str | None, col: int) -> None:
    """A dashed horizontal line at ``value`` in panel ``col``, labelled ``text``."""
    if np.isfinite(value):
        label = {} if text is None else dict(annotation_text=text,
                                             annotation_position="top left")
        fig.add_hline(y=value, line=dict(color=_GREY, dash="dash", width=1), row=1, col=col,
                      **label)


# ---------------------------------------------------------------- ranking
class RankingDisplay(_Display):
    """NDCG@k and pairwise accuracy of every query of a ranking.

    Use :meth:`from_estimator` or :meth:`from_predictions` to create one;
    every parameter is stored as an attribute.  Source:
    ``large-scale-linear-ranksvm.txt``, Sec. 4.4 (pairwise accuracy, Eq. 4.5
    NDCG), computed by :func:`polyrank.metrics.ndcg_per_query` and
    :func:`polyrank.metrics.pairwise_accuracy`.

    Parameters
    ----------
    query_ids : ndarray of shape (n_queries,)
        The queries, ascending.
    ndcg : ndarray of shape (n_queries,)
        NDCG@min(k, l_q) of each query, in [0, 1].
    pairwise_accuracy : ndarray of shape (n_queries,)
        Fraction of each query's preference pairs ordered correctly; NaN for a
        query with a single relevance level (no pair).
    k : int, default=10
        The NDCG cut-off.
    ndcg_at_k : float, optional
        The mean over queries of ``ndcg`` (:func:`polyrank.metrics.ndcg_at`).
    pooled_pairwise_accuracy : float, optional
        Correct pairs over all pairs of all queries (the paper's pairwise
        accuracy, dominated by the queries with many pairs).
    name : str, optional
        Shown in the title (the estimator's class name by default).

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        Two panels: each query's NDCG@k and each query's pairwise accuracy,
        queries sorted from worst to best, the mean as a dashed line.

    See Also
    --------
    polyrank.metrics.ndcg_per_query, polyrank.metrics.pairwise_accuracy

    Examples
    --------
    >>> disp = RankingDisplay.from_predictions([2, 0, 1, 1, 0], [3.0, 1.0, 2.0, 0.5, 0.7],
    ...                                        qid=[1, 1, 1, 2, 2], k=3, discount="yahoo")
    >>> disp.ndcg.round(3).tolist(), disp.pairwise_accuracy.tolist()
    ([1.0, 0.631], [1.0, 0.0])
    """

    def __init__(self, *, query_ids, ndcg, pairwise_accuracy, k=10, ndcg_at_k=None,
                 pooled_pairwise_accuracy=None, name=None):
        self.query_ids = np.asarray(query_ids)
        self.ndcg = np.asarray(ndcg, dtype=float)
        self.pairwise_accuracy = np.asarray(pairwise_accuracy, dtype=float)
        if not self.query_ids.shape == self.ndcg.shape == self.pairwise_accuracy.shape:
            raise ValueError(f"query_ids, ndcg, pairwise_accuracy: expected equal shapes, got "
                             f"{self.query_ids.shape}, {self.ndcg.shape}, "
                             f"{self.pairwise_accuracy.shape}")
        self.k = check_int(k, "k", minimum=1)
        self.ndcg_at_k = float(np.mean(self.ndcg)) if ndcg_at_k is None else float(ndcg_at_k)
        self.pooled_pairwise_accuracy = (np.nan if pooled_pairwise_accuracy is None
                                         else float(pooled_pairwise_accuracy))
        self.name = _check_name(name)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, qid=None, k=10, discount="letor",
                       ties="correct", name=None):
        """Compute and plot the per-query metrics of a fitted ranker.

        Parameters
        ----------
        estimator : estimator or sklearn.pipeline.Pipeline
            Fitted; scores from ``decision_function`` (else ``predict``):
            :class:`~polyrank.RankSVM`, or a Pipeline ending with one.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels (>= 0).
        qid : array-like of int, shape (n_samples,)
            The query of every row (required).
        k : int, default=10
            The NDCG cut-off.
        discount : {"letor", "yahoo"}, default="letor"
            See :func:`polyrank.metrics.ndcg_per_query`.
        ties : {"correct", "incorrect", "half"}, default="correct"
            See :func:`polyrank.metrics.pairwise_accuracy`.
        name : str, optional
            Default: the class name of the estimator's last step.

        Returns
        -------
        RankingDisplay

        Raises
        ------
        ValueError
            ``qid`` missing; a bad ``y``, ``qid`` or option (as the metrics);
            the estimator not fitted.
        TypeError
            ``estimator`` not an estimator.
        """
        final = _fitted_final(estimator, "predict", cls.__name__)
        if qid is None:
            raise ValueError("qid: RankingDisplay needs the query id of every row of X")
        return cls.from_predictions(y, _scores(estimator, X), qid=qid, k=k, discount=discount,
                                    ties=ties, name=type(final).__name__ if name is None else name)

    @classmethod
    def from_predictions(cls, y_true, y_score, *, qid=None, k=10, discount="letor",
                         ties="correct", name=None):
        """Compute and plot the per-query metrics of scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Relevance labels (>= 0).
        y_score : array-like of shape (n_samples,)
            Scores (larger = more relevant).
        qid : array-like of int, shape (n_samples,)
            The query of every row (required).
        k, discount, ties, name
            See :meth:`from_estimator`.

        Returns
        -------
        RankingDisplay

        Raises
        ------
        ValueError
            ``qid`` missing, lengths differ, NaN, a negative label, unknown
            options, no preference pair at all.
        TypeError
            A non-integer ``qid``.
        """
        if qid is None:
            raise ValueError("qid: RankingDisplay needs the query id of every row")
        k = check_int(k, "k", minimum=1)
        queries, ndcg = ndcg_per_query(y_true, y_score, qid, k, discount=discount)
        pooled = pairwise_accuracy(y_true, y_score, qid, ties=ties)
        y, s, q = np.asarray(y_true, float), np.asarray(y_score, float), np.asarray(qid)
        pairwise = np.full(queries.shape, np.nan)
        for i, query in enumerate(queries):
            rows = q == query
            if np.unique(y[rows]).size > 1:
                pairwise[i] = pairwise_accuracy(y[rows], s[rows], q[rows], ties=ties)
        disp = cls(query_ids=queries, ndcg=ndcg, pairwise_accuracy=pairwise, k=k,
                   ndcg_at_k=ndcg_at(y_true, y_score, qid, k, discount=discount),
                   pooled_pairwise_accuracy=pooled, name=name)
        return disp.plot()

    def plot(self, *, name=None):
        """Draw ``figure_``: each query's NDCG@k and pairwise accuracy.

        Parameters
        ----------
        name : str, optional
            Shown in the title instead of ``self.name``.

        Returns
        -------
        RankingDisplay
            ``self``.
        """
        _check_name(name)
        fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(
            f"NDCG@{self.k} per query", "pairwise accuracy per query"))
        panels = ((self.ndcg, _BLUE, f"NDCG@{self.k}", self.ndcg_at_k, "mean"),
                  (self.pairwise_accuracy, _ORANGE, "pairwise accuracy",
                   self.pooled_pairwise_accuracy, "pooled"))
        for col, (values, color, label, mean, how) in enumerate(panels, start=1):
            keep = np.isfinite(values)
            order = np.argsort(values[keep], kind="stable")
            fig.add_trace(go.Bar(
                x=np.arange(1, order.size + 1), y=values[keep][order], name=label,
                marker_color=color, customdata=self.query_ids[keep][order],
                hovertemplate=f"query %{{customdata}}<br>{label} %{{y:.4f}}<extra></extra>"),
                row=1, col=col)
            _mean_line(fig, mean, f"{how} {mean:.4f}", col)
            fig.update_xaxes(title_text=f"queries, worst to best ({order.size})", row=1, col=col)
            fig.update_yaxes(range=[0, 1.05], row=1, col=col)
        text = (f"NDCG@{self.k} {self.ndcg_at_k:.4f} (mean over {self.ndcg.size} queries), "
                f"pairwise accuracy {self.pooled_pairwise_accuracy:.4f} (pooled); "
                "higher is better")
        self.figure_ = _layout(fig, self._title(name, text))
        self.figure_.update_layout(showlegend=False, bargap=0.05)
        return self


# ---------------------------------------------------------------- ordinal
def _grade_positions(labels: np.ndarray, values, what: str) -> np.ndarray:
    """Positions 0..l of ``values`` in ``labels``; ValueError naming ``what``
    for a value that is not a grade."""
    pos = {v: i for i, v in enumerate(labels.tolist())}
    try:
        return np.array([pos[v] for v in np.asarray(values).tolist()], dtype=float)
    except KeyError as exc:
        raise ValueError(f"{what}: label {exc.args[0]!r} is not in labels "
                         f"{labels.tolist()}") from None


def _ordinal_numbers(y_true, y_pred, labels, sample_weight):
    """(labels, confusion matrix, MAE per grade, count per grade, MAE)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape:
        raise ValueError(f"y_true, y_pred: expected two 1-d arrays of one length, got "
                         f"shapes {y_true.shape} and {y_pred.shape}")
    if labels is None:
        labels = unique_labels(y_true, y_pred)
        if labels.dtype.kind not in "biuf":
            raise ValueError("labels: the grades of non-numeric labels have no order; "
                             "give them, lowest first (labels=[...])")
    labels = np.asarray(labels)
    t = _grade_positions(labels, y_true, "y_true")
    p = _grade_positions(labels, y_pred, "y_pred")
    if labels.dtype.kind in "biuf":           # numeric grades: errors in their own units
        t, p = labels[t.astype(int)].astype(float), labels[p.astype(int)].astype(float)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    cm = confusion_matrix(y_true, y_pred, labels=labels, sample_weight=w)
    truth = _grade_positions(labels, y_true, "y_true").astype(int)
    mae = np.full(labels.size, np.nan)
    for g in range(labels.size):
        rows = truth == g
        if rows.any():
            mae[g] = mean_absolute_error(t[rows], p[rows],
                                         sample_weight=None if w is None else w[rows])
    support = np.bincount(truth, minlength=labels.size)
    return labels, cm, mae, support, float(mean_absolute_error(t, p, sample_weight=w))


class OrdinalDisplay(_Display):
    """The grade confusion matrix and the mean absolute error of each true grade.

    Use :meth:`from_estimator` or :meth:`from_predictions` to create one;
    every parameter is stored as an attribute.  Source: the rank loss
    (mean absolute error of the predicted grades) of
    ``row-column-generation-ordinal.txt``, Table 2, per grade, by
    :func:`sklearn.metrics.mean_absolute_error`; the matrix by
    :func:`sklearn.metrics.confusion_matrix`.

    Parameters
    ----------
    confusion_matrix : ndarray of shape (n_classes, n_classes)
        Row: the true grade; column: the predicted grade (weighted counts).
    mae_by_grade : ndarray of shape (n_classes,)
        Mean absolute error of the examples of each true grade (NaN for a
        grade without one), in the grades' units (numeric labels) or in
        grade steps (labels given in order).
    support : ndarray of int, shape (n_classes,)
        Examples per true grade.
    display_labels : ndarray of shape (n_classes,)
        The grades, lowest first.
    mae : float
        The mean absolute error over all examples.
    name : str, optional
        Shown in the title.

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        The confusion matrix (counts as text) beside the bars of
        ``mae_by_grade`` (the overall MAE dashed).

    Examples
    --------
    >>> disp = OrdinalDisplay.from_predictions([3, 4, 5, 5], [3, 5, 5, 4])
    >>> disp.confusion_matrix.tolist(), disp.mae_by_grade.tolist(), disp.mae
    ([[1, 0, 0], [0, 0, 1], [0, 1, 1]], [0.0, 1.0, 0.5], 0.5)
    """

    def __init__(self, *, confusion_matrix, mae_by_grade, support, display_labels, mae,
                 name=None):
        self.confusion_matrix = np.asarray(confusion_matrix)
        self.mae_by_grade = np.asarray(mae_by_grade, dtype=float)
        self.support = np.asarray(support)
        self.display_labels = np.asarray(display_labels)
        n = self.display_labels.size
        if self.confusion_matrix.shape != (n, n) or self.mae_by_grade.shape != (n,) \
                or self.support.shape != (n,):
            raise ValueError(f"confusion_matrix, mae_by_grade, support: expected shapes "
                             f"({n}, {n}), ({n},), ({n},) for {n} display_labels, got "
                             f"{self.confusion_matrix.shape}, {self.mae_by_grade.shape}, "
                             f"{self.support.shape}")
        self.mae = float(mae)
        self.name = _check_name(name)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, labels=None, sample_weight=None, name=None):
        """Compute and plot from a fitted ordinal model's ``predict(X)``.

        Parameters
        ----------
        estimator : estimator or sklearn.pipeline.Pipeline
            Fitted: :class:`~polyrank.OrdinalMarginRanker`,
            :class:`~polyrank.PRank`, or a Pipeline ending with one.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The true grades.
        labels : array-like of shape (n_classes,), optional
            The grades, lowest first; default the last step's ``classes_``.
        sample_weight : array-like of shape (n_samples,), optional
        name : str, optional
            Default: the class name of the last step.

        Returns
        -------
        OrdinalDisplay

        Raises
        ------
        ValueError
            A label of ``y`` or of the predictions not in ``labels``; the
            estimator not fitted.
        TypeError
            ``estimator`` not an estimator.
        """
        final = _fitted_final(estimator, "predict", cls.__name__)
        if labels is None:
            labels = getattr(final, "classes_", None)
        return cls.from_predictions(y, estimator.predict(X), labels=labels,
                                    sample_weight=sample_weight,
                                    name=type(final).__name__ if name is None else name)

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, labels=None, sample_weight=None, name=None):
        """Compute and plot from true and predicted grades.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
        labels : array-like of shape (n_classes,), optional
            The grades, lowest first; default the sorted labels of both
            (numeric labels only: others have no order to read).
        sample_weight : array-like of shape (n_samples,), optional
        name : str, optional

        Returns
        -------
        OrdinalDisplay

        Raises
        ------
        ValueError
            Shapes differ; non-numeric labels without ``labels``; a label not
            in ``labels``.
        """
        labels, cm, mae, support, total = _ordinal_numbers(y_true, y_pred, labels,
                                                           sample_weight)
        return cls(confusion_matrix=cm, mae_by_grade=mae, support=support,
                   display_labels=labels, mae=total, name=name).plot()

    def plot(self, *, name=None):
        """Draw ``figure_``: the confusion matrix and the MAE of each grade.

        Parameters
        ----------
        name : str, optional
            Shown in the title instead of ``self.name``.

        Returns
        -------
        OrdinalDisplay
            ``self``.
        """
        _check_name(name)
        ticks = [escape(_grade_text(v)) for v in self.display_labels.tolist()]
        fig = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], horizontal_spacing=0.12,
                            subplot_titles=("confusion matrix (count)",
                                            f"MAE by true grade (dashed: all, {self.mae:.4f})"))
        cm = self.confusion_matrix
        text = [[f"{v:g}" for v in row] for row in cm.tolist()]
        fig.add_trace(go.Heatmap(
            z=cm, x=ticks, y=ticks, text=text, texttemplate="%{text}", colorscale="Blues",
            showscale=False, hovertemplate="true %{y}, predicted %{x}: %{z}<extra></extra>"),
            row=1, col=1)
        fig.update_xaxes(title_text="predicted grade", type="category", row=1, col=1)
        fig.update_yaxes(title_text="true grade", type="category", autorange="reversed",
                         row=1, col=1)
        fig.add_trace(go.Bar(
            x=ticks, y=self.mae_by_grade, marker_color=_ORANGE, customdata=self.support,
            text=[f"n={n}" for n in self.support.tolist()], textposition="outside",
            hovertemplate="true grade %{x}: MAE %{y:.4f} (%{customdata} examples)<extra></extra>"),
            row=1, col=2)
        _mean_line(fig, self.mae, None, 2)
        fig.update_xaxes(title_text="true grade", type="category", row=1, col=2)
        top = np.nanmax(self.mae_by_grade) if np.isfinite(self.mae_by_grade).any() else 1.0
        fig.update_yaxes(title_text="mean |predicted − true|", range=[0, 1.15 * top + 1e-9],
                         row=1, col=2)
        self.figure_ = _layout(fig, self._title(
            name, f"mean absolute error {self.mae:.4f} over {int(self.support.sum())} "
                  "examples; lower is better"))
        self.figure_.update_layout(showlegend=False)
        return self


def _grade_text(value) -> str:
    """A grade as a tick label: ``5.0`` (a float grade, e.g. read from a CSV) as
    ``"5"``, other floats as their shortest round-trip ``repr`` (two grades
    never share a tick), anything else as ``str``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


# ---------------------------------------------------------------- label ranking
def _label_numbers(y_true, y_score, y_pred, sample_weight):
    """(relevance, precision, average precision, support, ranking loss, LRAP)."""
    rel = np.asarray(y_true) > 0
    scores = np.asarray(y_score, dtype=float)
    if rel.ndim != 2 or scores.shape != rel.shape:
        raise ValueError(f"y_true, y_score: expected two (n_samples, n_labels) arrays of one "
                         f"shape, got {rel.shape} and {scores.shape}")
    pred = scores > 0 if y_pred is None else np.asarray(y_pred) > 0
    if pred.shape != rel.shape:
        raise ValueError(f"y_pred: expected shape {rel.shape}, got {pred.shape}")
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    precision = precision_score(rel, pred, average=None, sample_weight=w, zero_division=np.nan)
    support = rel.sum(axis=0)
    ap = np.full(rel.shape[1], np.nan)
    has = support > 0
    if has.any():
        ap[has] = average_precision_score(rel[:, has], scores[:, has], average=None,
                                          sample_weight=w)
    return (np.asarray(precision, dtype=float), ap, support,
            float(label_ranking_loss(rel, scores, sample_weight=w)),
            float(label_ranking_average_precision_score(rel, scores, sample_weight=w)))


class LabelRankingDisplay(_Display):
    """Per-label precision and average precision, and the label ranking loss,
    of a label ranker or multi-label model.

    Use :meth:`from_estimator` or :meth:`from_predictions` to create one;
    every parameter is stored as an attribute.  The metrics are scikit-learn's
    (:func:`~sklearn.metrics.precision_score` and
    :func:`~sklearn.metrics.average_precision_score` with ``average=None``,
    :func:`~sklearn.metrics.label_ranking_loss`,
    :func:`~sklearn.metrics.label_ranking_average_precision_score`), the
    field's metrics of ``sopopo-label-ranking.txt`` (Sec. 7) and
    ``m3l-multilabel-zero-shot.txt`` (Sec. 7).

    Parameters
    ----------
    precision : ndarray of shape (n_labels,)
        Of each label, the fraction of the examples predicted to have it that
        have it (NaN when none is predicted).
    average_precision : ndarray of shape (n_labels,)
        Of each label, the average precision of the examples ranked by that
        label's score (NaN for a label no example has).
    support : ndarray of int, shape (n_labels,)
        Examples that have each label.
    ranking_loss : float
        The label ranking loss (lower is better).
    label_ranking_average_precision : float
        LRAP (higher is better; :meth:`polyrank.LabelRanker.score`).
    label_names : sequence of str, optional
        Default ``0 .. n_labels - 1``.
    name : str, optional
        Shown in the title.

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        Bars of both per-label metrics, labels along x.

    Examples
    --------
    >>> disp = LabelRankingDisplay.from_predictions([[1, 0], [0, 1], [1, 1]],
    ...                                             [[1.0, -1.0], [0.5, 2.0], [1.0, -0.2]])
    >>> disp.precision.tolist(), disp.ranking_loss
    ([0.6666666666666666, 1.0], 0.0)
    """

    def __init__(self, *, precision, average_precision, support, ranking_loss,
                 label_ranking_average_precision, label_names=None, name=None):
        self.precision = np.asarray(precision, dtype=float)
        self.average_precision = np.asarray(average_precision, dtype=float)
        self.support = np.asarray(support)
        n = self.precision.size
        if self.average_precision.shape != (n,) or self.support.shape != (n,):
            raise ValueError(f"average_precision, support: expected shape ({n},) as "
                             f"precision, got {self.average_precision.shape}, "
                             f"{self.support.shape}")
        names = [str(i) for i in range(n)] if label_names is None else \
            [str(v) for v in label_names]
        if len(names) != n:
            raise ValueError(f"label_names: expected {n} names, got {len(names)}")
        self.label_names = names
        self.ranking_loss = float(ranking_loss)
        self.label_ranking_average_precision = float(label_ranking_average_precision)
        self.name = _check_name(name)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, label_names=None, sample_weight=None,
                       name=None):
        """Compute and plot from a fitted model's scores and label sets.

        Parameters
        ----------
        estimator : estimator or sklearn.pipeline.Pipeline
            Fitted on a label indicator matrix: :class:`~polyrank.LabelRanker`,
            :class:`~polyrank.M3LClassifier`, or a Pipeline ending with one;
            scores from ``decision_function``, label sets from ``predict``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels)
            The true label sets (an entry > 0 is a relevant label).
        label_names : sequence of str, optional
        sample_weight : array-like of shape (n_samples,), optional
        name : str, optional
            Default: the class name of the last step.

        Returns
        -------
        LabelRankingDisplay

        Raises
        ------
        ValueError
            The model was not fitted on label sets (class labels or target
            rankings); shapes differ; not fitted.
        TypeError
            ``estimator`` not an estimator or without ``decision_function``.
        """
        final = _fitted_final(estimator, "decision_function", cls.__name__)
        kind = getattr(final, "target_type_", "multilabel-indicator")
        if kind != "multilabel-indicator":
            raise ValueError(f"estimator: LabelRankingDisplay needs a model fitted on label "
                             f"sets (an indicator matrix y); {type(final).__name__} was "
                             f"fitted on {kind} targets")
        return cls.from_predictions(y, estimator.decision_function(X),
                                    y_pred=estimator.predict(X), label_names=label_names,
                                    sample_weight=sample_weight,
                                    name=type(final).__name__ if name is None else name)

    @classmethod
    def from_predictions(cls, y_true, y_score, *, y_pred=None, label_names=None,
                         sample_weight=None, name=None):
        """Compute and plot from true label sets and scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples, n_labels)
            An entry > 0 is a relevant label (0/1, -1/+1 or bool coding).
        y_score : array-like of shape (n_samples, n_labels)
            Scores (larger = more relevant).
        y_pred : array-like of shape (n_samples, n_labels), optional
            Predicted label sets (entry > 0: predicted); default
            ``y_score > 0``, the decision rule of LabelRanker and M3L.
        label_names, sample_weight, name
            See :meth:`from_estimator`.

        Returns
        -------
        LabelRankingDisplay

        Raises
        ------
        ValueError
            Shapes differ or are not 2-d.
        """
        precision, ap, support, loss, lrap = _label_numbers(y_true, y_score, y_pred,
                                                            sample_weight)
        return cls(precision=precision, average_precision=ap, support=support,
                   ranking_loss=loss, label_ranking_average_precision=lrap,
                   label_names=label_names, name=name).plot()

    def plot(self, *, name=None):
        """Draw ``figure_``: per-label precision and average precision.

        Parameters
        ----------
        name : str, optional
            Shown in the title instead of ``self.name``.

        Returns
        -------
        LabelRankingDisplay
            ``self``.
        """
        _check_name(name)
        names = [escape(v) for v in self.label_names]
        fig = go.Figure()
        for values, color, label in ((self.precision, _BLUE, "precision of the predicted set"),
                                     (self.average_precision, _ORANGE,
                                      "average precision of the scores")):
            fig.add_trace(go.Bar(
                x=names, y=values, name=label, marker_color=color, customdata=self.support,
                hovertemplate=f"label %{{x}}<br>{label} %{{y:.4f}}<br>"
                              "%{customdata} examples have it<extra></extra>"))
        fig.update_xaxes(title_text="label", type="category", tickangle=-45)
        fig.update_yaxes(title_text="per label (higher is better)", range=[0, 1.05])
        self.figure_ = _layout(fig, self._title(
            name, f"label ranking loss {self.ranking_loss:.4f} (lower is better), "
                  f"label ranking average precision {self.label_ranking_average_precision:.4f}"),
            height=440)
        self.figure_.update_layout(barmode="group")
        return self


# ---------------------------------------------------------------- duality gap
class GapDisplay(_Display):
    """The primal and dual objectives and the duality gap P − D of a fit,
    one point per iteration of its ``result_.trace``.

    Use :meth:`from_estimator` or :meth:`from_result` to create one; every
    parameter is stored as an attribute.  The same picture as a
    :class:`~polyrank_widgets.GapMonitor` that watched the fit (weak duality:
    the gap bounds the sub-optimality, ``sopopo-label-ranking.txt``, Sec. 4).

    Parameters
    ----------
    iteration : ndarray of int, shape (m,)
    primal, dual, gap : ndarray of shape (m,)
        The objectives and their difference after each iteration (NaN where
        a solver computes none).
    n_iter : int, optional
        The iterations the solver counts (``result_.nit``), in ``unit``; a
        solver may call back less often than it counts (SC-Pegasos: steps
        counted, one trace row per epoch).
    unit : str, default="iterations"
        What ``n_iter`` counts (``result_.unit``: passes, epochs, Newton steps).
    status : str, optional
        How the fit ended (``result_.status``).
    name : str, optional
        Shown in the title.

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        Two rows sharing x: the objectives, and the gap on a log axis (a note
        instead when the solver records neither, as PRank).

    Examples
    --------
    >>> from polyrank.result import IterInfo, Trace
    >>> t = Trace()
    >>> for i, (p, d) in enumerate([(3.0, 1.0), (2.0, 1.9)], start=1):
    ...     t.append(IterInfo(i, 0.0, p, d, p - d))
    >>> GapDisplay.from_result(SolverResult(trace=t, status="converged")).gap.tolist()
    [2.0, 0.10000000000000009]
    """

    def __init__(self, *, iteration, primal, dual, gap, n_iter=None, unit="iterations",
                 status=None, name=None):
        self.iteration = np.asarray(iteration, dtype=np.int64)
        self.primal = np.asarray(primal, dtype=float)
        self.dual = np.asarray(dual, dtype=float)
        self.gap = np.asarray(gap, dtype=float)
        m = self.iteration.shape
        if not (len(m) == 1 and self.primal.shape == self.dual.shape == self.gap.shape == m):
            raise ValueError(f"iteration, primal, dual, gap: expected four 1-d arrays of one "
                             f"length, got shapes {m}, {self.primal.shape}, "
                             f"{self.dual.shape}, {self.gap.shape}")
        self.n_iter = None if n_iter is None else int(n_iter)
        self.unit = str(unit)
        self.status = None if status is None else str(status)
        self.name = _check_name(name)

    @classmethod
    def from_estimator(cls, estimator, *, name=None):
        """The trace of a fitted estimator's ``result_`` (a Pipeline's last step's).

        Parameters
        ----------
        estimator : polyrank estimator or sklearn.pipeline.Pipeline
            Fitted, with ``result_`` (every polyrank estimator).
        name : str, optional
            Default: the class name of the last step.

        Returns
        -------
        GapDisplay

        Raises
        ------
        ValueError
            Not fitted.
        TypeError
            No ``result_`` (not a polyrank estimator).
        """
        final = _fitted_final(estimator, "fit", cls.__name__)
        res = getattr(final, "result_", None)
        if not isinstance(res, SolverResult):
            raise TypeError(f"estimator: GapDisplay needs a polyrank estimator (with a "
                            f"result_); {type(final).__name__} has none")
        return cls.from_result(res, name=type(final).__name__ if name is None else name)

    @classmethod
    def from_result(cls, result, *, name=None):
        """The trace of a :class:`~polyrank.result.SolverResult` (what every
        polyrank driver returns, and every estimator keeps as ``result_``).

        Parameters
        ----------
        result : SolverResult
        name : str, optional
            Default: the result's ``solver``.

        Returns
        -------
        GapDisplay

        Raises
        ------
        TypeError
            ``result`` is not a SolverResult with a ``trace``.
        """
        trace = result.get("trace") if isinstance(result, SolverResult) else None
        if not isinstance(trace, Trace):
            raise TypeError(f"result: expected a SolverResult with a trace, got "
                            f"{type(result).__name__}")
        name = result.get("solver") if name is None else name
        return cls(iteration=trace.iteration, primal=trace.primal, dual=trace.dual,
                   gap=trace.gap, n_iter=result.get("nit"),
                   unit=result.get("unit", "iterations"),
                   status=result.get("status"), name=name).plot()

    def plot(self, *, name=None):
        """Draw ``figure_`` (as :meth:`polyrank_widgets.GapMonitor.replay` draws it).

        Parameters
        ----------
        name : str, optional
            Shown in the title instead of ``self.name``.

        Returns
        -------
        GapDisplay
            ``self``.
        """
        _check_name(name)
        name = self.name if name is None else name
        facts = [self.status] if self.status else []
        if self.n_iter is not None:
            facts.append(f"{self.n_iter:,} {self.unit}")
        title = (f"{name}: " if name else "") + "duality gap" + \
            (f" ({'; '.join(facts)})" if facts else "")
        trace = Trace({"iteration": self.iteration, "time_s": np.full(self.gap.shape, np.nan),
                       "primal": self.primal, "dual": self.dual, "gap": self.gap})
        fig = go.Figure(GapMonitor(title=title).replay(trace).fig)
        fig.layout.xaxis2.title.text = "iteration (one row of the solver's trace)"
        fig.update_layout(width=820, height=560, autosize=False)
        if not (np.isfinite(self.primal).any() or np.isfinite(self.gap).any()):
            fig.add_annotation(text="this solver records no objective and no duality gap "
                                    "(an online algorithm: PRank)", xref="paper", yref="paper",
                               x=0.5, y=0.5, showarrow=False, font=dict(size=14, color=_GREY))
        self.figure_ = fig
        return self
