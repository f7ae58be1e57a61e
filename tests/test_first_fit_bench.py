"""``polyrank bench first-fit`` (issue 15 item 4, issue 17 item 4): each
measurement runs in a fresh process with its own empty numba cache directory.
The real fits take minutes on a cold cache; here they are replaced by a
small compiled function, which still shows cold > warm compilation."""

import polyrank.experiments.first_fit as ff

_TINY = ("import os, numba\n"
         "assert os.environ['NUMBA_CACHE_DIR'].split(os.sep)[-1].startswith("
         "'polyrank-numba-cache-')\n"
         "from polyrank.sign import sc_sdca\n"
         "sc_sdca(np.eye(3), [1.0, -1.0, 1.0], 'hinge', layout='csr')")


def test_first_fit_bench_runs_in_fresh_processes(monkeypatch):
    monkeypatch.setattr(ff, "_OURS", _TINY)
    monkeypatch.setattr(ff, "_PEER", "pass")
    res = ff.bench_first_fit(quick=True)
    assert [r["cache"] for r in res.rows] == ["cold", "warm", "-"]
    s = res.summary
    # the cold process compiled the sign kernels; the warm one loaded them
    assert s["cold_fit_s"] > s["warm_fit_s"] and s["compile_s"] > 0
    assert s["warmup_cold_s"] is None            # quick: no full warmup
    assert "first LabelRanker fit in a fresh install" in res.notes[0]
    assert "target" not in " ".join(res.notes).lower()
