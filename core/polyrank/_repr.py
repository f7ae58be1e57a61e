"""The HTML repr of the polyrank estimators: scikit-learn's diagram, a link
to the estimator's API page and, once fitted, how the fit ended.

scikit-learn draws every estimator as a diagram in Jupyter
(``BaseEstimator._repr_html_``) and links it to its API page through three
class attributes (``_doc_link_module``, ``_doc_link_template``,
``_doc_link_url_param_generator``, scikit-learn's
``_HTMLDocumentationLinkMixin``).  :class:`FitReprMixin` sets them to the
pages of this project's documentation site (:data:`DOCS_URL`, the one place
the address is written) and adds to the diagram, never replacing it:

- under the diagram, a line with the link and the fit's status, duality gap
  (absolute and relative to the primal objective) and iterations, read from
  ``result_`` (:func:`fit_summary_html`); shown whether or not the notebook
  is trusted (scikit-learn hides its diagram in an untrusted notebook);
- in the diagram's label (also where the estimator is the step of a
  :class:`~sklearn.pipeline.Pipeline`), a caption with the same status, gap
  and iterations (:func:`fit_caption`).

Every string taken from the estimator (its status, message, parameters) is
HTML-escaped.
"""

from __future__ import annotations

import html
import math
import sys

from sklearn.base import BaseEstimator

from .result import SolverResult

try:        # scikit-learn >= 1.7
    from sklearn.utils._repr_html.estimator import _VisualBlock
except ImportError:         # pragma: no cover - scikit-learn 1.6
    try:
        from sklearn.utils._estimator_html_repr import _VisualBlock
    except ImportError:
        _VisualBlock = None

__all__ = ["DOCS_URL", "API_PAGE", "api_path", "api_url", "fit_caption", "fit_summary_html",
           "FitReprMixin"]

#: the documentation site (``docs/``, built by Read the Docs from ``.readthedocs.yaml``);
#: the one place its address is written
DOCS_URL = "https://polyrank.readthedocs.io/en/latest/"
#: an object's API page, relative to :data:`DOCS_URL` (``docs/_ext/polyrank_api.py`` writes
#: one page per public object, at the shallowest public path that exports it)
API_PAGE = "api/generated/{path}.html"


def api_path(cls) -> str:
    """The dotted path of ``cls``'s API page: the shallowest public module
    of its package whose ``__all__`` exports it (``polyrank.LabelRanker``,
    ``polyrank.dask.DaskRankSVM``), as the documentation's generator chooses.

    Parameters
    ----------
    cls : type

    Returns
    -------
    str
        ``"module.Name"``; the class's own module when no public module
        exports it.
    """
    parts = cls.__module__.split(".")
    for depth in range(1, len(parts) + 1):
        prefix = parts[:depth]
        if any(p.startswith("_") for p in prefix):
            break
        module = sys.modules.get(".".join(prefix))
        if module is not None and cls.__name__ in getattr(module, "__all__", ()) \
                and getattr(module, cls.__name__, None) is cls:
            return f"{module.__name__}.{cls.__name__}"
    return f"{cls.__module__}.{cls.__name__}"


def api_url(cls) -> str:
    """The address of ``cls``'s API page on the documentation site:
    :data:`DOCS_URL` + :data:`API_PAGE` of :func:`api_path`.

    Examples
    --------
    >>> from polyrank import RankSVM
    >>> api_url(RankSVM)
    'https://polyrank.readthedocs.io/en/latest/api/generated/polyrank.RankSVM.html'
    """
    return DOCS_URL + API_PAGE.format(path=api_path(cls))


def _result(estimator):
    """The fitted ``result_`` (a :class:`~polyrank.result.SolverResult`), or None."""
    res = getattr(estimator, "result_", None)
    return res if isinstance(res, SolverResult) else None


def _fit_facts(res) -> list[str]:
    """The fit's status, gap and iterations as plain text pieces."""
    facts = [str(res.get("status", "?"))]
    gap, primal = res.get("gap", math.nan), res.get("primal_objective", math.nan)
    if gap is not None and math.isfinite(float(gap)):
        text = f"duality gap {float(gap):.3g}"
        if primal is not None and math.isfinite(float(primal)) and float(primal) != 0:
            text += f" (relative {float(gap) / abs(float(primal)):.2g})"
        facts.append(text)
    if "nit" in res:
        facts.append(f"{int(res['nit']):,} {res.get('unit', 'iterations')}")
    return facts


def fit_caption(estimator) -> str | None:
    """The diagram's caption of a fitted estimator, as plain text (the
    diagram escapes it): ``"converged · duality gap 3.1e-08 (relative
    2e-09) · 6 passes"``; None when it has no ``result_``.

    Parameters
    ----------
    estimator : polyrank estimator
    """
    res = _result(estimator)
    return None if res is None else " · ".join(_fit_facts(res))


def fit_summary_html(estimator) -> str:
    """The line shown under the estimator's diagram: the link to its API
    page and, when fitted, the fit's status (with ``success``), duality gap,
    iterations and message; every value HTML-escaped.

    Parameters
    ----------
    estimator : polyrank estimator

    Returns
    -------
    str
        One ``<div class="polyrank-fit">``.
    """
    cls = type(estimator)
    link = (f'<a href="{html.escape(api_url(cls))}" target="_blank" rel="noreferrer">'
            f"{html.escape(api_path(cls))}</a> (documentation)")
    res = _result(estimator)
    if res is None:
        body = "not fitted"
    else:
        ok = "success" if res.get("success") else "no success"
        facts = _fit_facts(res)
        body = (f"fit: <b>{html.escape(facts[0])}</b> ({ok})"
                + "".join(f" · {html.escape(f)}" for f in facts[1:])
                + f' · solver {html.escape(str(res.get("solver", "?")))}')
        message = str(res.get("message", ""))
        if message:
            body += (f'<br><span style="color:#666">{html.escape(message)}</span>')
    return (f'<div class="polyrank-fit" style="font-size:12px;margin:4px 0 2px 0">'
            f"{link} · {body}</div>")


class FitReprMixin:
    """The polyrank estimators' additions to scikit-learn's HTML repr: the
    link to the API page on the documentation site and the fit's status,
    duality gap and iterations (see the module's docstring).

    Put it before :class:`~sklearn.base.BaseEstimator` among the bases.
    """

    _doc_link_module = "polyrank"
    _doc_link_template = DOCS_URL + API_PAGE

    def _doc_link_url_param_generator(self) -> dict:
        """The fields of ``_doc_link_template`` (scikit-learn calls it)."""
        return {"path": api_path(type(self))}

    def _html_repr(self) -> str:
        """scikit-learn's diagram with :func:`fit_summary_html` under it."""
        diagram = BaseEstimator._html_repr(self)     # type: ignore[arg-type]
        summary = fit_summary_html(self)
        end = diagram.rfind("</body>")
        if end < 0:
            return diagram + summary
        return diagram[:end] + summary + diagram[end:]

    def _sk_visual_block_(self):
        """scikit-learn's block of a single estimator, with
        :func:`fit_caption` below its name (in a Pipeline too)."""
        if _VisualBlock is None:     # pragma: no cover - a scikit-learn without it
            raise AttributeError("_sk_visual_block_")
        return _VisualBlock("single", self, names=type(self).__name__,
                            name_details=str(self), name_caption=fit_caption(self))
