"""Messages on one line: the text helpers of the ``polyrank`` command's
errors and of the file readers' messages (:mod:`polyrank.cli`,
:mod:`polyrank.io`), and the advice of the estimators' warnings in the
language of where they are read: Python (parameter names,
``make_pipeline(StandardScaler(), ...)``) or the ``polyrank`` command
(``--max-iter``, ``--standardize``; :func:`command_line_advice`).  Standard
library only, so that the command can build its parser and report a usage
error without importing numpy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["one_line", "cut", "command_line_advice", "param", "scale_advice",
           "sparse_scale_advice", "gram_advice"]

#: the command line's option of each estimator parameter while
#: :func:`command_line_advice` is active (the key ``"standardize"``: the option
#: that puts a StandardScaler in front), else None: the advice speaks Python
_OPTIONS: ContextVar[Mapping[str, str] | None] = ContextVar("polyrank_cli_options",
                                                            default=None)


@contextmanager
def command_line_advice(options: Mapping[str, str]) -> Iterator[None]:
    """Within the block (this thread or task), :func:`param` and
    :func:`scale_advice` name the command line's options instead of Python's.

    Parameters
    ----------
    options : mapping of str to str
        Estimator parameter name -> its option, e.g. ``{"max_iter":
        "--max-iter"}``; the key ``"standardize"`` names the option that
        standardises X (``"--standardize"``).  A parameter without an entry
        is named ``--param NAME=VALUE``.

    Raises
    ------
    TypeError
        If ``options`` is not a mapping.
    """
    if not isinstance(options, Mapping):
        raise TypeError(f"options: expected a mapping, got {type(options).__name__}")
    token = _OPTIONS.set(dict(options))
    try:
        yield
    finally:
        _OPTIONS.reset(token)


def param(name: str) -> str:
    """How advice names the estimator parameter ``name``: ``name`` itself
    in Python, its option on the command line (:func:`command_line_advice`).

    Parameters
    ----------
    name : str
        An estimator parameter, e.g. ``"max_iter"``.

    Returns
    -------
    str
        E.g. ``"max_iter"`` or ``"--max-iter"``.
    """
    options = _OPTIONS.get()
    if options is None:
        return name
    return options.get(name, f"--param {name}=VALUE")


def scale_advice(estimator: str, sparse: bool = False) -> str:
    """The advice to standardise X, in the language of the reader.

    Parameters
    ----------
    estimator : str
        The estimator's class name, e.g. ``"LabelRanker"``.
    sparse : bool, default False
        X is sparse: the scaler must not centre it.

    Returns
    -------
    str
        In Python ``"standardise X: make_pipeline(StandardScaler(),
        LabelRanker()) (sklearn.pipeline, sklearn.preprocessing)"``; on the
        command line ``"standardise X: rerun with --standardize"``.
    """
    options = _OPTIONS.get()
    if options is not None and "standardize" in options:
        return f"standardise X: rerun with {options['standardize']}"
    scaler = "StandardScaler(with_mean=False)" if sparse else "StandardScaler()"
    return (f"standardise X: make_pipeline({scaler}, {estimator}()) "
            "(sklearn.pipeline, sklearn.preprocessing)")


def sparse_scale_advice(estimator: str) -> str:
    """The advice for a sparse X that is standardised without centring
    (``StandardScaler(with_mean=False)``, which makes a rare feature large:
    w8a's squared row norms reach 64,000): scale each column by its largest
    absolute value instead, in the language of the reader.

    Parameters
    ----------
    estimator : str
        The estimator's class name, e.g. ``"LabelRanker"``.

    Returns
    -------
    str
        In Python ``"scale X by its largest absolute values instead:
        make_pipeline(MaxAbsScaler(), LabelRanker()) (sklearn.pipeline,
        sklearn.preprocessing)"``; on the command line ``"rerun without
        --standardize (scale each column by its largest absolute value
        beforehand if the columns need it)"``.
    """
    options = _OPTIONS.get()
    if options is not None and "standardize" in options:
        return (f"rerun without {options['standardize']} (scale each column by its largest "
                "absolute value beforehand if the columns need it)")
    return (f"scale X by its largest absolute values instead: make_pipeline(MaxAbsScaler(), "
            f"{estimator}()) (sklearn.pipeline, sklearn.preprocessing)")


def gram_advice() -> str:
    """The advice for a precomputed Gram matrix on which a dual solver
    crawls: compute it from standardised features (the estimator sees no
    features, so no scale warning can say which), in the language of the
    reader.

    Returns
    -------
    str
        In Python ``"compute the Gram matrix from standardised features
        (Z = StandardScaler().fit_transform(X); K = Z @ Z.T + 1)"``; on the
        command line the same without the code.
    """
    text = "compute the Gram matrix from standardised features"
    if _OPTIONS.get() is not None:
        return text
    return f"{text} (Z = StandardScaler().fit_transform(X); K = Z @ Z.T + 1)"


def one_line(exc, limit: int = 200) -> str:
    """An exception's (or any object's) text on a single line, at most
    ``limit`` characters (a longer text is cut, with its length said).

    Parameters
    ----------
    exc : object
        An exception or any object; its ``str()`` is shown.
    limit : int, default 200
        The most characters returned.

    Returns
    -------
    str
        The text with every run of white space (newlines too) as one space.
    """
    return cut(" ".join(str(exc).split()), limit)


def cut(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and
    how long it was, in ``limit`` characters.

    Parameters
    ----------
    text : str
    limit : int
        The most characters returned.

    Returns
    -------
    str
        ``text``, or its start followed by ``... (N characters)``.
    """
    if len(text) <= limit:
        return text
    tail = f"... ({len(text):,} characters)"
    return text[:max(limit - len(tail), 0)] + tail
