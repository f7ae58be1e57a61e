"""The gallery's notebooks, their script versions and their thumbnails.

As a Sphinx extension (``builder-inited``): the committed notebooks of
``notebooks/`` are copied into ``docs/gallery/`` (a Sphinx source must lie
under ``docs/``; the copies are not committed) and each gets a plain Python
script version beside it (``gallery/NAME.py``, by nbconvert's
``PythonExporter``: the code cells in order, the Markdown cells as comments;
nothing is executed), which the gallery's cards offer for download with the
``.ipynb``.  Both are rewritten only when the notebook changed.

As a script (``python docs/_ext/polyrank_gallery.py``): the thumbnail of each
notebook, ``docs/_static/thumbnails/NAME.png`` (committed), made once from a
figure the notebook stores: the PNG of a widget or the plotly figure of a
reproduction (drawn by kaleido, which uses the Chromium named by
``$BROWSER_PATH``), fitted into :data:`THUMB_SIZE` on white.  Run it again
after re-executing a notebook whose figure changed; ``tests/docs/test_examples.py``
checks that every notebook and every example has its thumbnail.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from polyrank._files import write_bytes

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent
REPO = DOCS.parent
NOTEBOOKS = REPO / "notebooks"
THUMBNAILS = DOCS / "_static" / "thumbnails"
#: (width, height) of every thumbnail, in pixels (twice the card's width on screen)
THUMB_SIZE = (480, 300)
#: notebook -> a piece of the source of the code cell whose stored figure is its thumbnail
FIGURE_CELLS = {
    "00_tour": "KnotExplorer.paper_fig4",
    "01_sopopo_label_ranking": "replay(model.result_.trace)",
    "02_sopopo_reproduction": "fig8.figure",
    "03_sign_constraints": "fig2.figure",
    "04_ranksvm": "ResultView(fig4)",
    "05_ordinal_rcg": "curves.figure",
    "06_m3l_zero_shot": "fig5.figure",
}
PLOTLY_MIME = "application/vnd.plotly.v1+json"


def notebook_paths() -> list[Path]:
    """The notebooks of the gallery, in their order (``notebooks/NN_*.ipynb``).

    Returns
    -------
    list of pathlib.Path
        The committed notebooks, sorted by name.
    """
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def stored_figure(notebook: Path) -> tuple[str, object]:
    """The stored figure of the notebook's thumbnail cell (:data:`FIGURE_CELLS`).

    Parameters
    ----------
    notebook : pathlib.Path
        A notebook of ``notebooks/`` named in :data:`FIGURE_CELLS`.

    Returns
    -------
    (str, object)
        ``("image/png", base64 text)`` or ``(PLOTLY_MIME, the figure's JSON dict)``: the
        first output of the cell holding either.

    Raises
    ------
    ValueError
        The notebook is not in :data:`FIGURE_CELLS`, or no code cell holds its
        piece of source, or that cell stores no PNG and no plotly figure.
    """
    marker = FIGURE_CELLS.get(notebook.stem)
    if marker is None:
        raise ValueError(f"notebook {notebook.name} has no entry in FIGURE_CELLS")
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "code" and marker in "".join(cell["source"]):
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                for mime in ("image/png", PLOTLY_MIME):
                    if mime in data:
                        return mime, data[mime]
            raise ValueError(f"notebook {notebook.name}: the cell of {marker!r} stores no "
                             "figure (re-execute the notebook, tools/execute_notebooks.py)")
    raise ValueError(f"notebook {notebook.name}: no code cell contains {marker!r}")


def thumbnail_png(mime: str, payload) -> bytes:
    """A thumbnail (PNG bytes, :data:`THUMB_SIZE`) of a stored figure.

    Parameters
    ----------
    mime : str
        ``"image/png"`` (``payload`` is base64 text) or :data:`PLOTLY_MIME`
        (``payload`` is the figure's JSON dict, drawn by kaleido at 960 x 600).
    payload : str or dict
        The stored output's data.

    Returns
    -------
    bytes
        The image scaled to fit :data:`THUMB_SIZE`, centred on white.
    """
    from PIL import Image

    if mime == PLOTLY_MIME:
        import plotly.io as pio

        figure = pio.from_json(json.dumps(payload))
        raw = figure.to_image(format="png", width=960, height=600)
    else:
        raw = base64.b64decode(payload)
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    image.thumbnail(THUMB_SIZE, Image.Resampling.LANCZOS)
    canvas = Image.new("RGB", THUMB_SIZE, "white")
    canvas.paste(image, ((THUMB_SIZE[0] - image.width) // 2,
                         (THUMB_SIZE[1] - image.height) // 2))
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=True)
    return out.getvalue()


def write_thumbnails() -> list[Path]:
    """Write ``docs/_static/thumbnails/NAME.png`` for every notebook (atomically).

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    THUMBNAILS.mkdir(parents=True, exist_ok=True)
    written = []
    for notebook in notebook_paths():
        mime, payload = stored_figure(notebook)
        written.append(write_bytes(THUMBNAILS / f"{notebook.stem}.png",
                                   thumbnail_png(mime, payload)))
    return written


def _write_if_changed(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` unless it holds them already (keeps Sphinx's
    incremental builds incremental)."""
    if not path.exists() or path.read_bytes() != data:
        write_bytes(path, data)


def copy_notebooks(app) -> None:
    """``builder-inited``: copy the notebooks into ``gallery/`` with their script
    versions (``gallery/NAME.py``), each rewritten only when it changed.

    Parameters
    ----------
    app : sphinx.application.Sphinx
        The application being built.
    """
    from nbconvert import PythonExporter

    out = Path(app.srcdir) / "gallery"
    exporter = PythonExporter()
    for notebook in notebook_paths():
        copy, script = out / notebook.name, out / f"{notebook.stem}.py"
        if copy.exists() and script.exists() and copy.read_bytes() == notebook.read_bytes():
            continue
        text, _ = exporter.from_filename(str(notebook))
        _write_if_changed(script, text.encode("utf-8"))
        _write_if_changed(copy, notebook.read_bytes())


def setup(app):
    """Register :func:`copy_notebooks` (run before the sources are read).

    Parameters
    ----------
    app : sphinx.application.Sphinx
        The application being built.

    Returns
    -------
    dict
        The extension's metadata (safe for parallel reading).
    """
    app.connect("builder-inited", copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    for path in write_thumbnails():
        print(path.relative_to(REPO))
