"""Model files that cannot run code when loaded (issue 28, item 7).

``save_model`` writes a skops archive with polyrank's header; ``load_model``
and ``polyrank predict`` rebuild only trusted types and refuse a pickle
unless told to trust it.  The crafted files below would create a marker
file if their code ran: the safe path must leave no marker, and the trusted
path must create it (so these tests can fail).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
import zipfile

import joblib
import numpy as np
import pytest
import skops.io as sio
from sklearn.datasets import dump_svmlight_file
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    PRank,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
    SolverResult,
    Trace,
    __version__,
)
from polyrank.cli import main
from polyrank.io import (
    MODEL_FORMAT,
    MODEL_FORMAT_VERSION,
    load_model,
    model_trusted_types,
    save_model,
)

# ------------------------------------------------------------ round trips

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 4))
Y = (X[:, :3] + 0.3 * rng.normal(size=(40, 3)) > 0).astype(int)
Y[0] = [1, 0, 0]                                   # no all-equal row
y_bin = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
y_ord = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
y_reg = X @ [1.0, 2.0, 0.0, -1.0]
qid = np.repeat([1, 2, 3, 4], 10)

ESTIMATORS = [
    (LabelRanker(), Y, {}),
    (LabelRanker(kernel="rbf", decomposition="top_vs_rest"), Y, {}),
    (M3LClassifier(), Y, {}),
    (M3LClassifier(kernel="rbf"), Y, {}),
    (SignConstrainedClassifier(signs=[1, -1, 0, 0]), y_bin, {}),
    (SignConstrainedClassifier(loss="softmax"), y_ord, {}),
    (SignConstrainedRegressor(), y_reg, {}),
    (RankSVM(), y_ord, {"qid": qid}),
    (OrdinalMarginRanker(), y_ord, {}),
    (OrdinalMarginRanker(kernel="rbf"), y_ord, {}),
    (PRank(max_iter=3), y_ord, {}),
]


def _equal(a, b, where="") -> None:
    """Deep equality of fitted attributes (arrays exactly, NaN == NaN)."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
        assert a.dtype == b.dtype, where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _equal(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for k, (u, v) in enumerate(zip(a, b)):
            _equal(u, v, f"{where}[{k}]")
    elif isinstance(a, Trace):
        _equal(a.to_dict(), b.to_dict(), f"{where}.trace")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        _equal(vars(a), vars(b), where)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, where


@pytest.mark.parametrize("est, y, fit", ESTIMATORS,
                         ids=[f"{type(e).__name__}-{e.get_params().get('kernel', '')}"
                              f"{getattr(e, 'loss', '')}" for e, _, _ in ESTIMATORS])
def test_every_estimator_round_trips_with_its_result(tmp_path, est, y, fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # convergence notes of tiny fits
        est.fit(X, y, **fit)
    path = tmp_path / "m.model"
    save_model(path, est, method="test")
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # same version: no warning
        loaded, meta = load_model(path)
    assert type(loaded) is type(est) and meta["method"] == "test"
    assert meta["format"] == MODEL_FORMAT and meta["format_version"] == MODEL_FORMAT_VERSION
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    if hasattr(est, "decision_function"):
        np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    _equal(loaded.get_params(), est.get_params(), "params")
    fitted = {k: v for k, v in vars(est).items() if k.endswith("_") or k.startswith("_")}
    _equal(fitted, {k: vars(loaded)[k] for k in fitted}, type(est).__name__)
    if hasattr(est, "result_"):
        assert isinstance(loaded.result_, SolverResult)
        assert isinstance(loaded.result_.trace, Trace)
    with zipfile.ZipFile(path) as z:                 # no pickle inside, anywhere
        assert not [n for n in z.namelist() if n.endswith((".pkl", ".pickle", ".joblib"))]


def test_a_pipeline_round_trips(tmp_path):
    model = make_pipeline(StandardScaler(), RankSVM(C=0.3)).fit(X, y_ord, ranksvm__qid=qid)
    save_model(tmp_path / "p.model", model, method="ranksvm", feature_names=["a", "b"],
               params={"signs": {3: np.int64(1)}, "arr": np.arange(2)})
    loaded, meta = load_model(tmp_path / "p.model")
    assert isinstance(loaded, Pipeline) and isinstance(loaded[0], StandardScaler)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert meta["feature_names"] == ["a", "b"]
    assert meta["params"] == {"signs": {"3": 1}, "arr": [0, 1]}   # stored as JSON


def test_every_type_a_fitted_estimator_holds_is_trusted():
    """The trusted list covers what the seven estimators store (a new type in
    ``result_`` would make load_model refuse polyrank's own files)."""
    trusted = set(model_trusted_types())
    for est, y, fit in ESTIMATORS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, **fit)
        assert set(sio.get_untrusted_types(data=sio.dumps(est))) <= trusted, est


def test_the_trusted_names_are_the_classes():
    import importlib

    classes = {LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM,
               SignConstrainedClassifier, SignConstrainedRegressor, SolverResult, Trace}
    found = set()
    for name in model_trusted_types():
        module, _, attr = name.rpartition(".")
        obj = getattr(importlib.import_module(module), attr)
        assert isinstance(obj, type) and f"{obj.__module__}.{obj.__qualname__}" == name
        found.add(obj)
    assert classes <= found


def plus_one(A):
    return A + 1


def test_save_refuses_types_it_would_not_load(tmp_path):
    model = Pipeline([("f", FunctionTransformer(plus_one)), ("r", RankSVM())])
    model.fit(X, y_ord, r__qid=qid)
    with pytest.raises(TypeError, match="plus_one"):
        save_model(tmp_path / "m", model)
    assert not (tmp_path / "m").exists() and os.listdir(tmp_path) == []


# ------------------------------------------------------- crafted files

class Payload:
    """Unpickling this runs ``touch MARKER`` (os.system)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


class Evil:
    """A class whose state setter (what skops calls for a trusted object)
    creates the marker file."""

    def __setstate__(self, state):
        open(state["marker"], "w").close()


@pytest.fixture
def ranking(tmp_path):
    data = tmp_path / "rank.txt"
    dump_svmlight_file(X, y_ord, str(data), query_id=qid, zero_based=False)
    return data


def _pickle_model(path, marker, est):
    """A polyrank 0.1 (format 1) joblib model file with a payload."""
    joblib.dump({"format": MODEL_FORMAT, "format_version": 1,
                 "polyrank_version": __version__, "method": "ranksvm", "task": "ranking",
                 "data_format": "svmlight", "n_features": 4, "feature_names": None,
                 "label_names": None, "target": None, "zero_based": False, "dense": False,
                 "payload": Payload(marker), "estimator": est}, path)


@pytest.mark.slow
def test_a_crafted_pickle_is_refused_and_runs_nothing(tmp_path, ranking, capsys):
    marker = tmp_path / "PWNED"
    model = tmp_path / "evil.model"
    _pickle_model(model, marker, RankSVM().fit(X, y_ord, qid=qid))
    before = ranking.read_bytes()
    out = tmp_path / "out.txt"
    # the Python API
    with pytest.raises(ValueError, match="this is a pickle .joblib. file, which can run code"):
        load_model(model)
    assert not marker.exists()
    # the command, in a real process
    res = subprocess.run([sys.executable, "-m", "polyrank", "predict", str(ranking),
                          str(model), str(out)], capture_output=True, text=True)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "--trust-pickle" in res.stderr
    assert "Traceback" not in res.stderr and str(model) in res.stderr
    assert not marker.exists() and not out.exists() and ranking.read_bytes() == before
    # trusted: the same file loads, and its code ran (the marker proves it)
    res = subprocess.run([sys.executable, "-m", "polyrank", "predict", str(ranking),
                          str(model), str(out), "--trust-pickle"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    assert marker.exists() and out.exists() and ranking.read_bytes() == before
    marker.unlink()
    est, meta = load_model(model, trusted=True)
    assert marker.exists() and isinstance(est, RankSVM) and meta["payload"] == 0


def test_a_protocol_0_pickle_is_not_loaded_either(tmp_path):
    marker = tmp_path / "PWNED"
    model = tmp_path / "evil.model"
    model.write_bytes(f"cos\nsystem\n(S'touch {marker}'\ntR.".encode())
    with pytest.raises(ValueError, match="not a polyrank model file"):
        load_model(model)
    assert not marker.exists()


def _with_header(data: bytes, **changes) -> bytes:
    """A skops archive with polyrank's header (changed by ``changes``)."""
    header = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
              "polyrank_version": __version__, "metadata": {"method": "ranksvm"}, **changes}
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as z:
        z.writestr("polyrank-model.json", json.dumps(header))
    return buf.getvalue()


def test_a_skops_file_with_untrusted_types_is_refused(tmp_path, ranking, capsys):
    marker = tmp_path / "PWNED"
    evil = Evil()
    evil.__dict__["marker"] = str(marker)
    model = tmp_path / "evil.model"
    model.write_bytes(_with_header(sio.dumps({"estimator": RankSVM(), "x": evil})))
    with pytest.raises(ValueError, match="holds types polyrank does not trust.*Evil"):
        load_model(model)
    assert not marker.exists()
    assert main(["predict", str(ranking), str(model), str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "does not trust" in err and err.count("\n") == 1 and not marker.exists()
    # trusted=True trusts every type of the file: the state setter ran
    obj, _ = load_model(model, trusted=True)
    assert marker.exists() and isinstance(obj["x"], Evil)


def test_other_files_are_not_models(tmp_path):
    zipped = tmp_path / "plain.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("a.txt", "hello")
    with pytest.raises(ValueError, match="without polyrank's header"):
        load_model(zipped)
    bad_header = tmp_path / "bad.model"
    bad_header.write_bytes(_with_header(sio.dumps(RankSVM()), format="something-else"))
    with pytest.raises(ValueError, match="not a polyrank model file"):
        load_model(bad_header)
    text = tmp_path / "liblinear.model"
    text.write_text("solver_type L2R_L2LOSS_SVC\nnr_class 2\n")
    with pytest.raises(ValueError, match="not a polyrank model file"):
        load_model(text)


def test_another_version(tmp_path):
    est = RankSVM().fit(X, y_ord, qid=qid)
    data = sio.dumps(est)
    older = tmp_path / "older.model"
    older.write_bytes(_with_header(data, polyrank_version="0.0.1"))
    with pytest.warns(UserWarning, match=f"written by polyrank 0.0.1, read by polyrank "
                                         f"{__version__}"):
        loaded, _ = load_model(older)
    np.testing.assert_array_equal(loaded.coef_, est.coef_)
    newer = tmp_path / "newer.model"
    newer.write_bytes(_with_header(data, format_version=99, polyrank_version="9.9"))
    with pytest.raises(ValueError, match=f"format 99 .written by polyrank 9.9.; this "
                                         f"polyrank {__version__} reads format 2"):
        load_model(newer)
