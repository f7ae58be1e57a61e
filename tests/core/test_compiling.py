"""Compile early, wait honestly (issue 41, item 3): ``polyrank.compiling``.

The protocol and the waiting are tested with fake workers (a few lines of
Python that print the reports a real worker prints), so these tests compile
nothing; the two tests that compile for real, into an empty numba cache, are
marked slow.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from polyrank import _compile_notice
from polyrank.compiling import (
    BackgroundCompile,
    CompileNotice,
    CompileProgress,
    compile_guard,
    compile_in_background,
)

HEAD = ("compiling the numba kernels of polyrank.sign (first use only; cached for later "
        "sessions)")


def test_the_progress_line_says_what_is_known():
    assert CompileProgress("sign", 3, 12, True, 4.0, 8.2).text() == f"{HEAD}: 3 of 12, ~9 s left"
    # a fit compiling itself knows neither the total nor the time left
    assert (CompileProgress("sign", 2, None, False, 3.4, None).text()
            == f"{HEAD}: 2 compiled, 3 s so far")
    assert (CompileProgress("sign", 0, 12, True, 0.0, 20.0, queued=True).text()
            == f"{HEAD}: waiting for a worker, ~20 s left")
    assert (CompileProgress("sign", 0, None, True, 0.0, None, queued=True).text()
            == f"{HEAD}: waiting for a worker")


def _fake_worker(script: str):
    """A ``subprocess.Popen`` stand-in that starts ``script`` instead of a
    real worker (the same pipes)."""
    real = subprocess.Popen

    def popen(cmd, **kwargs):
        return real([sys.executable, "-c", script], **kwargs)

    return popen


#: a worker that "compiles" each package named on stdin: 4 kernels, 0.05 s each
FAKE = """
import sys, time
for line in sys.stdin:
    name = line.strip()
    print("a stray line of the solver", flush=True)
    print("@polyrank-compile start", name, 4, flush=True)
    for k in range(1, 5):
        time.sleep(0.05)
        print("@polyrank-compile kernel", name, k, flush=True)
    print("@polyrank-compile done", name, 0.2, flush=True)
"""


def test_workers_compile_the_queue_and_report_kernels(monkeypatch):
    monkeypatch.setattr(subprocess, "Popen", _fake_worker(FAKE))
    job = BackgroundCompile(["sopopo", "sign", "m3l"], 2, {"sopopo": 4}).start()
    assert job.n_workers == 2
    assert job.wait("m3l", timeout=60)
    for p in ("sopopo", "sign", "m3l"):
        assert job.wait(p, timeout=60) and not job.pending(p)
        prog = job.progress(p)
        assert (prog.done, prog.total, prog.exact, prog.eta_s) == (4, 4, True, 0.0)
        assert prog.elapsed_s > 0
    job.close()
    with pytest.raises(ValueError, match="package"):
        job.progress("ordinal")


def test_a_waiting_fit_moves_its_package_to_the_front():
    job = BackgroundCompile(["sopopo", "sign", "ranksvm", "m3l"], 1)   # not started
    job.prioritize("m3l")
    assert job._queue == ["m3l", "sopopo", "sign", "ranksvm"]
    assert job.progress("m3l").queued and job.pending("m3l")


def test_the_time_left_comes_from_the_rate_measured_so_far(monkeypatch):
    job = BackgroundCompile(["sopopo", "sign"], 1, {"sopopo": 10, "sign": 4})
    now = time.perf_counter()
    monkeypatch.setattr(time, "perf_counter", lambda: now)
    s = job._state["sopopo"]
    s.status, s.started, s.done, s.total = "running", now - 6.0, 3, 10
    job._queue.remove("sopopo")
    # 3 kernels in 6 s: 7 more take 14 s; sign (4 kernels at 2 s each) starts after them
    assert job.progress("sopopo").eta_s == pytest.approx(14.0)
    assert job.progress("sign").eta_s == pytest.approx(14.0 + 8.0)
    assert job.progress("sign").queued
    # before 3 kernels of its own, a package's time left comes from the session's rate
    s.done = 1
    job._state["sign"].status = "done"
    job._state["sign"].started, job._state["sign"].ended = now - 20.0, now - 12.0
    job._queue.remove("sign")
    # measured: sign 8 s for 4 kernels, sopopo 6 s for 1: 14 s / 5 kernels
    assert job.progress("sopopo").eta_s == pytest.approx(14.0 / 5 * 9)


def test_a_worker_that_dies_fails_its_packages_and_nobody_hangs(monkeypatch):
    monkeypatch.setattr(subprocess, "Popen", _fake_worker("import sys; sys.exit(3)"))
    job = BackgroundCompile(["sopopo", "sign"], 1).start()
    assert job.wait("sopopo", timeout=60) is False
    assert job.wait("sign", timeout=60) is False
    assert job._state["sopopo"].error and job._state["sign"].error == "no worker left"


def test_a_worker_error_is_reported_and_the_others_go_on(monkeypatch):
    script = FAKE.replace('    print("a stray line of the solver", flush=True)\n',
                          '    if name == "sign":\n'
                          '        print("@polyrank-compile error sign ValueError: boom", '
                          'flush=True); continue\n')
    monkeypatch.setattr(subprocess, "Popen", _fake_worker(script))
    job = BackgroundCompile(["sign", "m3l"], 1).start()
    assert job.wait("sign", timeout=60) is False
    assert job._state["sign"].error == "ValueError: boom"
    assert job.wait("m3l", timeout=60) is True


class _FakeJob:
    """A background compile of ``package`` that ends when ``release`` is set."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.release = threading.Event()
        self.waited = threading.Event()

    def pending(self, package):
        return package == self.package and not self.release.is_set()

    def prioritize(self, package):
        pass

    def progress(self, package):
        return CompileProgress(package, 2, 7, True, 1.0, 3.0)

    def wait(self, package, timeout=None):
        self.waited.set()
        return self.release.wait(timeout)


def _sign_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_a_fit_waits_for_the_worker_and_shows_the_line_on_stderr(monkeypatch, capsys):
    from polyrank import SignConstrainedClassifier

    # notebooks/conftest.py turns the bars off for the whole session (nbval)
    monkeypatch.setenv("POLYRANK_PROGRESS", "1")
    job = _FakeJob("sign")
    monkeypatch.setattr(_compile_notice, "_CURRENT", job)
    X, y = _sign_data()
    order = []
    threading.Timer(1.5, lambda: (order.append("compiled"), job.release.set())).start()
    SignConstrainedClassifier(random_state=0).fit(X, y)
    order.append("fitted")
    assert job.waited.is_set() and order == ["compiled", "fitted"]
    err = capsys.readouterr().err
    assert f"{HEAD}: 2 of 7, ~3 s left" in err


def test_inside_a_notice_of_its_own_package_the_fit_only_waits(monkeypatch, capsys):
    from polyrank import SignConstrainedClassifier

    job = _FakeJob("sign")
    job.release.set()                          # nothing pending: nothing to say
    monkeypatch.setattr(_compile_notice, "_CURRENT", job)
    msgs: list[str] = []
    X, y = _sign_data()
    with CompileNotice("sign", msgs.append) as notice:
        SignConstrainedClassifier(random_state=0).fit(X, y)
    assert not notice.compiling and msgs == []
    assert "compiling" not in capsys.readouterr().err


def test_the_notice_of_a_widget_gets_the_background_lines(monkeypatch):
    job = _FakeJob("m3l")
    monkeypatch.setattr(_compile_notice, "_CURRENT", job)
    msgs: list[str] = []
    with CompileNotice("m3l", msgs.append, interval_s=0.05) as notice:
        assert notice.compiling
        threading.Timer(0.3, job.release.set).start()
        assert notice.wait()
    assert msgs[0].startswith("compiling the numba kernels of polyrank.m3l (first use only")
    assert msgs[-1].startswith("compiled the numba kernels of polyrank.m3l in ")


def test_no_guard_outside_the_solver_packages():
    with compile_guard(object()):
        pass
    with CompileNotice(None, print) as notice:
        pass
    assert not notice.compiling
    with pytest.raises(ValueError, match="package"):
        CompileNotice("nope")


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="packages"):
        compile_in_background(["sopopo", "nope"])
    with pytest.raises(ValueError, match="packages"):
        compile_in_background("sopopo")
    with pytest.raises(ValueError, match="n_jobs"):
        compile_in_background(n_jobs=0)


def _run(code: str, cache) -> subprocess.CompletedProcess:
    env = dict(__import__("os").environ, NUMBA_CACHE_DIR=str(cache), POLYRANK_PROGRESS="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=900, check=True)


FIT_ORDINAL = ("from polyrank.ordinal import make_instance; from polyrank import "
               "OrdinalMarginRanker; X, y = make_instance(40, 1, separable=False); "
               "OrdinalMarginRanker(c=10.0).fit(X, y)")


@pytest.mark.slow           # compiles the ordinal kernels into an empty cache (10-70 s)
def test_a_cold_fit_waits_for_its_worker_then_a_warm_one_says_nothing(tmp_path):
    cold = _run("from polyrank.compiling import compile_in_background as c; "
                "job = c(['ordinal'], verbose=True); " + FIT_ORDINAL + "; "
                "print(job.progress('ordinal'))", tmp_path)
    assert "compiling the numba kernels of ordinal in 1 background processes" in cold.stdout
    assert ("compiling the numba kernels of polyrank.ordinal (first use only; cached for "
            "later sessions): ") in cold.stderr
    counts = [(int(k), int(n)) for k, n in re.findall(r": (\d+) of (\d+)", cold.stderr)]
    assert counts and all(0 <= k <= n for k, n in counts)      # "k of n", never "up to"
    assert "exact=True" in cold.stdout and "queued=False" in cold.stdout
    warm = _run("from polyrank.compiling import compile_in_background as c; "
                "job = c(['ordinal'], verbose=True); " + FIT_ORDINAL + "; "
                "print(job.packages)", tmp_path)
    assert warm.stdout.strip() == "()" and "compiling" not in warm.stderr


@pytest.mark.slow           # compiles the ordinal kernels a fit calls into an empty cache
def test_a_fit_that_compiles_itself_says_so_once(tmp_path):
    first = _run(FIT_ORDINAL + "; " + FIT_ORDINAL.split("; ")[-1], tmp_path)
    lines = [s for s in first.stderr.replace("\r", "\n").splitlines() if "compiling" in s]
    assert lines and all("polyrank.ordinal (first use only" in s and " compiled, " in s
                         for s in lines)
    again = _run(FIT_ORDINAL, tmp_path)
    assert "compiling" not in again.stderr


def test_when_the_worker_fails_the_fit_reports_its_own_compile(monkeypatch):
    from polyrank._jit import kernel_dispatchers

    job = _FakeJob("sign")
    job.wait = lambda package, timeout=None: False          # the worker died
    monkeypatch.setattr(_compile_notice, "_CURRENT", job)
    msgs: list[str] = []
    with CompileNotice("sign", msgs.append, interval_s=10) as notice:
        assert notice.compiling                              # the worker's line
        assert notice.wait() is False
        assert not notice.compiling and notice._counter is not None
        notice._counter.start(kernel_dispatchers("sign")[0])   # a kernel compiles here
        assert notice.compiling
    assert ": 0 compiled, " in msgs[-2] and msgs[-1].startswith("compiled the numba kernels")


def test_solver_lab_says_it_waits_for_the_compile_in_its_status_line(monkeypatch):
    """The widget's own cell shows the compile (its status line), and its fit
    time says the compile was in it."""
    from polyrank import SignConstrainedClassifier
    from polyrank_widgets import SolverLab

    job = _FakeJob("sign")
    monkeypatch.setattr(_compile_notice, "_CURRENT", job)
    X, y = _sign_data()
    lab = SolverLab(SignConstrainedClassifier(random_state=0), X, y, params={}, views=False)
    assert job.waited.wait(60)
    seen = lab.readout.value
    job.release.set()
    assert lab.wait(120) and lab.estimator_ is not None
    assert f"{HEAD}: 2 of 7, ~3 s left" in seen
    assert "(with numba&#x27;s compile, first use only)" in lab.readout.value or \
        "(with numba's compile, first use only)" in lab.readout.value
