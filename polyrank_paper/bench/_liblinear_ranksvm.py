"""liblinear-ranksvm (``train -s 8``, Tree-TRON in C++) called in this
process through ctypes, for ``polyrank bench ranksvm-liblinear``.

The peer is LIBLINEAR's RankSVM extension from the LIBSVM tools page
(C.-P. Lee and C.-J. Lin, "Large-scale linear RankSVM", Neural Computation
2014; https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/#large_scale_ranksvm).
It is never vendored: build its shared library in a scratch folder, e.g.::

    mkdir -p /tmp/peers && cd /tmp/peers
    # liblinear-ranksvm-2.11.zip from the LIBSVM tools page, unzipped here
    cd liblinear-ranksvm-2.11 && make lib     # -> liblinear.so.3

and point ``POLYRANK_LIBLINEAR_RANKSVM`` at ``liblinear.so.3`` (or the
folder holding it); without the variable ``/tmp/peers/liblinear-ranksvm``
and ``/tmp/peers/liblinear-ranksvm-2.11`` are tried.  ``train()`` of the
library is what ``train -s 8`` runs after reading its file: grouping the
queries, then TRON on ``l2r_l2_ranksvm_fun`` (one thread; the package has
no OpenMP), so the timing leaves out the text parsing of ``train``.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

__all__ = ["find_peer", "LiblinearRankSVM"]

#: liblinear-ranksvm's solver number of L2-regularised L2-loss RankSVM (``-s 8``)
L2R_L2LOSS_RANKSVM = 8
_ENV = "POLYRANK_LIBLINEAR_RANKSVM"
_FOLDERS = ("/tmp/peers/liblinear-ranksvm", "/tmp/peers/liblinear-ranksvm-2.11")
_LIB = "liblinear.so.3"


def find_peer() -> Path | None:
    """The path of liblinear-ranksvm's shared library, or None.

    ``$POLYRANK_LIBLINEAR_RANKSVM`` (the library or its folder), else the
    scratch folders of the module docstring."""
    candidates = [os.environ[_ENV]] if os.environ.get(_ENV) else list(_FOLDERS)
    for c in candidates:
        p = Path(c)
        if p.is_dir():
            p = p / _LIB
        if p.is_file():
            return p
    return None


class _Node(ctypes.Structure):
    _fields_ = [("index", ctypes.c_int), ("value", ctypes.c_double)]


class _Problem(ctypes.Structure):
    _fields_ = [("l", ctypes.c_int), ("n", ctypes.c_int),
                ("y", ctypes.POINTER(ctypes.c_double)),
                ("x", ctypes.POINTER(ctypes.POINTER(_Node))),
                ("bias", ctypes.c_double), ("query", ctypes.POINTER(ctypes.c_int))]


class _Parameter(ctypes.Structure):
    _fields_ = [("solver_type", ctypes.c_int), ("eps", ctypes.c_double),
                ("C", ctypes.c_double), ("nr_weight", ctypes.c_int),
                ("weight_label", ctypes.POINTER(ctypes.c_int)),
                ("weight", ctypes.POINTER(ctypes.c_double)),
                ("nr_l", ctypes.c_int), ("l_idx", ctypes.POINTER(ctypes.c_int)),
                ("l_val", ctypes.POINTER(ctypes.c_double)), ("p", ctypes.c_double),
                ("init_sol", ctypes.POINTER(ctypes.c_double))]


class _Model(ctypes.Structure):
    _fields_ = [("param", _Parameter), ("nr_class", ctypes.c_int),
                ("nr_feature", ctypes.c_int), ("w", ctypes.POINTER(ctypes.c_double)),
                ("label", ctypes.POINTER(ctypes.c_int)), ("bias", ctypes.c_double)]


_NODE = np.dtype([("index", np.int32), ("value", np.float64)], align=True)
_PRINT = ctypes.CFUNCTYPE(None, ctypes.c_char_p)


class LiblinearRankSVM:
    """liblinear-ranksvm's ``train()`` on a problem held in memory.

    Parameters
    ----------
    path : str or Path
        The shared library (``make lib`` of liblinear-ranksvm).
    X : ndarray of float64, shape (l, n)
        Dense documents (every entry becomes a feature node, zeros too:
        16 bytes each, as ``train`` would hold a dense file).
    y : ndarray, shape (l,)
        Relevance labels.
    qid : ndarray of int, shape (l,)
        Query ids (within int32).

    Raises
    ------
    OSError
        If the library cannot be loaded.
    ValueError
        If X is not 2-d or the query ids do not fit in int32.
    """

    def __init__(self, path, X, y, qid):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-d array, got shape {X.shape}")
        qid = np.asarray(qid)
        if qid.size and (qid.min() < np.iinfo(np.int32).min or qid.max() > np.iinfo(np.int32).max):
            raise ValueError("qid: liblinear-ranksvm takes int32 query ids")
        self._lib = ctypes.CDLL(str(path))
        self._lib.train.restype = ctypes.POINTER(_Model)
        self._lib.train.argtypes = [ctypes.POINTER(_Problem), ctypes.POINTER(_Parameter)]
        self._lib.free_and_destroy_model.argtypes = [ctypes.POINTER(ctypes.POINTER(_Model))]
        self._quiet = _PRINT(lambda s: None)             # kept alive with the object
        self._lib.set_print_string_function(self._quiet)
        l, n = X.shape
        nodes = np.empty((l, n + 1), dtype=_NODE)
        nodes["index"][:, :n] = np.arange(1, n + 1, dtype=np.int32)
        nodes["value"][:, :n] = X
        nodes["index"][:, n] = -1
        nodes["value"][:, n] = 0.0
        rows = nodes.ctypes.data + np.arange(l, dtype=np.uint64) * np.uint64(nodes.strides[0])
        self._keep = (nodes, np.ascontiguousarray(rows, dtype=np.uint64),
                      np.ascontiguousarray(y, dtype=np.float64),
                      np.ascontiguousarray(qid, dtype=np.int32))
        _, rows, y64, q32 = self._keep
        self._prob = _Problem(
            l, n, y64.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
            ctypes.cast(rows.ctypes.data, ctypes.POINTER(ctypes.POINTER(_Node))), -1.0,
            q32.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
        self.n_features = n

    def fit(self, C: float = 1.0, eps: float = 1e-3) -> np.ndarray:
        """``train()`` with ``-s 8 -c C -e eps``; returns w, shape (n,).

        Parameters
        ----------
        C : float
            The loss weight of Eq. 1.3.
        eps : float
            TRON's relative gradient tolerance (``-e``; ``train``'s default
            for ``-s 8`` is 0.001).
        """
        param = _Parameter(L2R_L2LOSS_RANKSVM, float(eps), float(C), 0, None, None, 0, None,
                           None, 0.1, None)
        model = self._lib.train(ctypes.byref(self._prob), ctypes.byref(param))
        try:
            return np.ctypeslib.as_array(model.contents.w, shape=(self.n_features,)).copy()
        finally:
            self._lib.free_and_destroy_model(ctypes.byref(model))
