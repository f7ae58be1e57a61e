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

The package holds one module per command (``_train``, ``_predict``,
``_lab``, ``_warmup``, ``_datasets``), what train and predict share
(``_data``), the error reporting (``_errors``) and the parser with its
plugins and :func:`main` (``_parser``); each imports only the standard
library at its top, and a command's modules (numpy, scikit-learn, one
solver) when it runs, so that ``polyrank --version`` and ``polyrank train
--help`` load none of them (tests/architecture/test_startup.py).
"""

from __future__ import annotations

from . import _errors, _parser
from ._errors import UsageError, user_errors
from ._parser import build_parser, main

__all__ = ["main", "build_parser", "COMMANDS_GROUP", "CORE_COMMANDS", "UsageError",
           "MESSAGE_CHARS", "user_errors"]

#: The longest message ``polyrank`` prints for an error (a longer one is cut,
#: with its length said).  Warnings are printed in full, on one line: their
#: advice comes last.
MESSAGE_CHARS = _errors.MESSAGE_CHARS
#: The entry-point group of the ``polyrank`` command's plugins.  Each entry
#: point loads a callable ``register(subparsers)`` that adds sub-commands to
#: the parser of :func:`build_parser` (``subparsers.add_parser(NAME, ...)``,
#: each with ``set_defaults(func=run)``, ``run(args) -> int`` the exit
#: status; a user's mistake raises :class:`UsageError`).  The paper wing
#: registers ``demo``, ``bench`` and ``reproduce`` here
#: (``polyrank_paper.cli:register``, in the ``polyrank-paper``
#: distribution's ``dists/polyrank-paper/pyproject.toml``): the core never
#: imports it.
COMMANDS_GROUP = _parser.COMMANDS_GROUP
#: the core's own sub-commands: parsing a command line of one of them (or ``--version``)
#: loads no plugin (:func:`_needs_plugins`)
CORE_COMMANDS = _parser.CORE_COMMANDS
