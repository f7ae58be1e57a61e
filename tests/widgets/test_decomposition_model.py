"""DecompositionModel without widgets: the state and losses behind
DecompositionViewer (sopopo-label-ranking.txt, Sec. 2, Eq. 1-3, Fig. 1-2),
and the text parsing of the viewer's boxes."""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import brute_piece_loss

from polyrank.sopopo import DECOMPOSITIONS, decompose, piece_loss
from polyrank_widgets import DecompositionViewer
from polyrank_widgets.decomposition_model import (
    DecompositionModel,
    parse_decomposition,
    parse_numbers,
)

MODEL = Path(__file__).resolve().parents[2] / "polyrank_widgets" / "decomposition_model.py"
FIG1 = (-1.0, 0.0, 2.0, 0.0, -1.0)


def test_the_model_module_imports_no_widget_library():
    tree = ast.parse(MODEL.read_text())
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods.add(node.module.split(".")[0])
    assert not mods & {"ipywidgets", "plotly", "anywidget", "IPython"}
    # and it loads and computes with those libraries made unimportable
    code = ("import sys, importlib.util\n"
            "for m in ('ipywidgets', 'plotly', 'anywidget'): sys.modules[m] = None\n"
            f"spec = importlib.util.spec_from_file_location('dm', {str(MODEL)!r})\n"
            "dm = importlib.util.module_from_spec(spec); spec.loader.exec_module(dm)\n"
            "m = dm.DecompositionModel((-1, 0, 2, 0, -1), 'adjacent_layers')\n"
            "print(m.total_loss())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "3.0"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", DECOMPOSITIONS)
def test_losses_are_the_cores_and_match_brute_force(seed, kind):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 8))
    y = rng.integers(0, 4, size=k).astype(float)
    y[0] = y.max() + 1.0
    f = rng.normal(size=k)
    m = DecompositionModel(y, kind, scores=f, normalize=bool(seed % 2))
    pieces = decompose(y, kind, normalize=bool(seed % 2))
    assert m.n_pieces == len(pieces)
    for j, p in enumerate(pieces):
        assert m.loss(j) == piece_loss(y, f, p)
        assert m.piece_loss(j) == pytest.approx(brute_piece_loss(y, f, p), abs=1e-12)
        assert m.worst_edge(j) == piece_loss(y, f, p).edge
    assert m.total_loss() == pytest.approx(sum(brute_piece_loss(y, f, p) for p in pieces))
    r, s = m.edges.T
    np.testing.assert_allclose(m.edge_violations(), (y[r] - y[s]) - (f[r] - f[s]))
    np.testing.assert_allclose(m.weights, y[r] - y[s])


def test_fig1_and_setters():
    m = DecompositionModel(FIG1, "adjacent_layers")
    assert (m.k, m.n_pieces, m.edges.shape) == (5, 2, (8, 2))
    assert [m.piece_loss(j) for j in range(2)] == [2.0, 1.0] and m.total_loss() == 3.0
    np.testing.assert_array_equal(m.in_piece(0), [e[0] == 2 and e[1] in (1, 3) for e in m.edges])
    m.select_piece(1)
    m.set_decomposition("top_vs_rest")               # d = 1: the last piece
    assert m.piece_index == 0 and m.total_loss() == 3.0
    m.set_normalize(True)
    m.set_decomposition("all_pairs")
    assert m.n_pieces == 8 and m.total_loss() == pytest.approx(np.mean(m.weights))
    m.set_scores(W=np.eye(5), x=np.array(FIG1))      # f = y: every pair satisfied
    assert m.total_loss() == 0.0 and all(v.violation == 0.0 for v in m.losses())
    m.set_y([0.0, 1.0, 2.0, 3.0, 4.0])
    assert m.n_pieces == 10


def test_custom_one_based_and_errors_change_nothing():
    m = DecompositionModel(FIG1, custom=[([3], [2, 4]), ([2, 4], [1, 5])], one_based=True)
    assert m.decomposition == "custom"
    assert [(p.A.tolist(), p.B.tolist()) for p in m.custom] == [([2], [1, 3]),
                                                                 ([1, 3], [0, 4])]
    before = (m.y, m.scores, m.decomposition, m.n_pieces, m.piece_index)
    for bad in (lambda: m.set_y([1.0, 1.0, 1.0, 1.0, 1.0]),
                lambda: m.set_y([0.0, 1.0, 2.0, 3.0, 4.0]),   # custom does not fit
                lambda: m.set_decomposition([([1], [3])], one_based=True),
                lambda: m.set_decomposition("layers"),
                lambda: m.set_scores([1.0, 2.0]),
                lambda: m.select_piece(2)):
        with pytest.raises(ValueError):
            bad()
    after = (m.y, m.scores, m.decomposition, m.n_pieces, m.piece_index)
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    assert before[2:] == after[2:]
    with pytest.raises(ValueError, match="^y:"):
        DecompositionModel("1, 2")
    with pytest.raises(TypeError, match="^normalize:"):
        DecompositionModel(FIG1, normalize=1)


def test_text_parsing():
    assert parse_numbers(" [\u22121, 0 ; 2.5] ", "y") == [-1.0, 0.0, 2.5]
    with pytest.raises(ValueError, match="^y: could not read 'x'"):
        parse_numbers("1, x", "y")
    with pytest.raises(ValueError, match="^scores: expected"):
        parse_numbers(" ", "scores")
    assert parse_decomposition("[([3], [2, 4]), ([2, 4], [1, 5])]") == [
        ([3], [2, 4]), ([2, 4], [1, 5])]
    assert parse_decomposition("([3], [2, 4], 0.5)") == [([3], [2, 4], 0.5)]
    with pytest.raises(ValueError, match="^decomposition: could not read"):
        parse_decomposition("[(3, ")
    with pytest.raises(ValueError, match="^decomposition: expected a list"):
        parse_decomposition("3")


def test_the_viewer_shows_its_model():
    v = DecompositionViewer(FIG1, "adjacent_layers", scores=[0.0, 1.0, 1.0, 0.0, 0.0])
    assert isinstance(v.model, DecompositionModel)
    assert [v.piece_loss(j) for j in range(v.n_pieces)] == [
        v.model.piece_loss(j) for j in range(v.model.n_pieces)]
    v.set_y([0.0, 1.0, 2.0, 3.0, 4.0])
    assert v.model.n_pieces == v.n_pieces == 4 and v.n_edges == len(v.model.edges) == 10
    assert v.total_loss() == v.model.total_loss()
