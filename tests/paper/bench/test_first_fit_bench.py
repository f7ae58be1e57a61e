"""``polyrank bench first-fit`` (issue 15 item 4, issue 17 item 4): each
measurement runs in a fresh process with its own empty numba cache directory.
The real fits take minutes on a cold cache; here they are replaced by a
small compiled function, which still shows cold > warm compilation."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import polyrank
import polyrank_paper.bench.first_fit as ff

pytestmark = pytest.mark.slow

_TINY = ("import os, numba\n"
         "assert os.environ['NUMBA_CACHE_DIR'].split(os.sep)[-1].startswith("
         "'polyrank-numba-cache-')\n"
         "from polyrank.sign import sc_sdca\n"
         "sc_sdca(np.eye(3), [1.0, -1.0, 1.0], 'hinge', layout='csr')")


def test_first_fit_bench_runs_in_fresh_processes(monkeypatch):
    monkeypatch.setattr(ff, "_OURS", _TINY)
    monkeypatch.setattr(ff, "_PEER", "pass")
    res = ff.bench_first_fit(quick=True)
    assert [r.cache for r in res.rows] == ["cold", "warm", "-"]
    s = res.summary
    # the cold process compiled the sign kernels; the warm one loaded them
    assert s.cold_fit_s > s.warm_fit_s and s.compile_s > 0
    assert s.warmup_cold_s is None            # quick: no full warmup
    assert "first LabelRanker fit in a fresh install" in res.notes[0]
    assert "target" not in " ".join(res.notes).lower()


def test_warmup_leaves_no_kernel_to_compile():
    """After ``polyrank.warmup()`` every kernel of every solver package is
    compiled or cached: a kernel no solver calls (dead code) or one the
    warm-up misses would make every SolverLab fit announce "compiling ...
    (first use only)" forever (found in CI: the M3L lab's "fit failed" was
    covered by such a notice)."""
    import polyrank
    from polyrank._jit import SOLVER_PACKAGES, _is_cached, compile_state, kernel_dispatchers

    polyrank.warmup(progress=False)
    for package in SOLVER_PACKAGES:
        missing = [d.__name__ for d in kernel_dispatchers(package)
                   if not d.signatures and _is_cached(d) is False]
        assert not missing, f"{package}: never compiled by warmup(): {missing}"
        assert compile_state(package).needs_compiling is not True
    # the rare variants' kernels (_LAZY_KERNELS) too, with rare=True (polyrank warmup --all)
    polyrank.warmup(progress=False, rare=True)
    for package in SOLVER_PACKAGES:
        missing = [d.__name__ for d in kernel_dispatchers(package, rare=True)
                   if not d.signatures and _is_cached(d) is False]
        assert not missing, f"{package}: never compiled by warmup(rare=True): {missing}"
        assert compile_state(package, rare=True).needs_compiling is not True


@pytest.mark.parametrize("fork", [True, False])
def test_parallel_compile_fills_the_cache_for_this_process(tmp_path, fork):
    """On an empty cache, warmup() compiles in worker processes (forked, or
    spawned by loky): afterwards this process finds every kernel of the
    package in numba's on-disk cache and has compiled none itself. (One
    package, the smallest compile; ``.ci/test`` starts with ``polyrank
    warmup`` on an empty cache, every package in two workers at once.)"""
    code = textwrap.dedent(f"""
        import json
        from polyrank._jit import compile_state
        from polyrank._warmup_all import _compile_in_workers, _fork_is_safe
        assert _fork_is_safe()                   # one thread here: fork is allowed
        before = compile_state("sign")
        _compile_in_workers(["sign"], 2, fork={fork})
        after = compile_state("sign")
        print(json.dumps({{"before": before.n_to_compile, "kernels": after.n_kernels,
                          "after": after.n_to_compile, "loaded": after.n_loaded,
                          "cached": after.n_cached}}))
        """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=600, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["before"] == r["kernels"] > 0               # the empty cache: all to compile
    assert r["after"] == 0 and r["loaded"] == 0          # the worker compiled them, not us
    assert r["cached"] == r["kernels"]


def test_fork_is_not_used_beside_other_threads():
    """A process running a second thread (a notebook's kernel does) is not
    forked: the workers are spawned instead."""
    import threading

    from polyrank._warmup_all import _fork_is_safe

    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=True)
    t.start()
    try:
        assert not _fork_is_safe()
    finally:
        stop.set()
        t.join()


@pytest.mark.parametrize("bad", [0, 1.5, True, "2"])
def test_warmup_rejects_bad_n_jobs(bad):
    with pytest.raises(ValueError, match="n_jobs"):
        polyrank.warmup(progress=False, n_jobs=bad)
