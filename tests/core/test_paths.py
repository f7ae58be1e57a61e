"""The path functions of every paper (issue 45, item 2): the grid solved
warm-started reaches, at every point, the objective of the same grid solved
cold (to the solver's tolerance); bad grids are refused naming the argument."""

import warnings

import numpy as np
import pytest

from polyrank.m3l import m3l_path
from polyrank.ordinal import ordinal_path
from polyrank.path import N_GRID, PathResult, check_grid, default_grid
from polyrank.ranksvm import ranksvm_path
from polyrank.sign import sign_path
from polyrank.sopopo import label_ranking_path


def _data():
    rng = np.random.default_rng(1)
    n, d = 300, 8
    X = rng.standard_normal((n, d))
    s = X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n)
    grades = np.digitize(s, np.quantile(s, [0.25, 0.5, 0.75]))
    Y = (X @ rng.standard_normal((d, 3)) + 0.3 * rng.standard_normal((n, 3)) > 0)
    return X, s, grades, Y.astype(int), np.repeat(np.arange(30), 10)


X, S, GRADES, Y, QID = _data()

#: name: (path function, y, keyword arguments, grid argument, grid, relative
#: objective tolerance between two fits that each met the solver's rule)
PATHS = {
    "ranksvm-l2": (ranksvm_path, GRADES, {"qid": QID}, "Cs", [0.1, 0.3, 1.0, 3.0], 1e-3),
    "ranksvm-l1": (ranksvm_path, GRADES, {"qid": QID, "loss": "l1", "random_state": 0},
                   "Cs", [0.1, 0.3, 1.0], 3e-3),
    "sign-classifier": (sign_path, S > 0, {"random_state": 0}, "lams",
                        [1e-1, 1e-2, 1e-3], 1e-4),
    "sign-regressor": (sign_path, S, {"regression": True, "random_state": 0}, "lams",
                       [1e-1, 1e-2, 1e-3], 1e-7),
    "label-ranking": (label_ranking_path, Y, {"random_state": 0}, "Cs", [0.1, 0.3, 1.0],
                      3e-3),
    "m3l": (m3l_path, Y, {"random_state": 0, "tol": 1e-4}, "Cs", [0.1, 0.3, 1.0], 1e-3),
    "svor": (ordinal_path, GRADES, {}, "cs", [0.1, 0.3, 1.0], 1e-5),
    "svor-dcd": (ordinal_path, GRADES, {"loss": "hinge", "kernel": "rbf"}, "cs",
                 [0.1, 0.3, 1.0], 1e-4),
    "paper": (ordinal_path, GRADES, {"formulation": "paper"}, "cs", [0.1, 1.0], 1e-5),
}


def _run(name, **kw):
    f, y, params, arg, grid, _ = PATHS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(X, y, **{arg: grid}, **params, **kw)


@pytest.mark.parametrize("name", sorted(PATHS))
def test_warm_and_cold_paths_reach_the_same_objectives(name):
    rtol = PATHS[name][-1]
    warm, cold = _run(name), _run(name, warm=False)
    assert isinstance(warm, PathResult)
    assert np.array_equal(warm.Cs, cold.Cs)
    assert warm.warm_start[0] == "cold: no previous fit"
    assert set(warm.warm_start[1:]) == {"used"}
    assert set(cold.warm_start) == {"cold: warm_start=False"}
    assert warm.success.all() and cold.success.all()
    np.testing.assert_allclose(warm.objectives, cold.objectives, rtol=rtol)
    assert len(warm.coefs) == warm.Cs.size == warm.n_iter.size == warm.fit_times.size
    assert warm.min_C == 0.0


def test_grids_are_solved_from_the_strongest_regularisation():
    assert _run("svor").Cs.tolist() == [0.1, 0.3, 1.0]
    f, y, params, _, _, _ = PATHS["sign-regressor"]
    path = f(X, y, lams=[1e-3, 1e-1, 1e-2], **params)
    assert path.Cs.tolist() == [1e-1, 1e-2, 1e-3] and path.param == "lam"


@pytest.mark.parametrize("bad", [[], [1.0, -1.0], [np.nan, 1.0], [0.0], [[1.0, 2.0]], "x"])
def test_bad_grids_raise_value_error_naming_the_argument(bad):
    with pytest.raises(ValueError, match="^Cs: "):
        ranksvm_path(X, GRADES, qid=QID, Cs=bad)
    with pytest.raises(ValueError, match="^lams: "):
        sign_path(X, S, regression=True, lams=bad)
    with pytest.raises(ValueError, match="^cs: "):
        ordinal_path(X, GRADES, cs=bad)


def test_the_path_sets_the_penalty_and_warm_start_itself():
    for kw in ({"C": 1.0}, {"warm_start": True}):
        with pytest.raises(TypeError, match="set by the path function"):
            label_ranking_path(X, Y, **kw)
    with pytest.raises(TypeError, match="^lam: "):
        sign_path(X, S, lam=1e-3)


def test_the_default_grid_spans_two_decades_around_the_default_penalty():
    g = default_grid(0.5)
    assert g.size == N_GRID and np.isclose(g[0], 0.05) and np.isclose(g[-1], 5.0)
    assert np.all(np.diff(g) > 0) and np.all(np.diff(default_grid(1e-3, descending=True)) < 0)
    with pytest.raises(ValueError, match="^n: "):
        default_grid(1.0, 0)
    assert check_grid([3, 1, 2]).tolist() == [1.0, 2.0, 3.0]


def test_path_result_as_a_table():
    pd = pytest.importorskip("pandas")
    table = _run("svor").to_pandas()
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns[:4]) == ["c", "objective", "dual_objective", "gap"]
    assert len(table) == 3


def test_the_example_of_docs_paths_md_runs():
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "paths.md").read_text(
        encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert blocks               # the first: the path functions (the next: the widgets)
    exec(compile(blocks[0], "docs/paths.md", "exec"), {})
