"""Every public name has a real docstring, and the estimators' Examples run.

A docstring built as an expression (``\"\"\"...\"\"\" + FRAGMENT``) is not a
docstring: Python leaves ``__doc__`` None, ``help()`` shows nothing and
pytest's ``--doctest-modules`` silently skips its Examples.  These tests
catch that for every name a public module exports in ``__all__``.
"""

import doctest
import importlib
import pkgutil
import types

import pytest

import polyrank
import polyrank_paper
import polyrank_widgets


def _public_modules(package):
    """The package and every submodule whose dotted path has no ``_`` part."""
    yield package
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        yield importlib.import_module(info.name)


def _exported_objects():
    out = []
    for package in (polyrank, polyrank_widgets, polyrank_paper):
        for module in _public_modules(package):
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name)
                # constants (str, tuple, dict, float) carry their type's
                # docstring; they are documented by ``#:`` comments instead
                if isinstance(obj, (types.ModuleType, type)) or callable(obj):
                    out.append(pytest.param(obj, id=f"{module.__name__}.{name}"))
    return out


EXPORTED = _exported_objects()


def test_the_export_list_is_not_empty():
    # guards the parametrization below against collecting nothing
    assert len(EXPORTED) > 50


@pytest.mark.parametrize("obj", EXPORTED)
def test_public_name_has_a_docstring(obj):
    doc = obj.__doc__
    assert isinstance(doc, str) and doc.strip(), f"{obj!r} has no docstring"


@pytest.mark.parametrize("module", [*_public_modules(polyrank), *_public_modules(polyrank_paper)],
                         ids=lambda m: m.__name__)
def test_public_module_has_a_docstring(module):
    assert (module.__doc__ or "").strip(), f"{module.__name__} has no docstring"


ESTIMATORS = [polyrank.LabelRanker, polyrank.SignConstrainedClassifier,
              polyrank.SignConstrainedRegressor, polyrank.RankSVM,
              polyrank.OrdinalMarginRanker, polyrank.PRank, polyrank.M3LClassifier,
              polyrank.soft_project]


@pytest.mark.parametrize("obj", ESTIMATORS, ids=lambda o: o.__name__)
def test_estimator_docstring_examples_run(obj):
    assert "Examples\n    --------" in obj.__doc__, f"{obj.__name__}: no Examples section"
    module = importlib.import_module(obj.__module__)
    tests = doctest.DocTestFinder(recurse=False).find(obj, obj.__name__,
                                                      globs=vars(module).copy())
    assert len(tests) == 1 and tests[0].examples, f"{obj.__name__}: no >>> examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                   | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    outcome = runner.summarize(verbose=False)
    assert outcome.failed == 0, f"{obj.__name__}: {outcome.failed} example(s) failed"
