"""``polyrank predict DATA MODEL OUT``: predict a data file with a saved
model, one line per row to OUT, and print the field's metrics (like
liblinear's ``predict``).
"""

from __future__ import annotations

import json
import numbers
import sys

from .._files import atomic_open
from ._data import _QUERY_HELP, _check_writable, _design, _metrics, _predictions, _queries, _read
from ._errors import UsageError, user_errors
from ._train import _METHODS, _estimator_class

__all__ = ["add_predict"]


#: metadata ``polyrank train`` stores and ``polyrank predict`` needs
_MODEL_KEYS = ("method", "task", "data_format", "n_features", "feature_names",
               "label_names", "target", "zero_based", "dense")


def _load(path: str, trust_pickle: bool = False):
    """The estimator and metadata of a MODEL file, checked."""
    from sklearn.pipeline import Pipeline

    from ..io import load_model

    with user_errors("MODEL", path):
        est, meta = load_model(path, trusted=trust_pickle)
    missing = [k for k in _MODEL_KEYS if k not in meta]
    if missing:
        raise UsageError(f"MODEL {path!r}: not written by polyrank train (no {missing})")
    method = _METHODS.get(meta["method"])
    final = est[-1] if isinstance(est, Pipeline) else est
    expected = (None if method is None else
                _estimator_class(meta["method"], meta.get("task") == "regression"))
    if method is None or type(final) is not expected:
        raise UsageError(f"MODEL {path!r}: its metadata say method {meta['method']!r} but it "
                         f"holds a {type(final).__name__}")
    return est, meta


def _format(v) -> str:
    if isinstance(v, numbers.Integral):         # int, bool and numpy's integers
        return str(int(v))
    if isinstance(v, numbers.Real):             # float and numpy's floats
        return repr(float(v))
    return str(v)


def _write_lines(path: str, values) -> None:
    """OUT: one line per row of ``values``, written atomically (a regular
    file), written through (a device, a FIFO, ``/dev/stdout``), or to
    standard output (``-``); a write error (ENOSPC) is a UsageError naming
    OUT."""
    import numpy as np

    def write(fh) -> None:
        for row in values:
            fh.write((" ".join(map(_format, row)) if np.ndim(row) else _format(row)) + "\n")

    with user_errors("OUT", path):
        if path == "-":
            write(sys.stdout)
            sys.stdout.flush()
            return
        with atomic_open(path, "w", encoding="utf-8") as fh:
            write(fh)


def _cmd_predict(args) -> int:
    import numpy as np
    from sklearn.pipeline import Pipeline

    _check_writable(args.out, "OUT", {"DATA": args.data, "MODEL": args.model,
                                      "--query": args.query,
                                      "DATA.query": f"{args.data}.query"})
    est, meta = _load(args.model, args.trust_pickle)
    task = meta["task"]
    if args.query is not None and task != "ranking":
        raise UsageError(f"--query applies to ranking models (method 'ranksvm'), not "
                         f"{meta['method']!r}")
    data = _read(args.data, meta["data_format"], task, meta)
    if task == "ranking":
        _queries(args, data, "polyrank predict")
    final = est[-1] if isinstance(est, Pipeline) else est
    X, _ = _design(data.X, final, dense=meta["dense"])
    scores, pred = _predictions(est, task, X, args.scores)
    if args.scores and task == "regression":
        raise UsageError("--scores: a regression model predicts real values already")
    _write_lines(args.out, scores if task == "ranking" or args.scores else pred)
    if data.y is None:
        return 0
    rows = _metrics(task, data.y, pred, scores, data.qid)
    report = sys.stderr if args.out == "-" else sys.stdout    # stdout holds the lines
    if args.json:
        print(json.dumps({k: (None if np.isnan(v) else float(v)) for k, v, _ in rows},
                         indent=2), file=report)
    else:
        for _, _, line in rows:
            print(line, file=report)
    return 0


def add_predict(sub) -> None:
    """Add ``polyrank predict DATA MODEL OUT`` (:func:`_cmd_predict`) to ``sub``."""
    p = sub.add_parser(
        "predict", help="predict a data file with a saved model (like liblinear's predict)",
        description=("Predict every row of DATA with MODEL; write one line per row to OUT "
                     "(ranksvm: scores; sign, ordinal: labels; m3l, labelranker: 0/1 label "
                     "rows in the training label order) and, when DATA has targets, print "
                     "the metrics: ranksvm 'Pairwise Accuracy' and 'Mean NDCG' as "
                     "liblinear-ranksvm (pooled pairs, tied scores count as correct; LETOR "
                     "mean NDCG, 0 for a query without relevant documents), sign "
                     "'Accuracy' (regression: mean squared error), ordinal mean absolute "
                     "error and accuracy, multi-label Hamming loss and ranking loss.  MODEL "
                     "is polyrank's safe format; a pickle/joblib file needs --trust-pickle."))
    p.add_argument("data", metavar="DATA", help="data file in the model's format")
    p.add_argument("model", metavar="MODEL", help="model file written by polyrank train")
    p.add_argument("out", metavar="OUT",
                   help="output file, one line per row of DATA ('-': standard output, the "
                        "metrics then go to stderr; a device or FIFO is written through)")
    p.add_argument("--scores", action="store_true",
                   help="write the real-valued scores (decision_function) instead of labels")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.add_argument("--query", default=None, metavar="FILE", help=_QUERY_HELP)
    p.add_argument("--trust-pickle", action="store_true",
                   help="load a pickle/joblib MODEL (polyrank 0.1's format), which can run "
                        "code: only for a file whose source you trust")
    p.set_defaults(func=_cmd_predict)

