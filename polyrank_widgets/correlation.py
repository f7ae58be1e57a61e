"""CorrelationSlider: the R-matrix slider of the M3L zero-shot experiment.

Paper file ``m3l-multilabel-zero-shot.txt``, Sec. 7.2.1, Fig. 5: two labels,
R = [[1, r], [r, 1]] plugged into M3L (Eq. 11-14), and the test Hamming
loss as r varies from -1 to +1. Moving the slider refits M3L at r
(warm-started from the previous solution) and marks the test Hamming loss
at r over the precomputed curve, with the correlations of the two labels
on the training and test sets printed beside it.

The model (:class:`CorrelationSlider` state: r, the fitted
:class:`polyrank.M3LClassifier`, the loss) is separate from the view
(a plotly ``FigureWidget``, an ipywidgets ``FloatSlider`` and an ``HTML``
readout) which only shows it.
"""

from __future__ import annotations

import traceback

import ipywidgets as ipw
import numpy as np
import plotly.graph_objects as go

from polyrank import M3LClassifier
from polyrank.m3l import fig5_curve, fig5_setup, two_label_prior
from polyrank.validation import as_float_array

from ._display import WidgetDisplay
from ._layout import fluid, wrap_row
from ._plotly import FigureWidget
from ._text import escape, failure_html

__all__ = ["CorrelationSlider"]

_COLORS = {"curve": "#1f77b4", "current": "#d62728", "zero": "#888888"}


def _corr(Y2) -> float:
    Y2 = np.asarray(Y2, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.corrcoef(Y2[:, 0], Y2[:, 1])[0, 1]
    return float(c)


def _check_data(X, Y, X_test, Y_test) -> tuple:
    """X, Y, X_test, Y_test checked (ValueError / TypeError naming the
    argument): real finite X of matching widths, label matrices of their
    rows with entries 0/1 or -1/+1."""
    X = as_float_array(X, "X", ndim=2)
    X_test = as_float_array(X_test, "X_test", ndim=2, shape=(None, X.shape[1]))
    # checked as floats, kept in their own dtype (the model predicts in it)
    Yf = as_float_array(Y, "Y", ndim=2)
    Yf_test = as_float_array(Y_test, "Y_test", ndim=2)
    Y, Y_test = np.asarray(Y), np.asarray(Y_test)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"Y: expected shape ({X.shape[0]}, L), got {Y.shape}")
    if Y_test.shape != (X_test.shape[0], Y.shape[1]):
        raise ValueError(f"Y_test: expected shape ({X_test.shape[0]}, {Y.shape[1]}), got "
                         f"{Y_test.shape}")
    for name, M in (("Y", Yf), ("Y_test", Yf_test)):
        if not (np.isin(M, (0.0, 1.0)).all() or np.isin(M, (-1.0, 1.0)).all()):
            raise ValueError(f"{name}: expected label indicators, all 0/1 or all -1/+1")
    return X, Y, X_test, Y_test


def _check_labels(labels, L: int) -> tuple[int, int]:
    """Two different integer columns in [0, L) (ValueError / TypeError
    naming ``labels``)."""
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__") or len(labels) != 2:
        raise TypeError(f"labels: expected two label columns (a, b), got {labels!r}")
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in labels):
        raise TypeError(f"labels: expected two integer columns, got {labels!r}")
    a, b = (int(v) for v in labels)
    if a == b or not (0 <= a < L and 0 <= b < L):
        raise ValueError(f"labels: expected two different columns in [0, {L}), got {labels}")
    return a, b


def _check_slider(r_max, step) -> tuple[float, float]:
    """0 < r_max < 1 and 0 < step <= r_max, as floats (naming each)."""
    r_max = float(as_float_array(r_max, "r_max", ndim=0))
    if not 0 < r_max < 1:
        raise ValueError(f"r_max: expected 0 < r_max < 1, got {r_max}")
    step = float(as_float_array(step, "step", ndim=0))
    if not 0 < step <= r_max:
        raise ValueError(f"step: expected 0 < step <= r_max = {r_max}, got {step}")
    return r_max, step


class CorrelationSlider(WidgetDisplay):
    """Slide r in R = [[1, r], [r, 1]] and watch M3L's test Hamming loss.

    Source: ``m3l-multilabel-zero-shot.txt``, Sec. 7.2.1, Fig. 5.

    Parameters
    ----------
    X, Y : array_like, shapes (N, D) and (N, L)
        Training points and their 0/1 (or -1/+1) labels.
    X_test, Y_test : array_like, shapes (M, D) and (M, L)
        Test points and labels.
    labels : (int, int), default (0, 1)
        The two label columns of Y / Y_test used.
    r : float in (-1, 1), default 0
        Initial classifier correlation.
    curve : (array_like, array_like), optional
        Precomputed (r values, test Hamming loss in %) of Fig. 5 drawn
        under the live point (e.g. from ``polyrank reproduce m3l-fig5``).
        Default: computed on 13 values of r in [-0.9, 0.9] at construction
        by :func:`polyrank.m3l.fig5_curve`.
    label_names : (str, str), optional
        Names of the two labels in the title and the readout (shown as
        literal text: escaped, no markup); default ``"label a"``,
        ``"label b"`` with the column numbers.
    C, kernel, gamma, tol, bias
        :class:`polyrank.M3LClassifier` settings (default: the rbf
        reference settings gamma = 1, C = 1, tol = 1e-3, bias 1).
    r_max : float, default 0.95
        The slider spans [-r_max, r_max] in steps of ``step``.
    step : float, default 0.05

    Attributes
    ----------
    fig : plotly.graph_objects.FigureWidget
        Traces ``"curve"`` (the precomputed losses) and ``"current"`` (one
        marker at (r, loss)); the title reads the current r and loss.
    slider : ipywidgets.FloatSlider
        r; moving it refits.
    readout : ipywidgets.HTML
        r, the test Hamming loss, the train and test correlation of the two
        labels, iterations of the last (warm-started) fit.
    widget : ipywidgets.VBox
        What Jupyter displays.
    model : polyrank.M3LClassifier
        The classifier fitted at the current r.
    history : list of dict
        One entry per fit: ``r``, ``hamming_pct``, ``n_iter``.

    Raises
    ------
    ValueError
        Mismatched shapes, NaN, labels out of range or equal, Y or Y_test
        not 0/1 (or -1/+1) indicators, |r| >= 1, ``r_max`` not in (0, 1),
        ``step`` not in (0, r_max], a curve with mismatched lengths,
        ``label_names`` not two names (each naming the argument).
    TypeError
        ``labels`` not two integers, ``curve`` not a pair, a non-numeric
        ``r_max`` or ``step``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> s = CorrelationSlider(X, Y, X, Y, curve=([0.0, 0.5], [10.0, 12.0]))
    >>> s.set_r(0.5)
    >>> s.r, s.slider.value
    (0.5, 0.5)
    """

    def __init__(self, X, Y, X_test, Y_test, labels=(0, 1), *, r: float = 0.0, curve=None,
                 label_names=None, C: float = 1.0, kernel: str = "rbf", gamma=1.0,
                 tol: float = 1e-3, bias: float = 1.0, r_max: float = 0.95,
                 step: float = 0.05) -> None:
        X, Y, X_test, Y_test = _check_data(X, Y, X_test, Y_test)
        a, b = _check_labels(labels, Y.shape[1])
        r_max, step = _check_slider(r_max, step)
        self.X, self.Y2 = X, Y[:, [a, b]]
        self.X_test, self.Y2_test = X_test, Y_test[:, [a, b]]
        self.labels = (a, b)
        if label_names is not None and (isinstance(label_names, str)
                                        or len(tuple(label_names)) != 2):
            raise ValueError(f"label_names: expected two names, got {label_names!r}")
        self.label_names = (tuple(str(n) for n in label_names) if label_names is not None
                            else (f"label {a}", f"label {b}"))
        self.train_corr = _corr(self.Y2)
        self.test_corr = _corr(self.Y2_test)
        self.model = M3LClassifier(R=two_label_prior(0.0), C=C, kernel=kernel, gamma=gamma,
                                   tol=tol, bias=bias, warm_start=True, random_state=0)
        if curve is None:
            rs = np.round(np.linspace(-0.9, 0.9, 13), 3) + 0.0
            curve = (rs, fig5_curve(X, self.Y2, X_test, self.Y2_test, rs, kernel=kernel,
                                    C=C, gamma=gamma, tol=tol, bias=bias))
        if isinstance(curve, (str, bytes)) or not hasattr(curve, "__len__") or len(curve) != 2:
            raise TypeError(f"curve: expected (r values, test Hamming loss in %), got "
                            f"{type(curve).__name__}")
        cr = as_float_array(curve[0], "curve", ndim=1)
        ch = as_float_array(curve[1], "curve", ndim=1, shape=(cr.shape[0],))
        self.curve = (cr, ch)
        self.history: list[dict] = []
        self._syncing = False
        self.slider = ipw.FloatSlider(value=0.0, min=-r_max, max=r_max, step=step,
                                      description="r", continuous_update=False,
                                      readout_format="+.2f",
                                      layout=ipw.Layout(width="420px"))
        self.readout = ipw.HTML()
        # the first picture (curve, marker at r, title) is drawn on a plain
        # Figure and the FigureWidget is built from it: its construction
        # state is what the browser draws (traces added or changed on a
        # FigureWidget before it is shown reached JupyterLab without them;
        # tests/browser)
        self.fig = self._build_figure()
        self._r = None
        self.set_r(r)
        self.fig = FigureWidget(self.fig)
        self.slider.observe(self._on_slider, names="value")
        self.widget = ipw.VBox([fluid(self.fig), wrap_row(self.slider, self.readout)])

    # -- model ---------------------------------------------------------------
    @property
    def r(self) -> float:
        """The current classifier correlation r."""
        return self._r

    @property
    def hamming_pct(self) -> float:
        """Test Hamming loss (%) of the model fitted at the current r."""
        return self.history[-1]["hamming_pct"]

    def set_r(self, r) -> None:
        """Refit M3L with R = [[1, r], [r, 1]] (warm-started) and redraw.

        Raises
        ------
        ValueError
            If |r| >= 1 or r is not finite.
        TypeError
            If r is not a real number.
        """
        from sklearn.metrics import hamming_loss

        R = two_label_prior(r)
        r = float(R[0, 1])
        self.model.set_params(R=R)
        self.model.fit(self.X, self.Y2)
        loss = 100.0 * hamming_loss(self.Y2_test, self.model.predict(self.X_test))
        self._r = r
        self.history.append({"r": r, "hamming_pct": float(loss),
                             "n_iter": int(self.model.n_iter_)})
        with self._sync():
            if self.slider.min <= r <= self.slider.max:
                self.slider.value = r
        self._render()

    # -- view ----------------------------------------------------------------
    def _on_slider(self, change) -> None:
        """Refit at the slider's r; a fit that raises is shown in the
        readout ("fit failed", the message, the traceback folded), not lost
        in the widget's event handler."""
        if self._syncing:
            return
        try:
            self.set_r(change["new"])
        except Exception as exc:  # the readout says why; the last good fit stays drawn
            self.readout.value = failure_html("fit", exc, traceback.format_exc())

    def _build_figure(self) -> go.Figure:
        fig = go.Figure()
        fig.add_scatter(x=self.curve[0], y=self.curve[1], mode="lines+markers",
                        name="curve", line={"color": _COLORS["curve"]},
                        hovertemplate="r = %{x:+.2f}<br>loss %{y:.2f} %<extra></extra>")
        fig.add_scatter(x=[0.0], y=[float(np.mean(self.curve[1]))], mode="markers",
                        name="current", marker={"color": _COLORS["current"], "size": 14,
                                                "symbol": "diamond"})
        fig.add_vline(x=0, line_dash="dot", line_color=_COLORS["zero"])
        fig.update_layout(xaxis_title="classifier correlation r  (R = [[1, r], [r, 1]])",
                          yaxis_title="test Hamming loss (%)", template="plotly_white",
                          xaxis_range=[-1, 1], height=420, width=720,
                          margin={"t": 60, "b": 50, "l": 60, "r": 20},
                          legend={"x": 0.01, "y": 0.99})
        return fig

    def _title(self) -> str:
        a, b = (escape(n) for n in self.label_names)
        return f"{a} / {b}: r = {self.r:+.2f}, test Hamming loss {self.hamming_pct:.2f} %"

    def _render(self) -> None:
        with self.fig.batch_update():
            self.fig.data[1].x = [self.r]
            self.fig.data[1].y = [self.hamming_pct]
            self.fig.layout.title.text = self._title()
        h = self.history[-1]
        a, b = (escape(n) for n in self.label_names)
        self.readout.value = (
            f"<b>r = {self.r:+.2f}</b>: test Hamming loss <b>{self.hamming_pct:.2f} %</b>"
            f"<br>corr({a}, {b}): train {self.train_corr:+.2f}, test {self.test_corr:+.2f}"
            f"<br>warm-started fit: {h['n_iter']} iterations")

    def __repr__(self) -> str:
        return (f"CorrelationSlider(labels={self.label_names}, r={self.r:+.2f}, "
                f"test Hamming loss={self.hamming_pct:.2f} %)")

    @classmethod
    def from_yeast(cls, n_train: int = 200, rho_train: float = 0.6, seed: int = 0,
                   curve=None, **kwargs) -> CorrelationSlider:
        """The slider on the data of ``polyrank reproduce m3l-fig5``: yeast
        Class2 / Class4 (correlation -0.36 on test), a training subset of
        ``n_train`` points with correlation ``+rho_train``.

        Parameters
        ----------
        n_train, rho_train, seed
            See :func:`polyrank.m3l.fig5_setup`.
        curve : optional
            As in the constructor (default: 13 points computed here).
        **kwargs
            Passed to the constructor (``r``, ``C``, ``kernel`` ...).
        """
        s = fig5_setup(n_train, rho_train, seed)
        return cls(s["X"], s["Y2"], s["X_test"], s["Y2_test"], (0, 1), curve=curve,
                   label_names=s["names"], **kwargs)
