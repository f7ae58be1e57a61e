"""sign-constrained-sdca-pegasos.txt, Sec. 6: the bundled phishing data,
PRBEP, ``polyrank reproduce sign-convergence`` / ``sign-small-sample`` and
``polyrank bench sign`` on small configurations (properties of the results,
never timings)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from polyrank.cli import main
from polyrank.datasets import breast_cancer_signs, data_path, load_phishing, load_w8a
from polyrank.metrics import prbep
from polyrank_paper import (
    BENCHES,
    EXPERIMENTS,
    sign_convergence,
    sign_fig2,
    sign_small_sample,
)


def test_phishing_is_byte_identical_and_loads():
    raw = data_path("phishing", "phishing").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == (
        "0b0ca40e17bc95e909bfa587c408bf69904571ace01dea26e34cafc464f2da93")
    X, y = load_phishing()
    assert X.shape == (11055, 68) and X.nnz == 331650
    assert (y == 1).sum() == 6157 and (y == -1).sum() == 4898
    assert np.allclose(np.asarray(X.multiply(X).sum(axis=1)).ravel(), 1.0, atol=1e-4)


def _prbep_brute(y, s):
    """Mean precision of the top p over every order of the tied scores."""
    from itertools import permutations

    p = int((np.asarray(y) > 0).sum())
    vals = []
    for perm in permutations(range(len(s))):
        order = sorted(perm, key=lambda i: -s[i])        # stable: ties in perm's order
        vals.append(np.mean(np.asarray(y)[order[:p]] > 0))
    return float(np.mean(vals))


def test_prbep_against_brute_force_including_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = rng.choice([-1, 1], size=6)
        if (y > 0).sum() in (0, y.size):    # prbep needs both classes
            y[:2] = [1, -1]
        s = rng.integers(0, 3, size=6).astype(float)       # many ties
        assert prbep(y, s) == pytest.approx(_prbep_brute(y, s), abs=1e-12)
    assert prbep([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.2]) == 1.0
    assert prbep([0, 1, 1, 0], [0.9, 0.1, 0.2, 0.8]) == 0.0
    with pytest.raises(ValueError, match="at least one positive"):
        prbep([0, 0], [1.0, 2.0])
    with pytest.raises(ValueError, match="equal length"):
        prbep([0, 1], [1.0])
    with pytest.raises(ValueError, match="scores: contains NaN"):
        prbep([0, 1], [1.0, np.nan])


def test_w8a_is_the_documented_file_and_loads():
    import gzip

    raw = gzip.decompress(data_path("w8a", "w8a.gz").read_bytes())
    assert hashlib.sha256(raw).hexdigest() == (
        "b464b4f6ce6a5d9e181ffc793e19a04751036273722312398ef7673705014902")
    X, y = load_w8a()
    assert X.shape == (49749, 300) and X.nnz == 579586
    assert (y == 1).sum() == 1479 and (y == -1).sum() == 48270
    assert set(np.unique(X.data)) == {1.0}
    assert (np.diff(X.indptr) == 0).sum() == 4203               # rows without a feature


def test_sign_fig2_small():
    """Issue 19: Fig. 2 on both data sets at hand, the signs-free control and
    the per-update comparison of the mini-batch sizes."""
    res = sign_fig2(n_sub=300, epochs=10, seed=2)
    s = res.summary
    assert set(s.runs) == {"w8a", "phishing", "phishing, c = 0"}
    assert {r.data for r in res.rows} == set(s.runs)
    assert s.runs["w8a"].n == 300 and s.runs["phishing, c = 0"].signs == "none"
    assert s.runs["phishing, c = 0"].n_signs_active == 0
    for name, run in s.runs.items():
        assert run.reference_agreement < 1e-7
        pu = s.per_update[name]
        assert pu.updates == 10 * 300 // 100 and pu.epochs_small == 1
        # the same updates from different batch sizes: both are real gaps
        assert pu.gap_small >= -1e-9 and pu.gap_big >= -1e-9
    assert len(res.figure.data) == 9                         # 3 solvers x 3 panels
    assert any("mini-batch size" in n for n in res.notes)
    json.dumps(res.summary_record(), allow_nan=False)
    with pytest.raises(ValueError, match="^dataset"):
        sign_convergence(dataset="covtype")
    with pytest.raises(ValueError, match="^signs"):
        sign_convergence(signs="random", n_sub=50, epochs=1)


def test_registered():
    assert {"sign-convergence", "sign-fig2", "sign-small-sample"} <= set(EXPERIMENTS)
    assert "sign" in BENCHES


def test_sign_convergence_small():
    res = sign_convergence(n_sub=400, epochs=12, seed=1)
    assert len(res.figure.data) == 3                        # SC-Pega k=10, 100, SC-SDCA
    s = res.summary
    assert s.n == 400 and s.lam == 1 / 400 and s.smoothing == 0.01
    # the two independent references agree; SDCA certifies P(w*) from below
    assert s.reference_agreement < 1e-7
    sdca = [r for r in res.rows if r.solver == "SC-SDCA"]
    assert len(sdca) == 12 and len(res.rows) == 36
    assert all(r.primal_gap >= -1e-9 for r in res.rows)        # nobody beats P(w*)
    assert sdca[-1].primal - sdca[-1].duality_gap <= s.p_star + 1e-9
    assert sdca[-1].duality_gap < sdca[0].duality_gap
    fin = s.final_primal_gap
    assert fin["SC-SDCA"] < fin["SC-Pega (k=10)"] and fin["SC-SDCA"] < fin["SC-Pega (k=100)"]
    assert s.n_signs_active > 0                                  # the signs bind


def test_breast_cancer_signs_come_from_names_only():
    from sklearn.datasets import load_breast_cancer

    names = list(load_breast_cancer().feature_names)
    c = breast_cancer_signs(names)
    assert c.sum() == 14 and set(np.unique(c)) == {0.0, 1.0}
    assert c[names.index("mean radius")] == 1 and c[names.index("radius error")] == 0
    assert c[names.index("worst fractal dimension")] == 0


@pytest.mark.slow
def test_sign_small_sample_small():
    res = sign_small_sample(trials=6, n_jobs=1, seed=2)
    assert [t.type for t in res.figure.data] == ["histogram"] * 2
    s = res.summary
    assert len(res.rows) == 6 and s.trials == 6 and len(s.signs) == 14
    for r in res.rows:
        for k in ("roc_sc", "roc_svm", "prbep_sc", "prbep_svm"):
            assert 0.0 <= getattr(r, k) <= 1.0
        assert r.roc_diff == pytest.approx(r.roc_sc - r.roc_svm)
        assert max(r.gap_sc, r.gap_svm) <= 1e-6
    for key in ("roc_counts", "prbep_counts"):
        assert sum(vars(getattr(s, key)).values()) == 6
    # the same seeds give the same trials with two workers
    par = sign_small_sample(trials=6, n_jobs=2, seed=2)
    assert par.rows == res.rows


def test_bench_sign_cli_json(capsys):
    assert main(["bench", "sign", "--quick", "--json"]) == 0
    captured = capsys.readouterr()
    s = json.loads(captured.out)
    assert s["bench"] == "sign" and s["repeats"] == 1 and s["n"] == 11055
    assert s["lbfgsb_reached_target"] is True and s["sdca_gap"] <= 1e-6
    assert s["lbfgsb_primal"] <= s["sdca_primal"]
    assert s["ratio"] == pytest.approx(s["lbfgsb_time_s"] / s["sdca_time_s"])
    assert s["ratio_shrinking"] == pytest.approx(s["shrinking_lbfgsb_time_s"]
                                                 / s["shrinking_time_s"])
    assert s["target_met_alg2"] == (s["ratio"] > 1)
    assert s["target_met"] == (max(s["ratio"], s["ratio_shrinking"]) > 1)
    assert s["shrinking_gap"] <= 1e-6 and s["layout"] == "dense"
    # shrinking: far fewer coordinate steps than Alg. 2's epochs (counts, not times)
    assert s["shrinking_steps_per_n"] < 0.5 * s["sdca_epochs"]
    assert "SC-SDCA + shrinking" in captured.err and "than L-BFGS-B" in captured.err


@pytest.mark.slow
def test_reproduce_cli_small_sample(tmp_path, capsys):
    assert main(["reproduce", "sign-small-sample", "--quick", "--no-progress", "--json",
                 "--out", str(tmp_path)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["trials"] == 100 and s["quick"] is True
    assert (tmp_path / "sign-small-sample.csv").exists()
    assert (tmp_path / "sign-small-sample.html").exists()
