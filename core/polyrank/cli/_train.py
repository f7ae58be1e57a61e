"""``polyrank train METHOD DATA MODEL``: fit METHOD's estimator on a data file
and save it to a model file (like liblinear's ``train``).  The estimator's
subpackage is imported when the command runs (:func:`_estimator_class`).
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import time
from dataclasses import dataclass
from typing import Any

from ._data import _QUERY_HELP, _check_writable, _design, _held_out_metrics, _queries, _read
from ._errors import UsageError, user_errors

__all__ = ["add_train"]


@dataclass(frozen=True)
class _Method:
    """A METHOD of ``polyrank train``: its estimator's name (the class is
    imported when the command runs, :func:`_estimator_class`), task and data
    formats."""

    estimator: str
    task: str                   # "ranking", "classification", "ordinal", "multilabel"
    formats: tuple              # accepted DATA formats, the default first
    help: str


_METHODS = {
    "ranksvm": _Method("RankSVM", "ranking", ("svmlight",),
                       "RankSVM (Tree-TRON); LETOR/SVMlight with qid:"),
    "sign": _Method("SignConstrainedClassifier", "classification", ("svmlight", "csv"),
                    "SignConstrainedClassifier (--regression: SignConstrainedRegressor); "
                    "SVMlight or CSV"),
    "ordinal": _Method("OrdinalMarginRanker", "ordinal", ("csv", "svmlight"),
                       "OrdinalMarginRanker; CSV with --target, or SVMlight"),
    "m3l": _Method("M3LClassifier", "multilabel", ("svmlight", "arff"),
                   "M3LClassifier; MULAN ARFF with --labels, or SVMlight multi-label"),
    "labelranker": _Method("LabelRanker", "multilabel", ("svmlight", "arff"),
                           "LabelRanker (SOPOPO); MULAN ARFF with --labels, or SVMlight "
                           "multi-label"),
}


def _estimator_class(method: str, regression: bool = False) -> type:
    """The estimator class of METHOD (``regression``: the sign method's
    regressor), imported now: only that solver's subpackage is loaded."""
    if method == "ranksvm":
        from ..ranksvm import RankSVM
        return RankSVM
    if method == "sign":
        from ..sign import SignConstrainedClassifier, SignConstrainedRegressor
        return SignConstrainedRegressor if regression else SignConstrainedClassifier
    if method == "ordinal":
        from ..ordinal import OrdinalMarginRanker
        return OrdinalMarginRanker
    if method == "m3l":
        from ..m3l import M3LClassifier
        return M3LClassifier
    if method == "labelranker":
        from ..sopopo import LabelRanker
        return LabelRanker
    raise ValueError(f"method: expected one of {', '.join(_METHODS)}, got {method!r}")

#: estimator options of ``polyrank train``: (dest, flags, type, help, parameter
#: names; the first one the estimator has is set)
_PARAM_OPTIONS = (
    ("C", ("-C", "--C"), float, "slack penalty C (ranksvm, m3l, labelranker)", ("C",)),
    ("c", ("--c",), float, "slack penalty c of the soft margin (ordinal)", ("c",)),
    ("lam", ("--lam",), float, "regularisation lambda (sign)", ("lam",)),
    ("kernel", ("--kernel",), str, "kernel: linear, rbf, poly (ordinal, m3l, labelranker)",
     ("kernel",)),
    ("gamma", ("--gamma",), float, "kernel width gamma (ordinal, m3l, labelranker)",
     ("gamma",)),
    ("smoothing", ("--smoothing",), float, "smoothing of the smoothed hinge (sign)",
     ("smoothing",)),
    ("tol", ("--tol",), float, "stopping tolerance tol", ("tol",)),
    ("max_iter", ("--max-iter",), int, "iteration cap max_iter", ("max_iter",)),
    ("bias", ("--bias",), float,
     "value of a constant feature giving an intercept (sign, m3l, labelranker)", ("bias",)),
    ("seed", ("--seed",), int, "random_state (sign, m3l, labelranker)", ("random_state",)),
)


def _estimator(args) -> Any:
    """The unfitted estimator of ``args.method`` with the options set."""
    if args.regression and args.method != "sign":
        raise UsageError("--regression applies to method 'sign' only")
    est = _estimator_class(args.method, args.regression)()
    names = set(est.get_params())
    params = {}
    for dest, flags, _, _, candidates in _PARAM_OPTIONS:
        value = getattr(args, dest)
        if value is None:
            continue
        name = next((c for c in candidates if c in names), None)
        if name is None:
            usable = [f[-1] for d, f, _, _, cs in _PARAM_OPTIONS
                      if any(c in names for c in cs)]
            raise UsageError(f"{flags[-1]} does not apply to method {args.method!r} "
                             f"({type(est).__name__}); its options: "
                             + ", ".join(usable + ["--param NAME=VALUE"]))
        params[name] = value
    if args.verbose:
        if "verbose" not in names:
            raise UsageError(f"--verbose: {type(est).__name__} has no verbose log")
        params["verbose"] = args.verbose
    for item in args.param:
        name, sep, text = item.partition("=")
        if not sep or name not in names:
            raise UsageError(f"--param {item!r}: expected NAME=VALUE with NAME one of "
                             + ", ".join(sorted(names)))
        try:
            params[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            params[name] = text                  # a bare word, e.g. loss=l1
    return est.set_params(**params)


def advice_options() -> dict:
    """The option of each estimator parameter that ``polyrank train`` sets,
    for the advice of warnings (:func:`polyrank._text.command_line_advice`):
    ``{"max_iter": "--max-iter", ..., "standardize": "--standardize"}``."""
    options = {"random_state": "--seed", "verbose": "--verbose",
               "standardize": "--standardize", "signs": "--signs"}
    for _, flags, _, _, names in _PARAM_OPTIONS:
        options.setdefault(names[0], flags[0])
    return options


def _labels_option(value):
    """``--labels``: N (the last N ARFF attributes) or a MULAN XML file."""
    from ..io import label_names_from_xml

    try:
        return int(value)
    except ValueError:
        with user_errors("--labels"):
            return label_names_from_xml(value)


def _train_format(args, method: _Method) -> str:
    """DATA's format: ``--format``, else CSV with ``--target``, ARFF with
    ``--labels``, else the method's default."""
    fmt = args.format or ("csv" if args.target is not None else
                          "arff" if args.labels is not None else method.formats[0])
    if args.format is None and fmt == "svmlight" and args.data.lower().endswith(".arff"):
        fmt = "arff"                 # an ARFF file given without --labels: say what is missing
    if args.format is None and fmt == "svmlight" and args.data.lower().endswith(".csv"):
        fmt = "csv"
    if fmt not in method.formats:
        why = ("--format" if args.format else "--target" if args.target is not None
               else "--labels" if args.labels is not None else "the name of DATA")
        raise UsageError(f"method {args.method!r} reads {' or '.join(method.formats)} data, "
                         f"not {fmt} ({why})")
    if fmt == "csv" and args.target is None:
        others = [f for f in method.formats if f != "csv"]
        raise UsageError("CSV data need --target NAME (the column of the targets)"
                         + (f"; for {others[0]} data give --format {others[0]}"
                            if others else ""))
    if fmt != "csv" and args.target is not None:
        raise UsageError(f"--target applies to CSV data, not {fmt}")
    if fmt == "arff" and args.labels is None:
        raise UsageError("ARFF data need --labels N (the last N attributes are the "
                         "labels) or --labels FILE.xml (MULAN's label file)")
    if fmt != "arff" and args.labels is not None:
        raise UsageError(f"--labels applies to ARFF data, not {fmt}")
    return fmt


def _cmd_train(args) -> int:
    import numpy as np
    import scipy.sparse as sp
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from ..io import save_model

    method = _METHODS[args.method]
    est = _estimator(args)
    task = "regression" if args.regression else method.task
    fmt = _train_format(args, method)
    labels = _labels_option(args.labels) if args.labels is not None else None
    if args.query is not None and task != "ranking":
        raise UsageError(f"--query applies to ranking data (method 'ranksvm'), not "
                         f"{args.method!r}")
    _check_writable(args.model, "MODEL", {
        "DATA": args.data, "--labels": args.labels, "--signs": args.signs,
        "--query": args.query, "DATA.query": f"{args.data}.query",
        "--validation": args.validation})
    data = _read(args.data, fmt, task, None, target=args.target, labels=labels)
    if data.y is None:                             # pragma: no cover - readers require it
        raise UsageError(f"DATA {args.data!r} has no targets")
    queries = _queries(args, data, "polyrank train") if task == "ranking" else ""
    if args.signs is not None:
        with user_errors("--signs"):
            est.set_params(signs=_signs_option(args.signs, data))
    X, dense = _design(data.X, est)
    meta = dict(method=args.method, task=task, data_format=fmt,
                n_features=int(data.X.shape[1]), feature_names=data.feature_names,
                label_names=data.label_names, target=args.target,
                zero_based=data.zero_based, dense=bool(dense),
                standardize=bool(args.standardize), params=est.get_params(deep=False),
                n_samples=int(data.X.shape[0]), train_file=os.path.abspath(args.data))
    held_out = _validation_data(args, meta)        # read before the fit: fail early
    model = est
    if args.standardize:
        model = Pipeline([("standardize", StandardScaler(with_mean=not sp.issparse(X))),
                          ("estimator", est)])
    fit_params = {}
    if task == "ranking":
        fit_params["estimator__qid" if args.standardize else "qid"] = data.qid
    t = time.perf_counter()
    with user_errors(f"fitting {type(est).__name__}"):
        model.fit(X, data.y, **fit_params)
    seconds = time.perf_counter() - t
    with user_errors("MODEL", args.model):
        save_model(args.model, model, **meta)
    res = getattr(est, "result_", None)
    what = (f"{res.message}, {est.n_iter_} iterations" if res is not None
            and hasattr(est, "n_iter_") else "fitted")
    extra = (f", {np.unique(data.qid).size} queries ({queries})" if task == "ranking"
             else "")
    print(f"{args.method}: {data.X.shape[0]} rows x {data.X.shape[1]} features{extra}; "
          f"{type(est).__name__}: {what} ({seconds:.2f} s); wrote {args.model}")
    if held_out is not None:
        for _, _, line in _held_out_metrics(model, meta, held_out):
            print(f"validation {args.validation}: {line}")
    return 0


def _validation_data(args, meta: dict):
    """The data of ``--validation FILE`` (None without it), read as
    ``predict`` reads a file for the model being trained (the training
    file's format, features and labels); its queries as DATA's."""
    if args.validation is None:
        return None
    path = args.validation
    data = _read(path, meta["data_format"], meta["task"], meta, what="--validation")
    if data.y is None:
        raise UsageError(f"--validation {path!r}: the file has no targets to compare with")
    if meta["task"] == "ranking":
        _queries(argparse.Namespace(data=path, query=None), data, "polyrank train")
    return data


def _signs_option(value: str, data):
    """``--signs``: a comma list or a file of -1/0/+1 (one per feature; a file
    may hold a (features, classes) matrix), or ``FEATURE:SIGN,...`` where
    FEATURE is a CSV/ARFF column name or an SVMlight feature index."""
    import numpy as np

    if os.path.isfile(value):
        with open(value, encoding="utf-8") as fh:
            text = fh.read().replace(",", " ")
        return np.loadtxt(io.StringIO(text), ndmin=1).astype(np.int64)
    items = [s.strip() for s in value.split(",") if s.strip()]
    if not items:
        raise ValueError("empty list")
    if all(":" not in s for s in items):
        return np.array([int(float(s)) for s in items], dtype=np.int64)
    signs = {}
    offset = 0 if data.zero_based is not False else 1
    for item in items:
        key, _, sign = item.rpartition(":")
        if data.feature_names is not None:
            if key not in data.feature_names:
                raise ValueError(f"{key!r} is not a feature column "
                                 f"({', '.join(data.feature_names)})")
            col = data.feature_names.index(key)
        else:
            col = int(key) - offset
            if not 0 <= col < data.X.shape[1]:
                raise ValueError(f"feature index {key} outside 1..{data.X.shape[1]}")
        signs[col] = int(float(sign))
    return signs


def add_train(sub) -> None:
    """Add ``polyrank train METHOD DATA MODEL`` (:func:`_cmd_train`) to ``sub``."""
    formats = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "train", help="fit an estimator on a data file and save it (like liblinear's train)",
        formatter_class=formats,
        description=("Fit METHOD's estimator on DATA and write it, with its metadata, to\n"
                     "the model file MODEL (skops: loading it runs no code).  Options map to\n"
                     "the estimator's parameters; unset ones keep the estimator's defaults."),
        epilog=("methods:\n" + "".join(f"  {k:<12} {m.help}\n" for k, m in _METHODS.items())
                + "\nexamples:\n"
                "  polyrank train ranksvm train.txt rank.model -C 0.1\n"
                "  polyrank train sign data.svm sign.model --lam 1e-4 --signs 3:1,7:-1\n"
                "  polyrank train sign data.csv reg.model --target y --regression "
                "--signs 1,1,1\n"
                "  polyrank train ordinal winequality-red.csv wine.model --target quality "
                "--standardize\n"
                "  polyrank train ranksvm train.txt rank.model --validation vali.txt\n"
                "  polyrank train m3l yeast-train.arff yeast.model --labels 14\n"
                "  polyrank train labelranker data.svm ml.model -C 0.1   "
                "# SVMlight multi-label (1,3 1:0.5 ...)\n"))
    p.add_argument("method", choices=list(_METHODS), metavar="METHOD",
                   help="one of " + ", ".join(_METHODS))
    p.add_argument("data", metavar="DATA", help="training data file")
    p.add_argument("model", metavar="MODEL", help="model file to write")
    for dest, flags, typ, text, _ in _PARAM_OPTIONS:
        p.add_argument(*flags, dest=dest, type=typ, default=None, help=text)
    p.add_argument("--signs", default=None, metavar="SIGNS",
                   help="sign: sign constraints, a comma list of -1/0/1 (one per feature), "
                        "FEATURE:SIGN pairs (CSV column names or SVMlight indices), or a "
                        "file of them (a features x classes matrix for multiclass)")
    p.add_argument("--regression", action="store_true",
                   help="sign: fit SignConstrainedRegressor (real targets)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="any other estimator parameter, e.g. loss=l1 (repeatable)")
    p.add_argument("--standardize", action="store_true",
                   help="put a StandardScaler in front of the estimator (sparse data: "
                        "scaled, not centred)")
    p.add_argument("-v", "--verbose", type=int, nargs="?", const=1, default=0,
                   metavar="N", help="log every N-th solver iteration (default 1)")
    p.add_argument("--format", choices=["svmlight", "csv", "arff"], default=None,
                   help="DATA format (default: csv with --target, arff with --labels, "
                        "else the method's first format, see methods below)")
    p.add_argument("--target", default=None, metavar="NAME",
                   help="CSV: the column of the targets (all others are features)")
    p.add_argument("--labels", default=None, metavar="N",
                   help="ARFF: the last N attributes are the 0/1 labels, or a MULAN XML "
                        "file naming them")
    p.add_argument("--query", default=None, metavar="FILE", help=_QUERY_HELP)
    p.add_argument("--validation", default=None, metavar="FILE",
                   help="a held-out file in DATA's format (with targets): after the fit, "
                        "print the metrics 'polyrank predict' prints for it (ranksvm: "
                        "qid: fields or FILE.query)")
    p.set_defaults(func=_cmd_train)

