"""Every registered experiment and benchmark returns typed results: a tuple
of frozen row dataclasses and a summary dataclass, written to CSV and JSON
through ``as_record`` with the keys of the row classes (issue 18).

Each one runs once here at a tiny size (the sizes of its own test module;
``first-fit``, ``m3l-labels-wide`` and the two label-ranker benches with the
stand-ins their tests use), so that a newly registered experiment has to
say how it runs small (``TINY`` must name every one)."""

from __future__ import annotations

import csv
import dataclasses
import functools
import json

import numpy as np
import pytest

import polyrank_paper as E
import polyrank_paper.bench.first_fit as ff
import polyrank_paper.bench.first_run as fr
import polyrank_paper.bench.label_ranker as lb
import polyrank_paper.bench.m3l_labels as ml
from polyrank_paper.registry import (
    ExperimentResult,
    as_record,
    format_rows,
    record_keys,
    table_columns,
)


def _first_fit(monkeypatch):
    monkeypatch.setattr(ff, "_OURS", "from polyrank.sign import sc_sdca\n"
                                     "sc_sdca(np.eye(3), [1.0, -1.0, 1.0], 'hinge')")
    monkeypatch.setattr(ff, "_PEER", "pass")
    return ff.bench_first_fit(quick=True)


def _first_run(monkeypatch):
    monkeypatch.setattr(fr, "_seconds", lambda cmd, cache, cwd=None, timeout=0: 1.0)
    return fr.bench_first_run(quick=True, repeats=1)


def _labels_wide(monkeypatch):
    small = functools.partial(ml.bench_m3l_labels, N=60, n_features=5)
    monkeypatch.setattr(ml, "bench_m3l_labels", lambda **kw: small(**{**kw, "Ls": (2, 3)}))
    return ml.bench_m3l_labels_wide(quick=True)


def _vs_liblinear(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 5))
    y = np.argmax(X[:, :3] + 0.5 * rng.standard_normal((90, 3)), axis=1)
    monkeypatch.setattr(lb, "_cs_problems", lambda quick, seed: {"tiny": (X, y)})
    monkeypatch.setattr(lb, "_yeast_passes", lambda quick, seed: [
        lb.YeastPasses(setting="stub", shrinking=True, passes=3, full_passes=1.5,
                       converged=True, rel_gap=1e-4, seconds=0.1)])
    return E.BENCHES["sopopo-vs-liblinear"].run(quick=True, repeats=1)


def _ranker_defaults(monkeypatch):
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=120, n_features=6, n_classes=4,
                                          random_state=0)
    monkeypatch.setattr(lb, "multilabel_sets", lambda quick: {
        "tiny": (X[:80].astype(float), Y[:80], X[80:].astype(float), Y[80:])})
    return E.BENCHES["label-ranker-defaults"].run(quick=True)


def _tiny_paths(monkeypatch):
    import polyrank_paper.bench.paths as bp

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    grades = np.digitize(X[:, 0], [-0.5, 0.5])
    monkeypatch.setattr(bp, "_cases", lambda: iter([
        ("ordinal", bp.ordinal_path, X, grades, {}), ("PRank", None, X, grades, {})]))
    return E.BENCHES["paths"].func(quick=True, n_grid=3)


def _tiny_slider(monkeypatch):
    import polyrank_paper.bench.slider as bs
    from polyrank import OrdinalMarginRanker

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    grades = np.digitize(X[:, 0], [-0.5, 0.5])
    monkeypatch.setattr(bs, "FAR_STEPS", 2)
    monkeypatch.setattr(bs, "_cases", lambda: iter([
        ("ordinal", OrdinalMarginRanker(), X, grades, {}, (X, grades))]))
    return E.BENCHES["slider"].func(quick=True)


def _plain(name, **kw):
    def run(monkeypatch):
        table = E.EXPERIMENTS if name in E.EXPERIMENTS else E.BENCHES
        return table[name].func(**kw)
    return run


#: every registered experiment and benchmark at a tiny size
TINY = {
    "sopopo-fig6": _plain("sopopo-fig6", ks=(6, 12), trials=1, repeats=1, min_time=0.0,
                          budget_s=120.0),
    "sopopo-fig7": _plain("sopopo-fig7", ks=(4, 6), m_per_k=5, n=8, repeats=1, budget_s=120.0),
    "sopopo-fig8": _plain("sopopo-fig8", k=4, m=10, n=3, passes=2),
    "sign-convergence": _plain("sign-convergence", n_sub=200, epochs=4),
    "sign-fig2": _plain("sign-fig2", n_sub=200, epochs=4),
    "sign-small-sample": _plain("sign-small-sample", trials=4, n_jobs=1),
    "sign": _plain("sign", quick=True),
    "ranksvm-fig4": _plain("ranksvm-fig4", quick=True, tol=1e-6, large_k=(2, 60)),
    "ranksvm-methods": _plain("ranksvm-methods", grid=(0.25, 1.0), cp_max_iter=10),
    "ranksvm-fig7": _plain("ranksvm-fig7", Cs=(1e-4,), cp_max_iter=10),
    "ranksvm-vs-svr": _plain("ranksvm-vs-svr", grid=(0.125, 1.0)),
    "ranksvm": _plain("ranksvm", quick=True, repeats=1, large_k=(2, 60)),
    "ranksvm-l1": _plain("ranksvm-l1", quick=True, repeats=1),
    "ordinal-fig4": _plain("ordinal-fig4", n=100, q=1),
    "ordinal-table1": _plain("ordinal-table1", n_sets=1, s_sizes=(60,), ns_sizes=(60,),
                             budget_s=60.0),
    "ordinal-table2": _plain("ordinal-table2", n_sets=2, s_sizes=(60,), ns_sizes=(60,)),
    "ordinal-curves": _plain("ordinal-curves", n_train=120, n_train_full=150, grid=15),
    "ordinal": _plain("ordinal", sizes=(80,), budget_s=60.0),
    "ordinal-wine": _plain("ordinal-wine", quick=True, repeats=1),
    "ordinal-rc": _plain("ordinal-rc", quick=True, repeats=1, s_sizes=(60,), ns_sizes=(80,),
                         svc_n=150, full_max_n=100, budget_s=60.0),
    "m3l-fig2": _plain("m3l-fig2", n_train=100, seed=1),
    "m3l-fig5": _plain("m3l-fig5", rs=(-0.75, 0.75)),
    "m3l-table3": _plain("m3l-table3", trials=1, full_data=False),
    "m3l-table1": _plain("m3l-table1", Ns=(100,), repeats=1),
    "m3l-awa-prior": _plain("m3l-awa-prior"),
    "m3l": _plain("m3l", quick=True, repeats=1),
    "m3l-labels": _plain("m3l-labels", quick=True, N=60, Ls=(2, 3), repeats=1,
                         n_features=5),
    "m3l-labels-wide": _labels_wide,
    "m3l-rows": _plain("m3l-rows", Ns=(60, 80), C=1.0, nobias=False),
    "m3l-rows-smo": _plain("m3l-rows-smo", Ns=(60, 80), C=1.0, repeats=1),
    "m3l-linear": _plain("m3l-linear", quick=True, tol=1e-2, repeats=1, sizes=(200,)),
    "first-fit": _first_fit,
    "first-run": _first_run,
    "sopopo-vs-liblinear": _vs_liblinear,
    "label-ranker-defaults": _ranker_defaults,
    "sopopo-many-labels": _plain("sopopo-many-labels", quick=True, repeats=1, passes=2,
                                 k_small=8, k_large=12),
    "input-check": _plain("input-check", quick=True, repeats=1),
    "paths": _tiny_paths,
    "slider": _tiny_slider,
    "ranksvm-liblinear": _plain("ranksvm-liblinear", sizes=(2000, 4000), repeats=1),
    "ranksvm-dask": _plain("ranksvm-dask", sizes=(2000, 4000), workers=(2,), repeats=1,
                           n_features=5, npartitions=2),
}


def _is_record(obj) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, type)


def test_tiny_names_every_registered_experiment():
    assert set(TINY) == set(E.EXPERIMENTS) | set(E.BENCHES)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TINY))
def test_rows_and_summary_are_dataclasses(name, monkeypatch, tmp_path):
    res = TINY[name](monkeypatch)
    assert isinstance(res, ExperimentResult)
    assert isinstance(res.rows, tuple) and res.rows
    assert all(_is_record(r) and dataclasses.fields(r)[0] for r in res.rows)
    assert _is_record(res.summary)
    json.dumps(res.summary_record(), allow_nan=False)          # JSON-ready, no NaN
    # the CSV columns are the row classes' keys: for one row class exactly its
    # record_keys (fields marked omit_none only where a row has a value)
    with open(res.write_csv(tmp_path / "x.csv"), newline="") as fh:
        header = next(csv.reader(fh))
    classes = list(dict.fromkeys(type(r) for r in res.rows))
    keys = list(dict.fromkeys(k for cls in classes for k in record_keys(cls)))
    written = list(dict.fromkeys(k for r in res.rows for k in as_record(r)))
    assert header == written and set(header) <= set(keys)
    if len(classes) == 1 and not any(f.metadata.get("omit_none")
                                     for f in dataclasses.fields(classes[0])):
        assert header == record_keys(classes[0])
    # the printed rows are dataclasses too (ordinal-rc prints its Table 1 rows
    # under a "peer" column they do not have: dicts made from the rows)
    if res.table_rows is not None and name != "ordinal-rc":
        assert all(_is_record(r) for r in res.table_rows)
    assert res.format_table().count("\n") >= 2


def test_bench_sopopo_rows_and_table():
    rows = E.bench_sopopo(ks=(10,), repeats=1, trials=1, min_time=0.0)
    assert isinstance(rows, tuple) and all(isinstance(r, E.bench.sopopo.SopopoBenchRow)
                                           for r in rows)
    assert list(as_record(rows)[0]) == record_keys(E.bench.sopopo.SopopoBenchRow)
    assert E.format_table(rows).splitlines()[0].split()[:3] == ["k", "sopopo", "sopopo19"]


def test_columns_come_from_the_row_class():
    @dataclasses.dataclass(frozen=True)
    class Row:
        k: int = E.registry.column("k", str)
        t: float = E.registry.column("time", E.registry.fmt_time)
        n_big: int | None = E.registry.column(key="n_above_1e-6")
        extra: float | None = E.registry.column(omit_none=True, default=None)

    rows = (Row(10, 2e-6, 1), Row(20, 0.5, None, 1.5))
    assert [c[:2] for c in table_columns(Row)] == [("k", "k"), ("t", "time")]
    assert format_rows(rows).splitlines()[2].split() == ["10", "2", "us"]
    assert record_keys(Row) == ["k", "t", "n_above_1e-6", "extra"]
    assert as_record(rows) == [{"k": 10, "t": 2e-6, "n_above_1e-6": 1},
                               {"k": 20, "t": 0.5, "n_above_1e-6": None, "extra": 1.5}]
    res = ExperimentResult("x", "t", rows, summary=Row(1, 1.0, 2))
    assert res.summary_record() == {"k": 1, "t": 1.0, "n_above_1e-6": 2}
    pd = pytest.importorskip("pandas")
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == record_keys(Row)
