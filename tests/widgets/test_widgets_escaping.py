"""Every user-provided string a widget or a figure shows is escaped (issue 28,
item 8): a label, feature, class or data-set name such as
``<img src=x onerror=alert(1)>`` reaches no ``ipywidgets.HTML`` value and
no plotly text as markup, only as the characters it is made of.

Each widget and figure builder is built with hostile names; the widget tree
(every HTML value, every figure's JSON) is walked and must hold no
unescaped ``<img``/``<script``, and must hold the escaped name (the name is
shown, not dropped).  The real-browser counterpart (no element with
``onerror`` is created, no dialog opens) is
``tests/browser/test_browser_escaping.py``."""

from __future__ import annotations

from types import SimpleNamespace as NS

import ipywidgets as ipw
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import polyrank as pr
from polyrank.result import IterInfo
from polyrank_paper.figures import m3l, ordinal, ranksvm, sign
from polyrank_widgets import (
    CorrelationSlider,
    DecompositionViewer,
    GapMonitor,
    SolverLab,
    TronMonitor,
)
from polyrank_widgets._text import escape

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"
AMP = "Tom & \"Jerry's\""
T = 300       # seconds: a first fit may compile its kernels


def _strings(obj):
    """Every str inside a JSON-like object (dicts, lists, tuples, arrays)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, np.ndarray) and obj.dtype == object:
        for v in obj.ravel():
            yield from _strings(v)


def _figure_strings(fig) -> list[str]:
    return list(_strings(fig.to_plotly_json()))


def _shown(widget) -> list[str]:
    """What a widget tree gives the browser as markup: the value of every
    ``HTML``/``HTMLMath``, the description of any widget that allows HTML in
    it, and every string of every plotly figure."""
    out, todo = [], [widget]
    while todo:
        w = todo.pop()
        if hasattr(w, "to_plotly_json"):
            out += _figure_strings(w)
            continue
        if isinstance(w, (ipw.HTML, ipw.HTMLMath)):
            out.append(w.value)
        if getattr(w, "description_allow_html", False):
            out.append(w.description)
        todo += list(getattr(w, "children", ()))
    return out


def assert_escaped(texts, *names) -> None:
    """No hostile tag in ``texts``; each of ``names`` is there escaped."""
    for t in texts:
        low = t.lower()
        assert "<img" not in low and "<script" not in low, t
    joined = "\n".join(texts)
    for name in names:
        assert escape(name) in joined, f"{escape(name)!r} is not shown"


def test_escape_makes_markup_literal_text():
    assert escape(IMG) == "&lt;img src=x onerror=alert(1)&gt;"
    assert escape(SCRIPT) == "&lt;script&gt;alert(2)&lt;/script&gt;"
    # quotes as numeric references: plotly.js decodes those, not &quot;
    assert escape(AMP) == "Tom &amp; &#34;Jerry&#39;s&#34;"
    assert escape("plain 1.5") == "plain 1.5"
    assert escape(7) == "7"


def test_gap_and_tron_monitor_titles_are_text():
    gap = GapMonitor(title=IMG)
    gap(IterInfo(1, 0.1, 2.0, 1.0, 1.0))
    tron = TronMonitor(title=SCRIPT)
    tron(IterInfo(1, 0.1, 2.0, float("nan"), float("nan"), grad_norm=1.0, delta=1.0,
                  cg_iter=2))
    assert gap.title == IMG                          # the attribute keeps the raw name
    assert_escaped(_shown(gap.widget), IMG)
    assert_escaped(_shown(tron.widget), SCRIPT)


def test_correlation_slider_label_names_are_text():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Y = (X[:, :2] > 0).astype(int)
    s = CorrelationSlider(X, Y, X, Y, curve=([0.0, 0.5], [10.0, 12.0]),
                          label_names=(IMG, AMP))
    s.set_r(0.5)
    assert s.label_names == (IMG, AMP)
    assert_escaped(_shown(s.widget), IMG, AMP)
    with pytest.raises(ValueError, match="label_names"):
        CorrelationSlider(X, Y, X, Y, curve=([0.0], [1.0]), label_names=IMG)


def test_decomposition_viewer_error_message_is_text():
    v = DecompositionViewer((-1, 0, 2, 0, -1), "adjacent_layers")
    v.custom_text.value = IMG                 # a person types markup into the box
    assert v.status.value                     # the error is shown ...
    assert_escaped(_shown(v.widget), IMG)     # ... as text


def test_solver_lab_feature_names_and_errors_are_text():
    X, y = make_classification(80, 3, n_informative=2, n_redundant=0, random_state=0)
    cols = [IMG, SCRIPT, AMP]
    Xf = pd.DataFrame(X, columns=cols)
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), Xf, y,
                    params={"lam": (1e-3, 1e-1), "loss": ["hinge", IMG]}, test=(Xf, y))
    assert lab.wait(T) and lab.estimator_ is not None
    lab.view.toggles[0].value = 1             # a sign held: the 'held at 0' trace
    assert lab.wait(T)
    assert_escaped(_shown(lab.widget), *cols)
    lab.controls["loss"].value = IMG          # a parameter value that fails the fit
    assert lab.wait(T)
    assert lab.error_ is not None and IMG in lab.error_
    assert_escaped(_shown(lab.widget), IMG)
    assert escape(IMG) in lab.readout.value


def test_solver_lab_class_and_column_names_of_the_ordinal_view_are_text():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    classes = ["low", IMG, AMP]
    y = np.array(classes, dtype=object)[np.digitize(X @ [1.0, 0.5], [-0.5, 0.5])]
    Xf = pd.DataFrame(X, columns=[SCRIPT, IMG])
    lab = SolverLab(pr.OrdinalMarginRanker(classes=classes), Xf, y,
                    params={"c": (1e-1, 1e1)}, test=(Xf, y))
    assert lab.wait(T) and lab.estimator_ is not None, lab.error_
    assert_escaped(_shown(lab.widget), IMG, AMP, SCRIPT)


class _Raising(pr.SignConstrainedClassifier):
    """An estimator whose fit fails with a message holding markup."""

    def fit(self, X, y, callback=None):
        raise ValueError(f"refused {SCRIPT}")


def test_solver_lab_class_name_and_failed_fit_message_are_text():
    X, y = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=0)
    _Raising.__name__ = IMG                   # a user's class named with markup
    try:
        lab = SolverLab(_Raising(), X, y, views=False)
        assert lab.wait(T)
    finally:
        _Raising.__name__ = "_Raising"
    assert lab.error_ == f"ValueError: refused {SCRIPT}"
    assert_escaped(_shown(lab.widget), IMG, SCRIPT)


# ---------------------------------------------------------------- figures
def _fig_cases():
    """(builder, a result of its experiment with hostile names, the names)."""
    g = np.linspace(0.0, 1.0, 6)
    Z = g[None, :] + g[:, None]
    X2 = np.array([[0.2, 0.3], [0.7, 0.8], [0.5, 0.1]])
    row = NS(time_s=0.1, rel_f=1e-3, step=1, test_pairwise_accuracy=0.8, test_mean_ndcg=0.5)
    return [
        (m3l.fig5, NS(rows=[NS(kernel="linear", r=0.0, test_hamming_pct=30.0)],
                      summary=NS(pair=(IMG, AMP), train_subset_corr=0.5, test_corr=-0.3)),
         (IMG, AMP)),
        (m3l.table3, NS(rows=[NS(method=IMG, test_hamming_pct=25.0, sd=None),
                              NS(method="M3L " + SCRIPT, test_hamming_pct=24.0, sd=0.5)]),
         (IMG, "M3L " + SCRIPT)),
        (m3l.awa_prior, NS(data={"R": np.eye(2), "names": [IMG, AMP]}), (IMG, AMP)),
        (ordinal.fig4, NS(rows=[NS(iteration=1, gen_s=0.1, solve_s=0.2, feas_s=0.1)],
                          summary=NS(instance=IMG)), (IMG,)),
        (ordinal.curves, NS(data={"grid": g, "X": X2, "y": np.array([0, 1, 2]),
                                  "models": [(IMG, Z, [0.8, 1.2]), (AMP, Z, [1.0])]}),
         (IMG, AMP)),
        (ranksvm.fig4, NS(rows=[NS(dataset=IMG, method=SCRIPT, **vars(row))],
                          summary=NS(datasets={IMG: NS(methods=[SCRIPT], default_line=1e-3)})),
         (IMG, SCRIPT)),
        (ranksvm.methods, NS(rows=[NS(kind="path", solver=IMG, **vars(row))]), (IMG,)),
        (ranksvm.fig7, NS(rows=[NS(C=1.0, solver=IMG, **vars(row))], summary=NS(C=[1.0])),
         (IMG,)),
        (sign.convergence, NS(rows=[NS(solver=IMG, epoch=1, primal_gap=1e-3)],
                              summary=NS(final_primal_gap={IMG: 1e-3}, data="phishing",
                                         n=100, smoothing=0.01)), (IMG,)),
        (sign.fig2, NS(rows=[NS(data=IMG, solver=SCRIPT, epoch=1, primal_gap=1e-3)],
                       summary=NS(runs={IMG: NS(data="phishing", n=100,
                                                final_primal_gap={SCRIPT: 1e-3})})),
         (IMG, SCRIPT)),
    ]


@pytest.mark.parametrize("builder, res, names", [
    pytest.param(*case, id=f"{case[0].__module__.rsplit('.', 1)[1]}.{case[0].__name__}")
    for case in _fig_cases()])
def test_figure_builders_show_names_as_text(builder, res, names):
    assert_escaped(_figure_strings(builder(res)), *names)
