"""Issue 17, item 3 and issue 34, item 1: a stored notebook shows its
figures without a kernel, one output per figure. Every output that draws a
widget or a plotly figure carries a static PNG in the same MIME bundle (no
separate snapshot output), and ``jupyter nbconvert --to html`` (no
execution) turns them into images; widget state (megabytes) is never
committed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from polyrank_widgets._display import stored_png

pytestmark = pytest.mark.slow

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))
#: every notebook leaves static images
STATIC = [p.stem for p in NOTEBOOKS]


#: what a polyrank widget's stored output says in text (WidgetDisplay)
WIDGET_TEXT = "an interactive widget"


def _is_widget(data) -> bool:
    return ("widget-view" in " ".join(data)
            or WIDGET_TEXT in "".join(data.get("text/plain", "")))


def _figure_outputs(nb):
    """(cell index, MIME types) of every output that draws a widget or a
    plotly figure (a stored widget output keeps its PNG and its text only:
    tools/execute_notebooks.py)."""
    out = []
    for i, cell in enumerate(nb["cells"]):
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if _is_widget(data) or any("plotly" in k for k in data):
                out.append((i, set(data)))
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_widget_state_committed(path):
    nb = json.loads(path.read_text())
    assert "widgets" not in nb["metadata"], "strip metadata.widgets before committing"


#: the most bytes a stored notebook may take (issue 32, item 6)
MAX_NOTEBOOK_BYTES = 250_000


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_small(path):
    size = path.stat().st_size
    assert size <= MAX_NOTEBOOK_BYTES, (
        f"{path.name}: {size:,} bytes > {MAX_NOTEBOOK_BYTES:,} (static images are reduced "
        "by polyrank_widgets._display.compact_png; re-run tools/execute_notebooks.py)")


def test_compact_png_keeps_the_picture_at_fewer_bytes():
    import io

    from PIL import Image

    from polyrank_widgets._display import compact_png

    y, x = np.mgrid[0:200, 0:300]
    rgb = np.zeros((200, 300, 3), np.uint8) + 255
    rgb[(x // 30 + y // 40) % 3 == 0] = (31, 119, 180)          # plotly's blue
    rgb[np.abs(y - 0.5 * x) < 2] = (255, 127, 14)               # an orange line
    noise = np.random.default_rng(0).integers(0, 3, rgb.shape, dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(rgb - noise * (rgb > 2)).save(buf, format="PNG")
    small = compact_png(buf.getvalue(), colors=16)
    out = Image.open(io.BytesIO(small))
    assert out.mode == "P" and out.size == (300, 200) and len(small) < len(buf.getvalue()) / 2
    back = np.asarray(out.convert("RGB"), dtype=int)
    assert np.abs(back - rgb).max() <= 16                        # colours kept within noise
    with pytest.raises(ValueError, match="colors"):
        compact_png(buf.getvalue(), colors=1)


@pytest.mark.parametrize("name", STATIC)
def test_every_figure_output_carries_its_png(name):
    nb = json.loads((NOTEBOOKS[0].parent / f"{name}.ipynb").read_text())
    figures = _figure_outputs(nb)
    assert figures, "no figure output found"
    # a paper figure (FluidFigure) stores its PNG as an <img> in text/html, which
    # JupyterLab's plotly renderer ignores and kernel-less renderers show
    missing = [i for i, kinds in figures if not kinds & {"image/png", "text/html"}]
    assert not missing, f"cells {missing} draw a figure but store no PNG with it"
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if any("plotly" in k for k in data) and "text/html" in data:
                assert "image/png" not in data and stored_png(data) is not None
    # one output per figure: no PNG stands alone next to a live figure
    alone = [i for i, cell in enumerate(nb["cells"]) for o in cell.get("outputs", [])
             if set(o.get("data", {})) == {"image/png", "text/plain"}
             and not _is_widget(o["data"])]
    assert not alone, f"cells {alone} store a PNG apart from its figure"
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            # no widget view without its state: JupyterLab would show "model not
            # found" where the stored picture belongs
            assert "application/vnd.jupyter.widget-view+json" not in data
            # without a kernel the text of a widget is one short line, not its repr
            if _is_widget(data):
                text = "".join(data["text/plain"])
                assert WIDGET_TEXT in text and "children=" not in text


@pytest.mark.parametrize("name", STATIC)
def test_static_html_export_shows_the_images(name, tmp_path):
    path = NOTEBOOKS[0].parent / f"{name}.ipynb"
    nb = json.loads(path.read_text())
    n_png = sum(stored_png(o.get("data", {})) is not None
                for c in nb["cells"] for o in c.get("outputs", []))
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html",
                    "--output-dir", str(tmp_path), str(path)], check=True,
                   capture_output=True)
    html = (tmp_path / f"{name}.html").read_text()
    # every stored PNG becomes an <img> in the page
    assert html.count('src="data:image/png;base64,') >= n_png >= len(_figure_outputs(nb))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_nbval_markers_are_recognised(path):
    """nbval reads a marker only when the comment is exactly the marker:
    ``# NBVAL_IGNORE_OUTPUT  (why)`` is silently ignored and the cell's
    output checked; the reason goes on a comment line of its own."""
    from nbval.plugin import comment_markers, find_comment_markers

    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        named = [ln.strip() for ln in source.splitlines()
                 if ln.strip().startswith("#") and "NBVAL_" in ln]
        found = list(find_comment_markers(source))
        assert len(found) == len(named), (
            f"cell {i}: {named} is not an nbval marker "
            f"(one of {sorted(comment_markers)}, alone on its comment line)")
