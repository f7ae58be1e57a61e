"""Stored experiment results (polyrank_paper.stored): every shipped
file loads into the typed result it was written from, every ``load_or_run``
call of the notebooks finds its file (so Run All loads, never recomputes),
hostile files are refused without running anything, and ResultView
recomputes in place."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

from polyrank_paper import BENCHES, EXPERIMENTS, ExperimentResult, get_experiment
from polyrank_paper.registry import as_record
from polyrank_paper.stored import (
    RECOMPUTE_ENV,
    STORED_DIR,
    StoredResult,
    _decode,
    _encode,
    load_or_run,
    load_result,
    registered,
    save_result,
    stored_path,
)

REPO = Path(__file__).resolve().parents[2]
STORED = sorted(STORED_DIR.glob("*.json"))
#: a small Fig. 8 (about 0.1 s): the real experiment, cheap enough to recompute
SMALL_FIG8 = {"quick": True, "seed": 0, "k": 6, "m": 40, "n": 20}


def _constant(node: ast.expr):
    """The value of a constant expression of the notebooks' own source
    (literals and arithmetic such as ``2.0 ** 3``; no names, no builtins)."""
    assert not any(isinstance(n, (ast.Name, ast.Call, ast.Attribute)) for n in ast.walk(node))
    return eval(compile(ast.Expression(node), "<notebook>", "eval"), {"__builtins__": {}})


def _notebook_calls() -> list[tuple[str, str, dict]]:
    """(notebook, name, options) of every ``load_or_run("name", ...)`` call
    in the notebooks' code cells (options as the literals written)."""
    calls = []
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            src = "".join(cell["source"])
            for node in ast.walk(ast.parse(src)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "load_or_run"):
                    options = {"quick": False, "seed": 0}
                    options.update({k.arg: _constant(k.value) for k in node.keywords})
                    calls.append((nb.name, _constant(node.args[0]), options))
    return calls


def test_package_ships_stored_results():
    assert len(STORED) >= 6
    assert {p.stem for p in STORED} <= set(EXPERIMENTS) | set(BENCHES)


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.stem)
def test_stored_file_loads_into_typed_result(path):
    res = load_result(path)
    assert isinstance(res, StoredResult) and res.name == path.stem
    func = registered(res.name).func
    inspect.signature(func).bind(**res.options)          # the options are the function's
    assert dataclasses.is_dataclass(res.summary)
    assert res.rows and all(dataclasses.is_dataclass(r) for r in res.rows)
    assert res.format_table().strip() and res.notes
    assert res.provenance.elapsed_s > 0 and res.provenance.polyrank_version
    # the file is exactly what the loaded objects encode to (nothing lost)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert _encode(res.summary) == doc["summary"]
    assert _encode(tuple(res.rows)) == doc["rows"]


@pytest.mark.parametrize("path", [p for p in STORED if p.stem in EXPERIMENTS],
                         ids=lambda p: p.stem)
def test_stored_result_draws_its_figure(path):
    fig = load_result(path).figure
    assert len(fig.data) > 0


def test_every_notebook_call_loads_a_stored_file():
    calls = _notebook_calls()
    assert len(calls) >= 6
    for nb, name, options in calls:
        path = stored_path(name)
        assert path.is_file(), f"{nb}: no stored result for {name} (tools/store_results.py)"
        stored = load_result(path).options
        assert stored == options, f"{nb}: {name} stored with {stored}, called with {options}"


def test_store_tool_runs_what_the_notebooks_call():
    spec = importlib.util.spec_from_file_location("store_results", REPO / "tools/store_results.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    runs = {name: {"quick": False, "seed": 0, **opts} for name, opts in tool.RUNS.items()}
    assert runs == {name: options for _, name, options in _notebook_calls()}


def test_round_trip_of_a_fresh_run(tmp_path):
    res = get_experiment("sopopo-fig8").run(**SMALL_FIG8)
    path = save_result(res, tmp_path / "r.json", options=SMALL_FIG8, elapsed_s=0.5)
    back = load_result(path)
    assert back.rows == res.rows                 # typed rows, equal field by field
    assert as_record(back.summary) == as_record(res.summary)
    assert type(back.summary) is type(res.summary)
    assert back.format_table() == res.format_table() and back.notes == res.notes
    assert back.options == SMALL_FIG8 and back.provenance.elapsed_s == 0.5
    assert not list(tmp_path.glob(".*")), "a temporary file was left behind"


def test_encoding_keeps_kinds():
    data = {"t": (1, 2.5), "l": [True, None], 3: {"nan": float("nan"), "inf": -np.inf},
            "a": np.arange(6, dtype=np.int32).reshape(2, 3), "f": np.float64(0.25)}
    back = _decode(json.loads(json.dumps(_encode(data), allow_nan=False)))
    assert back["t"] == (1, 2.5) and back["l"] == [True, None] and back["f"] == 0.25
    assert np.isnan(back[3]["nan"]) and back[3]["inf"] == -np.inf
    assert back["a"].dtype == np.int32 and back["a"].tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="cannot store"):
        _encode(object())
    with pytest.raises(TypeError, match="dtype"):
        _encode(np.array(["x"], dtype=object))


def _doc_with_summary(tmp_path, summary) -> Path:
    res = get_experiment("sopopo-fig8").run(**SMALL_FIG8)
    path = save_result(res, tmp_path / "r.json", options=SMALL_FIG8, elapsed_s=1.0)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["summary"] = summary(doc["summary"])
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("tamper, message", [
    (lambda s: {"__dataclass__": "os:system", "fields": {}}, "outside polyrank"),
    (lambda s: {"__dataclass__": "subprocess:Popen", "fields": {}}, "outside polyrank"),
    (lambda s: {"__dataclass__": "polyrank_paper.stored:save_result", "fields": {}},
     "not a dataclass"),
    (lambda s: {"__dataclass__": "polyrank.nothing_here:X", "fields": {}}, "No module"),
    (lambda s: {**s, "fields": {**s["fields"], "renamed": 1}}, "store it again"),
    (lambda s: {"__float__": "__import__('os')"}, "bad float"),
    (lambda s: {"__ndarray__": ["x"], "dtype": "|O", "shape": [1]}, "refused"),
    (lambda s: {"x": 1}, "untagged"),
])
def test_hostile_file_is_refused(tmp_path, tamper, message):
    path = _doc_with_summary(tmp_path, tamper)
    with pytest.raises((ValueError, ModuleNotFoundError), match=message):
        load_result(path)


@pytest.mark.parametrize("path", STORED[:1], ids=lambda p: p.stem)
def test_a_file_naming_the_old_home_of_the_experiments_loads(tmp_path, path):
    # files stored before the paper wing name polyrank.experiments.* classes
    old = tmp_path / path.name
    old.write_text(path.read_text(encoding="utf-8").replace(
        '"polyrank_paper.', '"polyrank.experiments.'), encoding="utf-8")
    assert "polyrank.experiments." in old.read_text(encoding="utf-8")
    res, new = load_result(old), load_result(path)
    assert type(res.summary) is type(new.summary)
    assert _encode(res.summary) == _encode(new.summary)
    assert _encode(tuple(res.rows)) == _encode(tuple(new.rows))


@pytest.mark.parametrize("old_home", ["polyrank_paper.ordinal.bench:",
                                      "polyrank.experiments.ordinal.bench:"])
def test_a_file_naming_a_class_before_its_module_split_loads(tmp_path, old_home):
    # polyrank_paper/ordinal/bench.py was split (issue 46): files stored before name
    # polyrank_paper.ordinal.bench:WineRow, now in bench_wine
    path = STORED_DIR / "ordinal-wine.json"
    text = path.read_text(encoding="utf-8")
    assert '"polyrank_paper.ordinal.bench_wine:WineRow"' in text
    old = tmp_path / path.name
    old.write_text(text.replace('"polyrank_paper.ordinal.bench_wine:', f'"{old_home}'),
                   encoding="utf-8")
    res, new = load_result(old), load_result(path)
    assert type(res.rows[0]).__module__ == "polyrank_paper.ordinal.bench_wine"
    assert _encode(tuple(res.rows)) == _encode(tuple(new.rows))
    assert _encode(res.summary) == _encode(new.summary)
    # a name the moved module does not define is still refused
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace('"polyrank_paper.ordinal.bench_wine:WineRow"',
                                '"polyrank_paper.ordinal.bench:NoSuchRow"'), encoding="utf-8")
    with pytest.raises(ValueError, match="not a dataclass of polyrank"):
        load_result(bad)


def test_not_a_stored_result(tmp_path):
    (tmp_path / "a.json").write_text('{"format": "other"}', encoding="utf-8")
    (tmp_path / "b.json").write_text("{not json", encoding="utf-8")
    for name in ("a.json", "b.json"):
        with pytest.raises(ValueError, match="not a stored result"):
            load_result(tmp_path / name)
    doc = {"format": "polyrank-experiment-result", "format_version": 99}
    (tmp_path / "c.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="format version 99"):
        load_result(tmp_path / "c.json")


def test_load_or_run_loads_only_the_same_options(tmp_path, monkeypatch):
    monkeypatch.delenv(RECOMPUTE_ENV, raising=False)
    opts = {k: v for k, v in SMALL_FIG8.items() if k not in ("quick", "seed")}
    first = load_or_run("sopopo-fig8", quick=True, directory=tmp_path, **opts)
    assert not isinstance(first, StoredResult)           # nothing stored: computed
    save_result(first, stored_path("sopopo-fig8", tmp_path), options=SMALL_FIG8, elapsed_s=1.0)
    again = load_or_run("sopopo-fig8", quick=True, directory=tmp_path, **opts)
    assert isinstance(again, StoredResult) and again.rows == first.rows
    other = load_or_run("sopopo-fig8", quick=True, directory=tmp_path, **{**opts, "m": 30})
    assert not isinstance(other, StoredResult)
    monkeypatch.setenv(RECOMPUTE_ENV, "1")
    assert not isinstance(load_or_run("sopopo-fig8", quick=True, directory=tmp_path, **opts),
                          StoredResult)
    with pytest.raises(ValueError, match="unknown experiment"):
        load_or_run("no-such-figure", directory=tmp_path)


def test_load_or_run_never_recomputes_over_a_damaged_file(tmp_path, monkeypatch):
    monkeypatch.delenv(RECOMPUTE_ENV, raising=False)
    stored_path("sopopo-fig8", tmp_path).write_text("{broken", encoding="utf-8")
    with pytest.raises(ValueError, match="not a stored result"):
        load_or_run("sopopo-fig8", directory=tmp_path)


# ------------------------------------------------------------------ ResultView
def test_result_view_recomputes_in_place(tmp_path):
    from polyrank_paper.result_view import ResultView

    res = get_experiment("sopopo-fig8").run(**SMALL_FIG8)
    stored = load_result(save_result(res, tmp_path / "r.json", options=SMALL_FIG8,
                                     elapsed_s=12.0))
    view = ResultView(stored)
    assert "Stored result" in view.status.value and "12 s" in view.status.value
    assert view.options == SMALL_FIG8 and view.details.value == ""
    n_traces = len(view.fig.data)
    view.recompute()
    assert view.wait(120) and view.error_ is None
    assert view.seconds_ > 0 and "Recomputed here" in view.status.value
    assert not isinstance(view.result, StoredResult) and view.result.rows == res.rows
    assert len(view.fig.data) == n_traces and view.fig.layout.width is None
    assert "iteration" in view.details.value and not view.button.disabled


def test_result_view_reports_a_failed_recompute():
    from polyrank_paper.result_view import ResultView

    res = get_experiment("sopopo-fig8").run(**SMALL_FIG8)
    view = ResultView(res, options={"quick": True, "k": "<b>six</b>"})
    assert "Computed in this session" in view.status.value
    view.recompute()
    assert view.wait(60)
    assert view.error_ and "recompute failed" in view.status.value
    assert "<b>six</b>" not in view.status.value                  # escaped
    assert view.result is res and not view.button.disabled


def test_result_view_rejects_bad_arguments():
    from polyrank_paper.result_view import ResultView

    with pytest.raises(TypeError, match="result"):
        ResultView({"name": "sopopo-fig8"})
    res = ExperimentResult("sopopo-fig8", "t", (), None)
    with pytest.raises(TypeError, match="options"):
        ResultView(res, options=[("quick", True)])
