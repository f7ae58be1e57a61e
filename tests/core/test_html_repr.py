"""The estimators' HTML repr (issue 43, item 3): scikit-learn's diagram,
linked to the estimator's API page on the documentation site, with the
fit's status, duality gap and iterations once fitted; every value escaped."""

import html
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import polyrank
from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    PRank,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
)
from polyrank._repr import API_PAGE, DOCS_URL, api_path, fit_caption
from polyrank.dask import DaskRankSVM, DaskSignConstrainedClassifier, DaskSignConstrainedRegressor
from polyrank.datasets import load_winequality_red

ESTIMATORS = [LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM,
              SignConstrainedClassifier, SignConstrainedRegressor, DaskRankSVM,
              DaskSignConstrainedClassifier, DaskSignConstrainedRegressor]
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def fitted():
    d = load_winequality_red()
    return OrdinalMarginRanker().fit(StandardScaler().fit_transform(d.X[:500]), d.quality[:500])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_estimator_links_to_its_api_page(cls):
    link = cls()._get_doc_link()
    path = "polyrank.dask." + cls.__name__ if cls.__name__.startswith("Dask") \
        else "polyrank." + cls.__name__
    assert link == DOCS_URL + API_PAGE.format(path=path)
    assert link.startswith("https://") and link.endswith(f"/api/generated/{path}.html")
    assert f'href="{link}"' in cls()._repr_html_()


@pytest.mark.slow
def test_the_linked_pages_are_those_the_docs_build_writes():
    """docs/_ext/polyrank_api.py writes one page per public object, at the
    shallowest public path: the link names the same page for every estimator."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
    try:
        import polyrank_api
        _, canonical = polyrank_api.collect()
    finally:
        sys.path.pop(0)
    for cls in ESTIMATORS:
        assert api_path(cls) in canonical
        modname, name, kind = canonical[api_path(cls)]
        assert kind == "class" and getattr(sys.modules[modname], name) is cls


def test_unfitted_repr_keeps_the_diagram_and_says_not_fitted():
    text = RankSVM(C=2.0)._repr_html_()
    assert "sk-top-container" in text and "sk-estimator" in text     # scikit-learn's diagram
    assert "<pre>RankSVM(C=2.0)</pre>" in text                 # its text fallback, unchanged
    assert 'class="polyrank-fit"' in text and "not fitted" in text
    assert 'class="caption"' not in text


def test_fitted_repr_shows_status_gap_and_iterations(fitted):
    res = fitted.result_
    text = fitted._repr_html_()
    summary = re.search(r'<div class="polyrank-fit".*?</div>', text, re.S).group(0)
    assert f"<b>{res.status}</b> (success)" in summary
    assert f"duality gap {res.gap:.3g}" in summary
    assert f"(relative {res.gap / abs(res.primal_objective):.2g})" in summary
    assert f"{res.nit:,} {res.unit}" in summary
    assert html.escape(res.message) in summary and res.solver in summary
    caption = re.search(r'<div class="caption">(.*?)</div>', text).group(1)
    assert caption == html.escape(fit_caption(fitted))
    assert caption.startswith(f"{res.status} · duality gap {res.gap:.3g}")
    assert "Fitted" in text                                  # scikit-learn's own badge
    assert fitted._repr_mimebundle_()["text/html"].count('class="polyrank-fit"') == 1


def test_a_pipeline_step_shows_its_fit_and_link(fitted):
    d = load_winequality_red()
    pipe = make_pipeline(StandardScaler(), PRank()).fit(d.X[:300], d.quality[:300])
    text = pipe._repr_html_()
    res = pipe[-1].result_
    captions = re.findall(r'<div class="caption">(.*?)</div>', text)
    assert captions == [html.escape(fit_caption(pipe[-1]))]
    assert captions[0].startswith(res.status) and f"{res.nit:,} {res.unit}" in captions[0]
    assert f'href="{pipe[-1]._get_doc_link()}"' in text
    assert "scikit-learn.org" in text                       # the other steps keep theirs


def test_hostile_strings_are_escaped(fitted):
    est = RankSVM(C=HOSTILE)                                  # a parameter value
    text = est._repr_html_()
    assert HOSTILE not in text and html.escape(HOSTILE) in text
    res = polyrank.result.SolverResult(fitted.result_)
    res.status = res.message = res.solver = res.unit = HOSTILE
    fitted.result_, saved = res, fitted.result_
    try:
        text = fitted._repr_html_()
    finally:
        fitted.result_ = saved
    assert HOSTILE not in text
    assert text.count(html.escape(HOSTILE)) >= 5     # status, unit, message, solver, caption


def test_a_result_without_objectives_still_renders(fitted):
    res = polyrank.result.SolverResult(status="completed the passes", nit=3, unit="passes",
                                       success=True, gap=np.nan, primal_objective=np.nan)
    est = PRank()
    est.result_ = res
    assert fit_caption(est) == "completed the passes · 3 passes"
