"""Users' data files and polyrank model files.

What ``polyrank train`` and ``polyrank predict`` (:mod:`polyrank.cli`) read
and write, usable from Python as well.  The parsing is scikit-learn's, scipy's
and the standard library's, never our own:

- :func:`read_svmlight`: SVMlight / LIBSVM / LETOR text files
  (``<label> [qid:<q>] <j>:<v> ...``; multi-label ``<l1>,<l2> <j>:<v> ...``)
  by :func:`sklearn.datasets.load_svmlight_file`;
- :func:`read_query`: LightGBM / SVMlight ``.query`` files (one query size
  per line) as query ids;
- :func:`load_letor_dask`: many LETOR files (or byte ranges of them split
  at query boundaries) as lazy dask arrays, parsed on the workers;
- :func:`read_csv`: delimited text with a header line, by :mod:`csv` (the
  delimiter, e.g. ``,`` or the ``;`` of the UCI wine files, is sniffed);
- :func:`read_arff`: MULAN multi-label ARFF files (the label attributes are
  the last N, or named by MULAN's XML file) by :func:`scipy.io.arff.loadarff`;
- :func:`save_model` / :func:`load_model`: a model file holding a fitted
  estimator (or pipeline) and its metadata (method, data format, number and
  names of the features, label names, versions) in a format that cannot run
  code when it is loaded (skops; see :func:`load_model`).

Data files are untrusted input: they are parsed and checked, never executed.
Each is opened and read once, as a stream (``polyrank._input``), so a
named FIFO or a pipe works as a regular file does; a gzip, bzip2 or xz file
(told by its first bytes) is read through its decompressor; a line longer
than :data:`MAX_LINE_BYTES` or holding a NUL byte is refused.
One module per format: :mod:`polyrank.io.svmlight` (``read_svmlight``,
``read_query``), :mod:`polyrank.io.letor_dask`, :mod:`polyrank.io.delimited`
(``read_csv``), :mod:`polyrank.io.arff` (``read_arff``,
``label_names_from_xml``) and :mod:`polyrank.io.model_files`; this package
re-exports their public names (import them from here).

Every reader returns a :class:`DataFile`, raises ``ValueError`` with a
message that starts with the file's path, gives the line number where one
line is at fault and quotes at most :data:`QUOTE_CHARS` characters of it,
and lets ``OSError`` (a missing or unreadable file) through.  Values that
are not finite (``nan``, ``inf``, an ARFF ``?``) are refused with their line:
no estimator takes them.
"""

from __future__ import annotations

import sys
import types

from . import _common, model_files
from ._common import DataFile, integral_labels
from .arff import label_names_from_xml, read_arff
from .delimited import read_csv
from .letor_dask import load_letor_dask
from .model_files import load_model, model_trusted_types, save_model
from .svmlight import read_query, read_svmlight

__all__ = ["DataFile", "read_svmlight", "read_query", "load_letor_dask", "read_csv", "read_arff",
           "label_names_from_xml", "integral_labels", "save_model", "load_model",
           "model_trusted_types", "MODEL_FORMAT", "MODEL_FORMAT_VERSION", "QUOTE_CHARS",
           "MAX_LINE_BYTES", "MODEL_MAX_RATIO", "MODEL_RATIO_FLOOR"]

#: The most characters of a file's offending text an error message quotes.
QUOTE_CHARS = _common.QUOTE_CHARS
#: The longest line a data file may have, in bytes (characters in CSV and
#: ARFF files), the line end not counted: 64 MiB, about three million
#: SVMlight ``index:value`` pairs.  A longer line is refused with its file
#: and line number after at most this many bytes of it were read, so a
#: 1 GB line never reaches memory.  Read at each call: assign
#: ``polyrank.io.MAX_LINE_BYTES`` to read longer lines.
MAX_LINE_BYTES = _common.MAX_LINE_BYTES
#: The ``format`` entry of a model file written by :func:`save_model`.
MODEL_FORMAT = model_files.MODEL_FORMAT
#: Version of the model file layout: 2 is skops + a JSON header (safe to load);
#: 1 was a joblib pickle (loaded only with ``trusted=True``).
MODEL_FORMAT_VERSION = model_files.MODEL_FORMAT_VERSION
#: :func:`load_model` refuses a member of a model archive that inflates to
#: more than this many times its compressed size (a zip bomb: a 1 MB file
#: inflating to GBs) when it is larger than :data:`~polyrank.io.MODEL_RATIO_FLOOR`.
#: Arrays of numbers deflate a few times; only arrays that are nearly all
#: one value come near 200.
MODEL_MAX_RATIO = model_files.MODEL_MAX_RATIO
#: Members up to this size (16 MiB) are not refused for their ratio.
MODEL_RATIO_FLOOR = model_files.MODEL_RATIO_FLOOR

#: the limits the readers look up at each call, and the module they read each in:
#: ``polyrank.io.MAX_LINE_BYTES = ...`` (as security.md says) sets it there too
_LIVE = {"MAX_LINE_BYTES": _common, "MODEL_RATIO_FLOOR": model_files}


class _Package(types.ModuleType):
    """The package's module type: assigning a limit of :data:`_LIVE` sets it
    where the readers read it (the Python reference's recipe for a module's
    ``__setattr__``, "Customizing module attribute access")."""

    def __setattr__(self, name: str, value) -> None:
        if name in _LIVE:
            setattr(_LIVE[name], name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
