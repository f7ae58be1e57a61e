"""The ``polyrank`` command (also ``python -m polyrank``).

Sub-commands::

    polyrank demo              fit the SOPOPO label ranker on yeast, print test metrics
    polyrank bench sopopo      time soft_project against Clarabel and np.sort
    polyrank warmup            compile the numba kernels (--all: also the rare variants)
    polyrank datasets          the bundled data sets, their files and sources
    polyrank datasets copy NAME [DEST]
                               copy a bundled data set's files where you are
    polyrank reproduce --list  the registered reproductions of the papers' figures
    polyrank reproduce NAME    run one (or ``all``), print a table, write CSV + HTML
    polyrank train METHOD DATA MODEL [options]
                               fit an estimator on a data file, save it to MODEL
    polyrank predict DATA MODEL OUT [options]
                               predict DATA, one line per row to OUT, print metrics
    polyrank --version

``demo``, ``bench`` and ``reproduce`` belong to the paper wing
(``polyrank_paper``, the ``paper`` extra): the command finds them through the
entry-point group :data:`COMMANDS_GROUP` (``polyrank.commands``) and never
imports the wing; without it each says which extra to install.

Training and prediction on your own files, like liblinear's ``train`` and
``predict``::

    polyrank train ranksvm train.txt rank.model -C 0.1       # LETOR / SVMlight with qid:
    polyrank train ranksvm train.txt rank.model --validation vali.txt   # + held-out metrics
    polyrank predict test.txt rank.model scores.txt          # Pairwise Accuracy, Mean NDCG
    polyrank train ordinal winequality-red.csv wine.model --target quality --standardize
    polyrank train m3l yeast-train.arff yeast.model --labels 14 -C 1
    polyrank train sign data.svm sign.model --lam 1e-4 --signs 1,1,0,-1 --bias 1

=============  ===================================  =================================
METHOD         estimator                            DATA (default first)
=============  ===================================  =================================
ranksvm        RankSVM                              SVMlight/LETOR, ``qid:`` = queries
sign           SignConstrainedClassifier            SVMlight, or CSV with ``--target``
               (``--regression``: ...Regressor)
ordinal        OrdinalMarginRanker                  CSV with ``--target NAME``, SVMlight
m3l            M3LClassifier                        SVMlight multi-label, or ARFF with
labelranker    LabelRanker                          ``--labels N`` (the last N attributes)
=============  ===================================  =================================

MODEL is a model file that cannot run code when it is loaded (a skops
archive, see :func:`polyrank.io.save_model`) holding the fitted estimator (a
pipeline with ``--standardize``) and its metadata (polyrank version, method,
data format, number and names of the features, label names); ``predict``
checks DATA against it.  A pickle/joblib model file (polyrank 0.1's format)
is refused unless ``--trust-pickle`` says you trust its source.  Ranking
data take their queries from ``qid:`` fields, from ``--query FILE`` (a
LightGBM/SVMlight ``.query`` file: one query size per line), or from
``DATA.query`` beside DATA, which is used automatically as LightGBM does
(and ignored, with a message, when DATA has ``qid:`` fields, as LightGBM
does).  ``predict`` writes scores (ranksvm), labels (sign, ordinal) or 0/1 label
rows (m3l, labelranker; ``--scores``: real scores) and, when DATA carries
targets, prints liblinear-ranksvm's ``Pairwise Accuracy`` (ties in the
scores count as correct) and ``Mean NDCG`` (LETOR), liblinear's
``Accuracy`` or ``Mean squared error``, the mean absolute error (ordinal),
or the Hamming and ranking losses (multi-label); ``train --validation FILE``
prints the same metrics for a held-out FILE after the fit.  Warnings are
shown in full on one line of stderr, their advice in the command's options
(``--standardize``, ``--max-iter``).  A user's mistake (a
missing or malformed file, an unwritable path, an output that is one of the
inputs, a bad option) ends with a one-line message on stderr (with the line
number for a data error) and exit status 2; ``--debug`` shows the traceback.
Every file is written atomically: a failed or interrupted run leaves the
file that was there before.  Only regular files are replaced so: a device
(``/dev/null``, ``/dev/full``), a named FIFO or ``/dev/stdout`` is opened and
written through, and a write error (``/dev/full``'s ENOSPC) is a one-line
error naming OUT or MODEL; OUT ``-`` is standard output (the metrics then
go to stderr).
"""

from __future__ import annotations

import argparse
import ast
import functools
import io
import json
import numbers
import os
import sys
import time
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

# the standard library only at the top: the parser, --version and --help load no numpy,
# scikit-learn or solver; a command imports what it needs when it runs, and `polyrank
# train METHOD` only METHOD's subpackage (_estimator_class)
from . import __version__
from ._files import atomic_open, same_file, writes_through
from ._text import command_line_advice
from ._text import cut as _clip
from ._text import one_line as _one_line

__all__ = ["main", "build_parser", "COMMANDS_GROUP", "CORE_COMMANDS", "UsageError",
           "MESSAGE_CHARS", "user_errors"]


def _cmd_warmup(args) -> int:
    from . import warmup

    # load=False: what the workers compile is not loaded into this process, which ends here
    done = warmup(verbose=True, n_jobs=args.jobs, load=False, rare=args.all)
    if done == {"compiled_in_workers": {}}:
        print(f"every numba kernel of polyrank{'' if args.all else ' used by default'} is "
              "in the cache already: nothing compiled")
    return 0


def _cmd_datasets(args) -> int:
    """``polyrank datasets [list]``: the bundled sets with their files and
    sources; ``polyrank datasets copy NAME [DEST] [--force]``: copy one's files
    (:func:`polyrank.datasets.copy_dataset`)."""
    from .datasets import DATASETS, copy_dataset, data_path

    if getattr(args, "action", None) == "copy":
        with _user_errors(f"copy {args.name}"):
            written = copy_dataset(args.name, args.dest, overwrite=args.force)
        for path in written:
            print(path)
        return 0
    for d in DATASETS.values():
        print(f"{d.name}: {d.description}\n  files:  {' '.join(d.files)}\n"
              f"  read:   {d.read}\n  source: {d.source}")
    print(f"copy one where you are: polyrank datasets copy NAME [DEST]; full provenance "
          f"(commits, checksums, licences): {data_path().parent / 'PROVENANCE.md'}")
    return 0


def _add_datasets(sub) -> None:
    """Add ``polyrank datasets [list | copy NAME [DEST] [--force]]`` to ``sub``."""
    p = sub.add_parser(
        "datasets", help="list the bundled data sets, or copy one's files where you are",
        description="The real data sets bundled with polyrank (LETOR MQ2008, MULAN yeast, "
                    "UCI red wine, LIBSVM phishing and w8a, AwA class attributes): without "
                    "an action (or with 'list') each one's files, format, reader and "
                    "source; 'copy NAME [DEST]' copies the files of NAME into DEST (default "
                    "the current folder), atomically, and refuses to replace an existing "
                    "file unless --force.")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", help="the bundled data sets (the default action)")
    c = actions.add_parser("copy", help="copy the files of a data set into a folder",
                           description="Copy the files of the bundled data set NAME into "
                                       "DEST, byte for byte; nothing is copied when one of "
                                       "them exists there already, unless --force.")
    c.add_argument("name", metavar="NAME", help="the data set (polyrank datasets lists them)")
    c.add_argument("dest", nargs="?", default=".", metavar="DEST",
                   help="the folder (default: the current one; created if missing)")
    c.add_argument("--force", action="store_true", help="replace files of the same names")
    p.set_defaults(func=_cmd_datasets)


#: the notebook ``polyrank lab`` opens when none is given (in a clone of the repository)
TOUR = Path("notebooks") / "00_tour.ipynb"


def _repo_notebooks() -> Path | None:
    """The repository's ``notebooks/``: in the current folder (a clone), else
    beside the installed package (an editable install of a clone); None."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (root / TOUR).is_file():
            return (root / TOUR).parent.resolve()
    return None


def _lab_target(notebook: str | None, workdir: str | None) -> tuple[Path, Path, str]:
    """(folder to copy or None, JupyterLab's root folder, notebook path in it)
    of ``polyrank lab [NOTEBOOK]``: a notebook of the repository opens in the
    working copy ``workdir``, any other notebook where it is."""
    from ._workcopy import default_workdir

    repo = _repo_notebooks()
    if not notebook:
        if repo is None:
            raise UsageError(f"no {TOUR} in {Path.cwd()}: run `polyrank lab` from a clone of "
                             "the repository, or give a notebook: polyrank lab PATH.ipynb")
        path = repo / TOUR.name
    else:
        path = Path(notebook).expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"notebook {notebook!r} not found")
    if repo is not None and repo in path.parents:
        work = Path(workdir).expanduser() if workdir else default_workdir()
        return repo, work.resolve(), path.relative_to(repo).as_posix()
    return None, path.parent, path.name                    # type: ignore[return-value]


def _lab_command(notebook: str | None, port: int | None,
                 workdir: str | None = None) -> list[str]:
    """The JupyterLab command line of ``polyrank lab``: its root the working
    copy (or the folder of a notebook outside the repository), its URL the
    notebook itself (UsageError when the notebook or JupyterLab is missing)."""
    import importlib.util
    from urllib.parse import quote

    _, root, rel = _lab_target(notebook, workdir)
    if importlib.util.find_spec("jupyterlab") is None:
        raise UsageError(f"JupyterLab is not installed: {WIDGETS_INSTALL}")
    # default_url: the URL JupyterLab prints (and opens) is the notebook's,
    # not the Launcher's
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}",
           f"--LabApp.default_url=/lab/tree/{quote(rel)}"]
    if port is not None:
        cmd.append(f"--port={port}")
    # JupyterLab refuses to start as root (a container's default user) without it
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def _cmd_lab(args) -> int:
    import shlex
    import subprocess

    from ._workcopy import sync_working_copy

    cmd = _lab_command(args.notebook, args.port, args.workdir)
    if args.print_command:
        print(shlex.join(cmd))
        return 0
    source, root, _ = _lab_target(args.notebook, args.workdir)
    if source is not None:
        with _user_errors("--workdir", str(root)):
            report = sync_working_copy(source, root)
        print(f"polyrank lab: {report.summary()}", file=sys.stderr)
    return subprocess.call(cmd)


# ------------------------------------------------------- train / predict

class UsageError(Exception):
    """A mistake of the user (a file, a path, an option): one line on stderr
    and exit status 2, never a traceback (unless ``--debug``)."""


#: The longest message ``polyrank`` prints for an error (a longer one is cut,
#: with its length said).  Warnings are printed in full, on one line: their
#: advice comes last.
MESSAGE_CHARS = 300


@contextmanager
def user_errors(what: str, path: str | None = None):
    """Context manager: turn the errors a user's file or option causes into
    a :class:`UsageError` (one line, exit status 2) whose message starts
    with ``what`` (and ``path``, said once).

    Parameters
    ----------
    what : str
        The option or argument the block reads (e.g. ``"--readme"``).
    path : str or None, default=None
        The file it names, if any.

    Raises
    ------
    UsageError
        From an ``OSError``, ``ValueError`` or ``TypeError`` of the block.
    """
    where = what if path is None else f"{what} {path!r}"
    try:
        yield
    except UsageError:
        raise
    except OSError as exc:
        reason = exc.strerror or _one_line(exc, MESSAGE_CHARS)
        if exc.filename is None or exc.filename == path:
            raise UsageError(f"{where}: {reason}") from exc
        raise UsageError(f"{where}: cannot access {exc.filename!r}: {reason}") from exc
    except (ValueError, TypeError) as exc:
        msg = _one_line(exc, MESSAGE_CHARS)
        if path is not None and msg.startswith(f"{path}"):
            raise UsageError(f"{what} {msg}") from exc      # the reader named the file
        raise UsageError(f"{where}: {msg}") from exc


_user_errors = user_errors


def _advice_options() -> dict:
    """The option of each estimator parameter that ``polyrank train`` sets,
    for the advice of warnings (:func:`polyrank._text.command_line_advice`):
    ``{"max_iter": "--max-iter", ..., "standardize": "--standardize"}``."""
    options = {"random_state": "--seed", "verbose": "--verbose",
               "standardize": "--standardize", "signs": "--signs"}
    for _, flags, _, _, names in _PARAM_OPTIONS:
        options.setdefault(names[0], flags[0])
    return options


@contextmanager
def _warnings_as_lines(prog: str):
    """Show every warning (e.g. a ConvergenceWarning) in full, on one line
    of stderr, its advice in the command's options (``--standardize``,
    ``--max-iter``), not in Python."""
    def show(message, category, filename, lineno, file=None, line=None):
        text = " ".join(str(message).split())
        print(f"{prog}: {category.__name__}: {text}", file=sys.stderr)

    with warnings.catch_warnings(), command_line_advice(_advice_options()):
        warnings.simplefilter("default")
        warnings.showwarning = show
        yield


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
        from .ranksvm import RankSVM
        return RankSVM
    if method == "sign":
        from .sign import SignConstrainedClassifier, SignConstrainedRegressor
        return SignConstrainedRegressor if regression else SignConstrainedClassifier
    if method == "ordinal":
        from .ordinal import OrdinalMarginRanker
        return OrdinalMarginRanker
    if method == "m3l":
        from .m3l import M3LClassifier
        return M3LClassifier
    if method == "labelranker":
        from .sopopo import LabelRanker
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


def _estimator(args) -> object:
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


def _labels_option(value):
    """``--labels``: N (the last N ARFF attributes) or a MULAN XML file."""
    from .io import label_names_from_xml

    try:
        return int(value)
    except ValueError:
        with _user_errors("--labels"):
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


def _read(path: str, fmt: str, task: str, meta: dict | None, *, target=None, labels=None,
          what: str = "DATA"):
    """Read DATA for training (``meta`` None) or for a model's prediction
    (``what``: how messages name the file)."""
    from .io import integral_labels, read_arff, read_csv, read_svmlight

    with _user_errors(what, path):
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

    from .io import read_query

    n = data.X.shape[0]
    auto = f"{args.data}.query"
    if args.query is not None:
        if data.qid is not None:
            raise UsageError(f"--query {args.query!r}: DATA {args.data!r} has qid: fields "
                             "already; give the queries one way only")
        with _user_errors("--query", args.query):
            data.qid = read_query(args.query, n)
        return f"queries from {args.query}"
    if os.path.isfile(auto):
        if data.qid is not None:
            print(f"{prog}: DATA has qid: fields; ignoring {auto} (as LightGBM does)",
                  file=sys.stderr)
            return "queries from qid:"
        with _user_errors("query file", auto):
            data.qid = read_query(auto, n)
        print(f"{prog}: query sizes from {auto} (found beside DATA, used as LightGBM does)",
              file=sys.stderr)
        return f"queries from {auto}"
    if data.qid is None:
        data.qid = np.zeros(n, dtype=np.int64)   # one query, as liblinear-ranksvm
        return "one query (no qid:, --query or DATA.query)"
    return "queries from qid:"


def _available_bytes() -> int | None:
    """Memory available to a new allocation (Linux: MemAvailable), or None
    where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _design(X, est, dense: bool | None = None):
    """X as the estimator takes it: CSR stays sparse where the estimator's
    tags accept sparse input, else it is made dense.  Returns (X, dense)."""
    import scipy.sparse as sp
    from sklearn.utils import get_tags

    if dense is None:
        dense = sp.issparse(X) and not get_tags(est).input_tags.sparse
    if dense and sp.issparse(X):
        need, have = 8 * X.shape[0] * X.shape[1], _available_bytes()
        if have is not None and need > have:
            raise UsageError(f"DATA: {X.shape[0]:,} rows x {X.shape[1]:,} features need "
                             f"{need / 1e9:.1f} GB as the dense array "
                             f"{type(est).__name__} takes; {have / 1e9:.1f} GB are "
                             "available (fewer features, or a linear method that takes "
                             "sparse data)")
        X = X.toarray()
    return X, dense


def _cmd_train(args) -> int:
    import numpy as np
    import scipy.sparse as sp
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from .io import save_model

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
        with _user_errors("--signs"):
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
    with _user_errors(f"fitting {type(est).__name__}"):
        model.fit(X, data.y, **fit_params)
    seconds = time.perf_counter() - t
    with _user_errors("MODEL", args.model):
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
    with _user_errors("predict"):
        out = model.decision_function(X) if task in ("ranking", "multilabel") or \
            (scores and task != "regression") else None
        pred = None if task == "ranking" else model.predict(X)
    return out, pred


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


#: metadata ``polyrank train`` stores and ``polyrank predict`` needs
_MODEL_KEYS = ("method", "task", "data_format", "n_features", "feature_names",
               "label_names", "target", "zero_based", "dense")


def _load(path: str, trust_pickle: bool = False):
    """The estimator and metadata of a MODEL file, checked."""
    from sklearn.pipeline import Pipeline

    from .io import load_model

    with _user_errors("MODEL", path):
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

    with _user_errors("OUT", path):
        if path == "-":
            write(sys.stdout)
            sys.stdout.flush()
            return
        with atomic_open(path, "w", encoding="utf-8") as fh:
            write(fh)


def _metrics(task: str, y, pred, scores, qid) -> list:
    """(key, value, text line) of the field's metrics, liblinear's wording."""
    import numpy as np
    from sklearn import metrics as skm

    from . import metrics as pm

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


_QUERY_HELP = ("ranksvm: the query sizes, one per line, in the order of the rows (a "
               "LightGBM/SVMlight .query file); default: qid: fields of DATA, else DATA.query "
               "beside DATA, else one query")


def _add_train_predict(sub) -> None:
    """Add the ``train`` and ``predict`` sub-commands to ``sub``."""
    _add_train(sub)
    _add_predict(sub)


def _add_train(sub) -> None:
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


def _add_predict(sub) -> None:
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


#: The entry-point group of the ``polyrank`` command's plugins.  Each entry
#: point loads a callable ``register(subparsers)`` that adds sub-commands to
#: the parser of :func:`build_parser` (``subparsers.add_parser(NAME, ...)``,
#: each with ``set_defaults(func=run)``, ``run(args) -> int`` the exit
#: status; a user's mistake raises :class:`UsageError`).  The paper wing
#: registers ``demo``, ``bench`` and ``reproduce`` here
#: (``polyrank_paper.cli:register``, in the ``polyrank-paper``
#: distribution's ``dists/polyrank-paper/pyproject.toml``): the core never
#: imports it.
COMMANDS_GROUP = "polyrank.commands"
#: the sub-commands of the paper wing; without it each says which distribution to install
PAPER_COMMANDS = ("demo", "bench", "reproduce")
#: the core's own sub-commands: parsing a command line of one of them (or ``--version``)
#: loads no plugin (:func:`_needs_plugins`)
CORE_COMMANDS = ("lab", "warmup", "train", "predict", "datasets")
#: how to install the paper wing (the ``polyrank-paper`` distribution, which
#: needs ``polyrank-widgets``), published or from a clone's root
PAPER_INSTALL = ("pip install polyrank-paper (from a clone: "
                 "pip install -e dists/polyrank-widgets -e dists/polyrank-paper)")
#: how to install the widgets floor and JupyterLab (``polyrank-widgets``)
WIDGETS_INSTALL = ("pip install polyrank-widgets (from a clone: "
                   "pip install -e dists/polyrank-widgets)")


def _add_plugin_commands(sub) -> None:
    """Add the sub-commands of every plugin of :data:`COMMANDS_GROUP`; a
    plugin that fails to import (its extra is missing) adds none.  Each
    command of :data:`PAPER_COMMANDS` that no plugin added gets a stand-in
    that names the distribution to install.  A plugin found twice (the same
    name and object, e.g. a stale ``polyrank.egg-info`` of the one-distribution
    layout in the working directory beside the installed ``polyrank-paper``)
    is registered once."""
    reasons, seen = [], set()
    for ep in entry_points(group=COMMANDS_GROUP):
        if (ep.name, ep.value) in seen:
            continue
        seen.add((ep.name, ep.value))
        try:
            register = ep.load()
        except ImportError as exc:           # the plugin's dependencies are missing
            why = f"{exc.name} is missing" if exc.name else _one_line(exc, 120)
            reasons.append(f"plugin {ep.name!r} not loaded: {why}")
            continue
        register(sub)
    for name in PAPER_COMMANDS:
        if name not in sub.choices:
            p = sub.add_parser(name, add_help=False, prefix_chars="\0",
                               help="(needs the paper wing: pip install polyrank-paper)")
            p.add_argument("rest", nargs=argparse.REMAINDER)
            p.set_defaults(func=functools.partial(_cmd_missing, name, "; ".join(reasons)))


def _cmd_missing(name: str, reason: str, args) -> int:
    """A paper command without the paper wing: say which distribution installs it."""
    print(_clip(f"polyrank {name} needs the paper wing: {PAPER_INSTALL}, which also "
                "registers its commands" + (f"; {reason}" if reason else ""), MESSAGE_CHARS),
          file=sys.stderr)
    return 2


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (and exit status 2)."""

    def error(self, message):
        self.exit(2, _clip(f"{self.prog}: error: {_one_line(message, MESSAGE_CHARS)} "
                           f"(see '{self.prog} --help')", MESSAGE_CHARS) + "\n")


def _needs_plugins(argv) -> bool:
    """Whether parsing ``argv`` needs the plugins' sub-commands: a command
    that is not one of :data:`CORE_COMMANDS`, or ``--help`` before any
    command (the list of all commands).  ``--version`` and the core's own
    commands, with their ``--help``, load no plugin (and so not the paper
    wing's modules)."""
    for arg in argv:
        if arg in ("-h", "--help"):
            return True
        if arg == "--version":
            return False
        if not arg.startswith("-"):
            return arg not in CORE_COMMANDS
    return False                   # no command: the usage line names none


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    """The argument parser of the ``polyrank`` command.

    Parameters
    ----------
    plugins : bool, default True
        Add the sub-commands of the plugins of :data:`COMMANDS_GROUP` (or,
        for the paper wing's commands, stand-ins that say what to install).
        False gives the core's commands only, without loading any plugin.

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = _Parser(
        prog="polyrank", allow_abbrev=False,
        description="Max-margin ranking: solvers, demos and benchmarks; training and "
                    "prediction on your own files.")
    parser.add_argument("--version", action="version", version=f"polyrank {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, show the full traceback instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    if plugins:
        _add_plugin_commands(sub)

    p = sub.add_parser(
        "lab", help="open the tour (or NOTEBOOK) in JupyterLab, in a working copy",
        description="Start JupyterLab on the tour, notebooks/00_tour.ipynb (from a clone of "
                    "the repository), or on NOTEBOOK, with the options it needs here (as "
                    "root, a container's default user: --allow-root). The repository's "
                    "notebooks open in a working copy (--workdir) that this command keeps up "
                    "to date without overwriting the files you changed, so running them "
                    "leaves the repository as it is; the URL JupyterLab prints opens the "
                    "notebook. Needs polyrank-widgets.")
    p.add_argument("notebook", nargs="?", metavar="NOTEBOOK",
                   help=f"the notebook to open (default {TOUR})")
    p.add_argument("--port", type=int, default=None, help="port of the server (default 8888 "
                   "or the next free one)")
    p.add_argument("--workdir", default=None, metavar="DIR",
                   help="the working copy of the repository's notebooks (default "
                        "$POLYRANK_LAB_DIR or ~/polyrank-notebooks; created if missing)")
    p.add_argument("--print-command", action="store_true",
                   help="print the JupyterLab command line instead of running it (the "
                        "working copy is not touched)")
    p.set_defaults(func=_cmd_lab)

    p = sub.add_parser("warmup", help="compile the numba kernels once (cached on disk)")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes that compile on an empty cache (default: up to "
                        "two, one per core; 1: compile in this process)")
    p.add_argument("--all", action="store_true",
                   help="also the rare variants' kernels (non-default options, compiled on "
                        "first use otherwise)")
    p.set_defaults(func=_cmd_warmup)
    _add_train_predict(sub)
    _add_datasets(sub)
    for p in sub.choices.values():         # --debug after the command name, too
        if p.prefix_chars != "-":          # a stand-in of a missing plugin takes all
            continue
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="on an error, show the full traceback instead of one line")
    return parser


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of a
    pipe whose reader has gone raises nothing (Python's documented recipe
    for SIGPIPE, ``signal`` module notes)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):     # no real stdout (a test's capture)
        pass


def main(argv=None) -> int:
    """Entry point of the ``polyrank`` console script and ``python -m polyrank``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success; 2 for a user's mistake (a one-line
        message of at most :data:`MESSAGE_CHARS` characters on stderr: a bad
        option, a missing or malformed file, an unwritable path, an output
        that is one of the inputs); 141 when stdout is a pipe whose reader
        has gone (``polyrank reproduce --list | head``); 1 when ``reproduce --png`` could not
        write a PNG, or for an internal error (one line, asking for a
        report); 130 after Ctrl-C.  With ``--debug`` the traceback is shown
        as well.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(plugins=_needs_plugins(argv)).parse_args(argv)
    except SystemExit as exc:            # --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    prog = f"polyrank {args.command}"
    try:
        if args.command in ("train", "predict"):
            with _warnings_as_lines(prog):
                status = args.func(args)
        else:
            status = args.func(args)
        sys.stdout.flush()             # a closed pipe raises here, not at exit
        return status
    except UsageError as exc:
        return _fail(args, f"{prog}: {_one_line(exc, MESSAGE_CHARS)}", 2)
    except KeyboardInterrupt:
        return _fail(args, f"{prog}: interrupted", 130)
    except BrokenPipeError:            # `polyrank ... | head`: the reader left; say nothing
        _silence_stdout()
        return 141                     # 128 + SIGPIPE, as a shell reports it
    except MemoryError as exc:
        return _fail(args, f"{prog}: out of memory ({_one_line(exc, 120) or 'MemoryError'})", 1)
    except Exception as exc:           # a bug, not the user's mistake
        return _fail(args, f"{prog}: internal error: {type(exc).__name__}: "
                           f"{_one_line(exc, 120)} (please report it; --debug shows the "
                           "traceback)", 1)


def _fail(args, message: str, status: int) -> int:
    """Print ``message`` as one line on stderr (after the traceback of the
    exception being handled with ``--debug``); return ``status``."""
    if getattr(args, "debug", False):
        traceback.print_exc(file=sys.stderr)
    print(_clip(message, MESSAGE_CHARS), file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
