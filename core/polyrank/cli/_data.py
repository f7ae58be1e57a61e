"""What ``polyrank train`` and ``polyrank predict`` share: reading DATA and
its queries, X in the form the estimator takes, the paths they write, the
predictions and the field's metrics (liblinear's wording).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from .. import _memory
from .._files import same_file, writes_through
from ._errors import UsageError, user_errors

__all__: list[str] = []


def _check_writable(path: str, what: str, inputs: dict) -> None:
    """UsageError unless a file can be written at ``path`` (checked before a
    long fit; the file itself is not created here) and ``path`` is none of
    ``inputs`` (``{option name: path}``; the same file also through a
    symbolic or hard link).  Files are written atomically, by a temporary
    file in the same directory, so that directory must be writable; an
    existing file without write permission is not replaced.  OUT ``-`` (standard
    output) and a file written through (a device, a FIFO, ``/dev/stdout``:
    :func:`polyrank._files.writes_through`) need only be writable."""
    if path == "-" and what == "OUT":
        return
    for name, other in inputs.items():
        if other is not None and same_file(path, other):
            raise UsageError(f"{what} {path!r} is the same file as {name} {other!r}; "
                             f"refusing to overwrite an input (give {what} another name)")
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what} {path!r} is a directory")
    if writes_through(path):
        if not os.access(path, os.W_OK):
            raise UsageError(f"{what} {path!r}: permission denied")
        return
    parent = Path(os.path.realpath(p)).parent
    if not parent.is_dir():
        raise UsageError(f"{what} {path!r}: directory {str(p.parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"{what} {path!r}: permission denied")


def _read(path: str, fmt: str, task: str, meta: dict | None, *, target=None, labels=None,
          what: str = "DATA"):
    """Read DATA for training (``meta`` None) or for a model's prediction
    (``what``: how messages name the file)."""
    from ..io import integral_labels, read_arff, read_csv, read_svmlight

    data: Any      # a DataFile: y an ndarray once read
    with user_errors(what, path):
        if fmt == "svmlight":
            kw = {} if meta is None else {"n_features": meta["n_features"],
                                          "zero_based": meta["zero_based"]}
            if task == "multilabel":
                kw["labels"] = None if meta is None else meta["label_names"]
            data = read_svmlight(path, query_id=task == "ranking",
                                 multilabel=task == "multilabel", **kw)
        elif fmt == "csv":
            data = read_csv(path, target=target if meta is None else meta["target"],
                            feature_names=None if meta is None else meta["feature_names"],
                            require_target=meta is None,
                            numeric_target=task in ("ordinal", "regression", "ranking"))
        else:
            data = read_arff(path, labels if meta is None else meta["label_names"],
                             feature_names=None if meta is None else meta["feature_names"],
                             require_labels=meta is None)
    if data.y is not None and task in ("classification", "ordinal"):
        data.y = integral_labels(data.y)
    if task == "ordinal" and data.y is not None and data.y.dtype.kind not in "iuf":
        raise UsageError(f"{what} {path!r}: ordinal targets must be numbers (ordered "
                         f"labels), got {data.y[0]!r}")
    if task in ("regression", "ranking") and data.y is not None \
            and data.y.dtype.kind not in "iuf":
        raise UsageError(f"{what} {path!r}: the targets must be numbers, got {data.y[0]!r}")
    return data


def _queries(args, data, prog: str) -> str:
    """Set ``data.qid`` of ranking data: the file's ``qid:`` fields, or
    ``--query FILE``, or ``DATA.query`` beside DATA (LightGBM's convention),
    else one query (as liblinear-ranksvm).  Returns where the queries came
    from, for the log.

    As LightGBM, ``qid:`` fields in DATA win over a ``DATA.query`` found
    beside it (which is then ignored, with a message); ``--query`` given
    with such a DATA is a contradiction and refused.
    """
    import numpy as np

    from ..io import read_query

    n = data.X.shape[0]
    auto = f"{args.data}.query"
    if args.query is not None:
        if data.qid is not None:
            raise UsageError(f"--query {args.query!r}: DATA {args.data!r} has qid: fields "
                             "already; give the queries one way only")
        with user_errors("--query", args.query):
            data.qid = read_query(args.query, n)
        return f"queries from {args.query}"
    if os.path.isfile(auto):
        if data.qid is not None:
            print(f"{prog}: DATA has qid: fields; ignoring {auto} (as LightGBM does)",
                  file=sys.stderr)
            return "queries from qid:"
        with user_errors("query file", auto):
            data.qid = read_query(auto, n)
        print(f"{prog}: query sizes from {auto} (found beside DATA, used as LightGBM does)",
              file=sys.stderr)
        return f"queries from {auto}"
    if data.qid is None:
        data.qid = np.zeros(n, dtype=np.int64)   # one query, as liblinear-ranksvm
        return "one query (no qid:, --query or DATA.query)"
    return "queries from qid:"


def _design(X, est, dense: bool | None = None):
    """X as the estimator takes it: CSR stays sparse where the estimator's
    tags accept sparse input, else it is made dense.  Returns (X, dense)."""
    import scipy.sparse as sp
    from sklearn.utils import get_tags

    if dense is None:
        dense = sp.issparse(X) and not get_tags(est).input_tags.sparse
    if dense and sp.issparse(X):
        need, have = 8 * X.shape[0] * X.shape[1], _memory.available_bytes()
        if have is not None and need > have:
            raise UsageError(f"DATA: {X.shape[0]:,} rows x {X.shape[1]:,} features need "
                             f"{_memory.format_bytes(need)} as the dense array "
                             f"{type(est).__name__} takes; {_memory.format_bytes(have)} are "
                             "available (fewer features, or a linear method that takes "
                             "sparse data)")
        X = X.toarray()
    return X, dense


def _held_out_metrics(model, meta: dict, data) -> list:
    """(key, value, line) of the field's metrics (:func:`_metrics`) of the
    fitted ``model`` (an estimator or a pipeline) on ``data``."""
    from sklearn.pipeline import Pipeline

    final = model[-1] if isinstance(model, Pipeline) else model
    X, _ = _design(data.X, final, dense=meta["dense"])
    scores, pred = _predictions(model, meta["task"], X, scores=False)
    return _metrics(meta["task"], data.y, pred, scores, data.qid)


def _predictions(model, task: str, X, scores: bool) -> tuple:
    """(scores, predictions) of ``model`` on X, each None where the task
    (or ``scores``, the ``--scores`` option) does not use it."""
    with user_errors("predict"):
        out = model.decision_function(X) if task in ("ranking", "multilabel") or \
            (scores and task != "regression") else None
        pred = None if task == "ranking" else model.predict(X)
    return out, pred


def _metrics(task: str, y, pred, scores, qid) -> list:
    """(key, value, text line) of the field's metrics, liblinear's wording."""
    import numpy as np
    from sklearn import metrics as skm

    from .. import metrics as pm

    n = len(y)
    if task == "ranking":
        try:
            pa = pm.pairwise_accuracy(y, scores, qid)
        except ValueError:                  # no preference pair in DATA
            pa = float("nan")
        ndcg = pm.mean_ndcg(y, scores, qid)
        text = ("Pairwise Accuracy = n/a (no preference pair in DATA)" if np.isnan(pa)
                else f"Pairwise Accuracy = {100 * pa:g}%")
        return [("pairwise_accuracy", pa, text),
                ("mean_ndcg", ndcg, f"Mean NDCG = {ndcg:g}")]
    if task == "regression":
        mse = skm.mean_squared_error(y, pred)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.corrcoef(np.asarray(y, dtype=float), pred)[0, 1] if n > 1 else np.nan
        return [("mean_squared_error", mse, f"Mean squared error = {mse:g} (regression)"),
                ("squared_correlation", r * r,
                 f"Squared correlation coefficient = {r * r:g} (regression)")]
    if task == "multilabel":
        hl = skm.hamming_loss(y, pred)
        rl = skm.label_ranking_loss(y, scores)
        return [("hamming_loss", hl, f"Hamming loss = {hl:g}"),
                ("ranking_loss", rl, f"Ranking loss = {rl:g}")]
    correct = int(np.sum(np.asarray(y) == np.asarray(pred)))
    out = []
    if task == "ordinal":
        mae = skm.mean_absolute_error(y, pred)
        out.append(("mean_absolute_error", mae, f"Mean absolute error = {mae:g}"))
    acc = correct / n
    return out + [("accuracy", acc, f"Accuracy = {100 * acc:g}% ({correct}/{n})")]


_QUERY_HELP = ("ranksvm: the query sizes, one per line, in the order of the rows (a "
               "LightGBM/SVMlight .query file); default: qid: fields of DATA, else DATA.query "
               "beside DATA, else one query")

