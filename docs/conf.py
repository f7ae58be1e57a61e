"""Sphinx configuration of the polyrank documentation site.

Build with ``make -C docs html`` (``sphinx-build -W --keep-going -n``: every
warning is an error and every cross-reference must resolve).  Nothing is
fetched from the network: the intersphinx inventories are committed under
``_intersphinx/`` (see its README) and the notebooks are rendered with their
stored outputs, never executed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import polyrank

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))

project = "polyrank"
author = "the polyrank developers"
copyright = "2026, the polyrank developers"
release = polyrank.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",      # MathJax copied into _static: the math renders offline too
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",               # the gallery's cards
    "sphinx_gallery.gen_gallery",  # the examples/ scripts as pages, never run here
    "polyrank_api",
    "polyrank_tables",
    "polyrank_gallery",            # the notebooks copied into gallery/, with script versions
]

exclude_patterns = ["_build", "_intersphinx", "_ext", "**.ipynb_checkpoints", "README.md",
                    # sphinx-gallery's notebook versions of the examples: downloads, not pages
                    "gallery/examples/*.ipynb"]
templates_path = ["_templates"]
nitpicky = True

# -- cross-references to the ecosystem: local inventories only (no network at build time) --
# each entry: (where the links point, (the committed inventory, None)); _intersphinx/README.md
# says where each file comes from
intersphinx_mapping = {
    name: (url, (f"_intersphinx/{name}.inv", None))
    for name, url in {
        "python": "https://docs.python.org/3/",
        "numpy": "https://numpy.org/doc/stable/",
        "scipy": "https://docs.scipy.org/doc/scipy/",
        "sklearn": "https://scikit-learn.org/stable/",
        "dask": "https://docs.dask.org/en/stable/",
        "pandas": "https://pandas.pydata.org/docs/",
    }.items()
}
# no inventory of these could be committed (plotly's reference is not built by Sphinx;
# none of ipywidgets or skops was found to vendor): their names are shown, unlinked
nitpick_ignore_regex = [
    ("py:.*", r"(plotly|ipywidgets|skops)(\..*)?"),
]
nitpick_ignore = [
    # newer than the committed scikit-learn inventory (1.2): validate_data is public since 1.6
    ("py:func", "sklearn.utils.validation.validate_data"),
]
# a stored output of a notebook holds either the live figure (plotly JSON, which a static page
# cannot draw) or its PNG, stored as the next output; the page shows the PNG
suppress_warnings = ["mystnb.unknown_mime_type"]

# -- autodoc and numpydoc ----------------------------------------------------------------------
autodoc_typehints = "none"              # numpydoc's Parameters sections carry the types
autodoc_member_order = "groupwise"
autodoc_inherit_docstrings = False      # scikit-learn's inherited methods are documented there
autosummary_generate = False            # the API pages come from _ext/polyrank_api.py
numpydoc_show_class_members = False     # autodoc's :members: lists them once
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = True
# the words of numpydoc's type phrases ("array-like of shape (n_samples,)", "float, default=1.0")
# that are prose, not names to link; every other word of a type must resolve
numpydoc_xref_ignore = {
    # English
    "of", "or", "and", "optional", "default", "same", "as", "the", "a", "an", "one", "two",
    "per", "each", "any", "with", "in", "to", "for", "see", "given", "their", "them", "its",
    "length", "shape", "shapes", "sequence", "iterable", "mapping", "sparse", "matrix",
    "positive", "non-negative", "nonnegative", "scalar", "elements", "entries", "values",
    "keys", "points", "tuples", "unchanged", "uniform", "fitted", "training", "instance",
    "ndarrays", "dask", "CSR", "array_like", "array-like",
    # the dimensions the shapes are written in (the papers' symbols)
    "n", "k", "m", "d", "l", "L", "N", "M", "A", "B", "D", "E", "P", "p", "r", "b", "y", "X",
    "n_samples", "n_features", "n_labels", "n_classes", "n_queries", "n_pairs", "n_nodes",
    "m_test", "m_train", "n_test", "m2", "sigma", "n_support", "n_grid", "n_lines", "W",
    # words of the prose some types are written in ("sklearn scorer", "canonical settings")
    "classes", "labels", "settings", "sample", "sklearn", "scorer", "canonical", "linear",
    "kernel", "Gram", "key", "header", "formatter", "name", "self", "rs", "X_train",
    "X_test", "Y_train", "Y_test", "estimator", "docs_per_query", "n_blocks", "l_split",
}
numpydoc_xref_aliases = {
    # the builtins and the ecosystem's types, as docstrings write them
    "ndarray": "numpy.ndarray",
    "int64": "numpy.int64",
    "int32": "numpy.int32",
    "int8": "numpy.int8",
    "float64": "numpy.float64",
    "float32": "numpy.float32",
    "Series": "dask.dataframe.Series",
    "dataclass": "dataclasses.dataclass",
    "BaseEstimator": "sklearn.base.BaseEstimator",
    "Pipeline": "sklearn.pipeline.Pipeline",
    "np.ndarray": "numpy.ndarray",
    "dtype": "numpy.dtype",
    "Generator": "numpy.random.Generator",
    "RandomState": "numpy.random.RandomState",
    "csr_matrix": "scipy.sparse.csr_matrix",
    "csr_array": "scipy.sparse.csr_array",
    "sparray": "scipy.sparse.sparray",
    "spmatrix": "scipy.sparse.spmatrix",
    "Path": "pathlib.Path",
    "path-like": ":term:`python:path-like object`",
    "callable": ":term:`python:callable`",
    "file-like": ":term:`python:file-like object`",
    "Client": "distributed.Client",
    "DataFrame": "pandas.DataFrame",
    "Figure": "plotly.graph_objects.Figure",
    "FigureWidget": "plotly.graph_objects.FigureWidget",
}

# -- notebooks: rendered with their stored outputs, never executed ---------------------------
nb_execution_mode = "off"
# a stored output carries the live figure (plotly JSON) and its PNG; a static page shows the PNG
nb_mime_priority_overrides = [
    ("html", "application/vnd.plotly.v1+json", None),
    ("html", "application/vnd.jupyter.widget-view+json", None),
]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# -- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"polyrank {release}"
html_static_path = ["_static"]
html_css_files = ["polyrank.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # the sidebar of 600 API pages: collapsed, two levels (a full tree on every page makes
    # the build quadratic in the number of pages)
    "collapse_navigation": True,
    "navigation_depth": 2,
    "show_nav_level": 1,
    "header_links_before_dropdown": 8,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
# -- the examples (examples/*.py): sphinx-gallery pages with downloads of the script and of
# a notebook version, never executed (CI runs them: tests/docs/test_examples.py); each names its
# thumbnail (docs/_static/thumbnails/, made from a notebook's stored figure)
sphinx_gallery_conf = {
    "examples_dirs": str(REPO / "examples"),
    "gallery_dirs": "gallery/examples",
    "filename_pattern": r"^$",          # run none of them ...
    "plot_gallery": "False",            # ... not even to draw a figure
    "download_all_examples": False,
    "remove_config_comments": True,
    "write_computation_times": False,
    "show_memory": False,
    "show_signature": False,
    "within_subsection_order": "FileNameSortKey",
    "copyfile_regex": "",
}

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True


def setup(app):
    os.environ.setdefault("MPLBACKEND", "Agg")
