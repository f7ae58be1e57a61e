"""The lean install (``pip install polyrank``, no ``jupyter`` extra): the core,
its estimators and the command work without plotly, ipywidgets, anywidget,
JupyterLab, kaleido and pandas (the base install is what a Dask worker or a
production pipeline needs); ``import polyrank_widgets`` says which extra
it needs (issue 17, item 7).

A fresh venv per test run would cost a download; instead the packages of the
extra are made unimportable in a child process (a meta-path finder that
refuses them), which is what a lean environment looks like to the code.
"""

import subprocess
import sys
import textwrap

#: the packages of the ``jupyter`` extra (pyproject.toml)
EXTRA = ("plotly", "ipywidgets", "anywidget", "jupyterlab", "ipykernel", "kaleido", "pandas")

_BLOCK = textwrap.dedent(f"""
    import sys
    class _Lean:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {EXTRA!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
    sys.meta_path.insert(0, _Lean())
""")


def _run(code, tmp_path):
    return subprocess.run([sys.executable, "-c", _BLOCK + textwrap.dedent(code)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_core_fits_and_the_cli_run_without_the_jupyter_extra(tmp_path):
    out = _run(f"""
        import numpy as np
        from polyrank import RankSVM, SignConstrainedClassifier
        from polyrank.cli import main
        rng = np.random.default_rng(0)
        X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
        print(SignConstrainedClassifier(signs=[1, 0, 0]).fit(X, y).score(X, y) > 0.8)
        print(RankSVM().fit(X, X[:, 0].round()).coef_.shape)
        from sklearn.datasets import dump_svmlight_file
        dump_svmlight_file(X, np.where(y == 1, 1, -1), "d.svm")
        assert main(["train", "sign", "d.svm", "m.model"]) == 0
        assert main(["predict", "d.svm", "m.model", "p.txt"]) == 0
        print("modules:", sorted({{m.split(".")[0] for m in sys.modules}} & set({EXTRA!r})))
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "True" and lines[1] == "(3,)"
    assert lines[-1] == "modules: []"
    assert (tmp_path / "p.txt").read_text().count("\n") == 60


def test_widgets_without_the_extra_name_it(tmp_path):
    out = _run("import polyrank_widgets", tmp_path)
    assert out.returncode != 0
    assert "pip install 'polyrank[jupyter]'" in out.stderr


def test_reproduce_without_the_extra_writes_the_table_and_names_it(tmp_path):
    out = _run("""
        from polyrank.cli import main
        print("rc", main(["reproduce", "sign-fig2", "--quick", "--out", "o", "--no-progress"]))
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "rc 1"                  # the figure is missing
    assert "pip install 'polyrank[jupyter]'" in out.stdout + out.stderr
    assert (tmp_path / "o" / "sign-fig2.csv").is_file()          # the table is written
    assert not (tmp_path / "o" / "sign-fig2.html").exists()
