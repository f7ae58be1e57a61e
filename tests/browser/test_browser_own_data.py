"""The site's own-data walk-through in JupyterLab, on a file that is not
bundled (issue 43, its done criterion).

The test writes a small ordinal CSV of its own (300 rows, 4 features on
different scales, grades 1..5 cut from a noisy linear score: a fixed seed,
real structure, so the model beats predicting the median grade) into a
fresh folder of the test server, next to a notebook built from the
```` ```python ```` blocks of ``docs/user_guide/ordinal.md`` ("On real data":
"... to stand for your own"), extracted by the parser of
``tests/docs/test_docs_code.py`` (one block, one cell, in the page's order).
The page's code is used as written except the file name: every
``winequality-red`` becomes ``my-grades`` (so ``my-grades.csv`` is read and
``my-grades.svm`` written and read back); the page's ``bash`` block
(``polyrank datasets copy``) is left out, the test's file takes its place.

In Chromium, as a person would: Run -> Run All Cells, then the page must
show the data loaded (the shape printed), the held-out MAE better than the
median grade's, SolverLab on ``make_pipeline(StandardScaler(),
OrdinalMarginRanker())`` with a fitted status and the named metric "(lower
is better)", a refit with a new readout after the ``c`` slider is moved with
the keyboard (each readout's test MAE equal to the same pipeline fitted at
the slider's ``c`` in the test's own process), and the OrdinalDisplay's
plotly figure drawn, its confusion matrix counting every held-out row.
Screenshots: ``test-artifacts/browser/own_data-*.png``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
from docs.test_docs_code import DOCS, blocks

from .lab import poll

PAGE = DOCS / "user_guide" / "ordinal.md"
#: the bundled file's stem on the page, and the test's own file's
BUNDLED, OWN = "winequality-red", "my-grades"
N_ROWS, N_GRADES, TEST_SIZE = 300, 5, 0.3
_poll = partial(poll, timeout_s=120.0)


def write_grades_csv(path: Path, seed: int = 43) -> np.ndarray:
    """Write an ordinal CSV (header ``f1..f4,quality``; grades 1..5 from the
    quintiles of a noisy linear score of the features, which have scales 1
    to 1000) atomically; returns the grades, shape (N_ROWS,)."""
    rng = np.random.default_rng(seed)
    scales = np.array([1.0, 10.0, 100.0, 1000.0])
    Z = rng.normal(size=(N_ROWS, 4))
    score = Z @ np.array([1.0, -0.8, 0.6, 0.0]) + 0.3 * rng.normal(size=N_ROWS)
    grades = 1 + np.searchsorted(np.quantile(score, [0.2, 0.4, 0.6, 0.8]), score)
    X = Z * scales + np.array([0.0, 5.0, -50.0, 300.0])
    lines = ["f1,f2,f3,f4,quality"] + [
        ",".join(f"{v:.6g}" for v in row) + f",{g}" for row, g in zip(X, grades)]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return grades


def write_page_notebook(path: Path) -> list[str]:
    """Write a notebook of the page's python blocks, the file name
    substituted (atomically); returns the cells' sources."""
    sources = [b.code.replace(BUNDLED, OWN) for b in blocks(PAGE) if b.action == "python"]
    assert sum(OWN in s for s in sources) >= 2, "the page no longer reads a file by name"
    assert not any("winequality" in s for s in sources), "the page uses bundled data"
    md = f"The python blocks of `docs/user_guide/ordinal.md`, `{BUNDLED}` -> `{OWN}`."
    cells = [{"cell_type": "markdown", "metadata": {}, "source": md}] + [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": s.rstrip("\n")} for s in sources]
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3",
                                                      "display_name": "Python 3",
                                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return sources


def held_out_mae(csv: Path, c: float) -> float:
    """The page's split and pipeline at ``c``, fitted in this process: the
    test MAE the lab's readout must show for that ``c``."""
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from polyrank import OrdinalMarginRanker
    from polyrank.io import read_csv

    data = read_csv(csv, "quality")
    X_train, X_test, y_train, y_test = train_test_split(
        data.X, data.y, test_size=TEST_SIZE, stratify=data.y, random_state=0)
    model = make_pipeline(StandardScaler(), OrdinalMarginRanker(c=c)).fit(X_train, y_train)
    return float(mean_absolute_error(y_test, model.predict(X_test)))


def settled(nb, box, before: str) -> str:
    """The lab's readout once a fit has ended (a new readout, not fitting)."""
    return _poll(lambda: nb.html_text(box),
                 lambda t: t != before and "fitting" not in t and "is better)" in t,
                 "the lab's readout after the fit")


def _printed_numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?", text)]


def check_display(nb, artifacts: Path, mae: float) -> None:
    """The OrdinalDisplay's plotly figure is drawn and visible, counts every
    held-out row once and shows the MAE the first block printed."""
    disp = nb.figure("examples; lower is better")
    assert disp.locator.locator("svg.main-svg").first.is_visible()
    heat = next(t for t in disp.traces() if t["z"])
    n_test = int(round(TEST_SIZE * N_ROWS))
    assert int(np.sum(heat["z"])) == n_test
    shown = re.search(rf"mean absolute error (\S+) over {n_test} examples", disp.title())
    assert shown and abs(float(shown[1]) - mae) < 1e-3, (disp.title(), mae)
    nb.screenshot(artifacts / "own_data-display.png", disp.locator)
    nb.assert_no_errors()


def test_own_data_page_in_jupyterlab(lab, page, artifacts):
    folder = Path(tempfile.mkdtemp(prefix="own-data-", dir=lab.root_dir))
    grades = write_grades_csv(folder / f"{OWN}.csv")
    write_page_notebook(folder / "own_data.ipynb")
    trivial = float(np.mean(np.abs(grades - np.median(grades))))   # predict the median

    nb = lab.open(page, f"{folder.name}/own_data.ipynb")
    nb.run_all()
    nb.screenshot(artifacts / "own_data-page.png")

    # the data loaded: the shape and grades read from the test's own file
    loaded = nb.stdout(nb.find_cell("read_csv("))
    assert f"({N_ROWS}, 4) [1.0, 2.0, 3.0, 4.0, 5.0]" in loaded, loaded
    mae = float(re.search(r"^\s*(\d+\.\d+)\s*$", loaded, re.M)[1])    # the held-out MAE
    assert 0 < mae < 0.6 * trivial, (mae, trivial)
    assert f"({N_ROWS}, 4)" in nb.stdout(nb.find_cell("read_svmlight("))

    # SolverLab on the pipeline: fitted, the metric named with its direction
    gap = nb.figure("StandardScaler → OrdinalMarginRanker: duality gap")
    box = gap.widget
    before = settled(nb, box, "")
    assert re.search(r"status\s+(converged|fitted)\b", before), before
    metric = re.search(r"test (.+\((lower|higher) is better\))\s+(\S+)", before)
    assert metric and "lower is better" in metric[1], before
    printed = nb.stdout(nb.find_cell("SolverLab("))
    assert metric[1].split(" (")[0] in printed, (printed, before)
    assert abs(float(metric[3]) - _printed_numbers(printed)[-1]) < 1e-3, (printed, before)
    c = nb.slider("c", within=box)
    c_before = c.value_text()       # the estimator's own c (None: 0.02 for linear SVOR)
    assert abs(float(metric[3]) - held_out_mae(folder / f"{OWN}.csv", float(c_before))) < 1e-3
    nb.screenshot(artifacts / "own_data-lab-before.png", box)

    # one slider moved as a person would: a refit, a new readout
    c_after = c.press("ArrowLeft", 20)
    assert c_after != c_before and float(c_after) < float(c_before), (c_before, c_after)
    want = f"(lower is better) {held_out_mae(folder / f'{OWN}.csv', float(c_after)):.4g}"
    after = _poll(lambda: settled(nb, box, before), lambda t: want in " ".join(t.split()),
                  f"the readout of the refit at c = {c_after}: ...{want}")
    assert re.search(r"status\s+(converged|fitted)\b", after), after
    assert after != before
    nb.screenshot(artifacts / "own_data-lab-after.png", box)

    check_display(nb, artifacts, mae)
