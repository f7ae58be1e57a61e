"""Generate the API reference of polyrank, polyrank_widgets and polyrank_paper.

A public name is one listed in the ``__all__`` of a public module (no part of
its dotted name starts with an underscore) of the three packages.  Many names
are re-exported (``polyrank.LabelRanker`` is ``polyrank.sopopo.LabelRanker``
is ``polyrank.sopopo.estimator.LabelRanker``); each object gets one page, at
the shallowest public path that holds it (what users import), and every
module page lists all of its ``__all__`` with links to those pages, so every
public name is reachable and no object is described twice (which Sphinx
would warn about).

The pages are written into ``docs/api/generated/`` at the start of each
build (the folder is not committed); a page whose text is unchanged is not
rewritten, so an incremental build re-reads nothing.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import types
from pathlib import Path

PACKAGES = ("polyrank", "polyrank_widgets", "polyrank_paper")


def public_modules(top: str) -> list[str]:
    """The public modules of package ``top`` (itself first), sorted by depth
    then name."""
    pkg = importlib.import_module(top)
    names = [top] + [m.name for m in pkgutil.walk_packages(pkg.__path__, top + ".")
                     if not any(p.startswith("_") for p in m.name.split("."))]
    return sorted(names, key=lambda n: (n.count("."), n))


def _exports(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:       # a namespace of submodules only (polyrank_paper.bench)
        return []
    return list(names)


def _summary(obj, kind: str) -> str:
    """The first sentence of an object's own docstring (none for data: a
    constant's docstring is its type's), escaped for a table cell."""
    if kind == "data":
        return ""
    doc = inspect.getdoc(obj) or ""
    first = " ".join(doc.split("\n\n", 1)[0].split())
    first = re.sub(r":\w+(?::\w+)?:`~?([^`<]*?)(?: <[^`]*>)?`", r"``\1``", first)
    parts = first.split("``")
    for i in range(0, len(parts), 2):         # the first ". " outside a literal
        if ". " in parts[i]:
            parts[i] = parts[i].split(". ", 1)[0] + "."
            first = "``".join(parts[:i + 1])
            break
    if first.count("``") % 2 or first.count("`") % 2 or first.count("*") % 2:
        return ""                              # unbalanced markup: no summary
    return _escape_bars_in_line(first)


def _kind(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj) and not isinstance(obj, (int, float, str)):
        return "function"
    return "data"


def collect():
    """(modules, canonical): ``modules`` maps each public module to its list
    of (name, kind, target) rows; ``canonical`` maps each documented target
    (dotted path of its page) to (module, name, kind)."""
    modules: dict[str, list] = {}
    canonical: dict[str, tuple] = {}
    seen: dict[tuple, str] = {}
    all_modules = [m for top in PACKAGES for m in public_modules(top)]
    all_modules.sort(key=lambda n: (n.count("."), n))
    module_set = set(all_modules)
    for modname in all_modules:
        module = importlib.import_module(modname)
        rows = []
        for name in _exports(module):
            obj = getattr(module, name)
            kind = _kind(obj)
            if kind == "module":
                target = obj.__name__
                if target not in module_set:
                    continue
            else:
                key = (id(obj), name) if kind == "data" else (id(obj),)
                target = seen.setdefault(key, f"{modname}.{name}")
                if target == f"{modname}.{name}":
                    canonical[target] = (modname, name, kind)
            rows.append((name, kind, target, _summary(obj, kind)))
        modules[modname] = rows
    return modules, canonical


def _title(text: str) -> str:
    return f"{text}\n{'=' * len(text)}\n"


def _object_page(modname: str, name: str, kind: str) -> str:
    head = ":orphan:\n\n" + _title(f"{modname}.{name}") + \
        f"\n.. currentmodule:: {modname}\n\n"
    if kind == "class":
        return head + (f".. autoclass:: {name}\n   :members:\n   :show-inheritance:\n"
                       "   :special-members: __call__\n")
    if kind == "function":
        return head + f".. autofunction:: {name}\n"
    return head + f".. autodata:: {name}\n   :no-value:\n"


def _module_page(modname: str, rows) -> str:
    text = _title(modname) + f"\n.. automodule:: {modname}\n   :no-members:\n\n"
    if rows:
        text += ".. list-table::\n   :widths: 30 70\n   :class: polyrank-api-table\n\n"
        for name, kind, target, summary in rows:
            role = "mod" if kind == "module" else "obj"
            alias = "" if target == f"{modname}.{name}" or kind == "module" else \
                f" (same object as ``{target}``)"
            text += (f"   * - :py:{role}:`{name} <{target}>`\n"
                     f"     - *{kind}{alias}*" + (f" — {summary}" if summary else "") + "\n")
    return text


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(outdir: Path) -> tuple[dict, dict]:
    """Write the module and object pages into ``outdir``; returns what
    :func:`collect` found."""
    outdir.mkdir(parents=True, exist_ok=True)
    modules, canonical = collect()
    wanted = set()
    for modname, rows in modules.items():
        wanted.add(f"{modname}.rst")
        write_if_changed(outdir / f"{modname}.rst", _module_page(modname, rows))
    for target, (modname, name, kind) in canonical.items():
        wanted.add(f"{target}.rst")
        write_if_changed(outdir / f"{target}.rst", _object_page(modname, name, kind))
    wanted.add("index.rst")
    for stale in outdir.glob("*.rst"):
        if stale.name not in wanted:
            stale.unlink()
    index = _title("All modules and names") + "\n.. toctree::\n   :maxdepth: 1\n\n"
    index += "".join(f"   {m}\n" for m in modules)
    write_if_changed(outdir / "index.rst", index)
    return modules, canonical


#: every exported path (``polyrank.sopopo.LabelRanker``) -> the path of its page
#: (``polyrank.LabelRanker``); filled at builder-inited
ALIASES: dict[str, str] = {}


def _on_builder_inited(app) -> None:
    modules, _ = generate(Path(app.srcdir) / "api" / "generated")
    ALIASES.clear()
    for modname, rows in modules.items():
        for name, _, target, _ in rows:
            ALIASES[f"{modname}.{name}"] = target


def _is_private(target: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__")
               for part in target.split("."))


def _candidates(objects, target: str, module: str | None) -> list[str]:
    """The documented objects a docstring's ``target`` can mean: the page of
    an exported path, else the objects whose dotted name ends with it (the
    docstrings name their neighbours unqualified, as numpydoc's See Also
    does), those of the referring module's own package first."""
    if target in ALIASES:
        return [ALIASES[target]]
    found = [k for k in objects if k == target or k.endswith("." + target)]
    if len(found) > 1 and module:
        top = module.split(".")[0]
        same = [k for k in found if k.split(".")[0] == top]
        found = same or found
    if len(found) > 1:          # a re-export and its canonical page: one object
        found = sorted(set(ALIASES.get(k, k) for k in found))
    return found


def _on_missing_reference(app, env, node, contnode):
    """Resolve a Python reference Sphinx could not: a name exported under
    several paths, or an unqualified name of a neighbouring module.  A name
    inside a private module (``polyrank.sign._kernels.x``) has no page by
    design (private modules are not part of the API); it is shown as code,
    unlinked.  Anything else stays unresolved, and -n reports it."""
    if node.get("refdomain") != "py":
        return None
    from sphinx.util.nodes import make_refnode

    target = node["reftarget"].lstrip("~.")
    if _is_private(target):
        return contnode
    objects = env.get_domain("py").objects
    found = _candidates(objects, target, node.get("py:module"))
    if len(found) != 1 or found[0] not in objects:
        if _exists_unexported(target, node):
            return contnode
        return None
    entry = objects[found[0]]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode,
                        found[0])


def _resolve_path(path: str):
    """The object at dotted ``path`` (its longest importable module, then
    attributes), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part, None)
        return obj
    return None


def _scopes(node) -> list:
    """Where a docstring's reference is looked up: the documented object,
    its class and its defining module (from the docstring's source,
    ``...:docstring of polyrank.sign.solvers.sc_sdca``), then the page's
    current class and module."""
    paths = []
    source = node.source or ""
    if "docstring of " in source:
        obj_path = source.rsplit("docstring of ", 1)[1].strip()
        parts = obj_path.split(".")
        paths += [".".join(parts[:cut]) for cut in range(len(parts), 0, -1)]
    module, cls = node.get("py:module"), node.get("py:class")
    if module and cls:
        paths.append(f"{module}.{cls}")
    if module:
        paths.append(module)
    scopes = []
    for path in paths:
        if path.startswith(PACKAGES):
            obj = _resolve_path(path)
            if obj is not None:
                scopes.append(obj)
                home = getattr(obj, "__module__", None)     # a class's defining module
                if isinstance(home, str) and home.startswith(PACKAGES):
                    scopes.append(importlib.import_module(home))
    return scopes


def _exists_unexported(target: str, node) -> bool:
    """Whether ``target`` names something that exists where the docstring
    stands (an attribute of the documented object or its class, a
    module-level name of its module) but is not exported, hence has no
    page: a module's tuning constant, a class attribute, an inherited
    method.  A name that exists nowhere (a typo, a removed function) is
    not."""
    if target.startswith(PACKAGES):
        return _resolve_path(target) is not None
    for scope in _scopes(node):
        obj = scope
        for part in target.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        else:
            return True
    return False


_PROSE = re.compile(r"(``.*?``|`[^`]*`)|\||(?<=\w)_(?!\w)")


def _escape_bars_in_line(line: str) -> str:
    """``|x|`` in prose is an absolute value or a norm, and ``coef_`` a
    fitted attribute, which reST would read as a substitution and a
    hyperlink reference: escape the bar and the trailing underscore outside
    inline literals and roles."""
    return _PROSE.sub(lambda m: m.group(1) or "\\" + m.group(0), line)


def _escape_bars(app, what, name, obj, options, lines) -> None:
    """The docstrings write |x| for absolute values (as the papers do); keep
    them as text.  Literal blocks (after ``::``), doctest lines and tables
    are left alone."""
    literal_indent = None
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                continue
        if stripped.startswith((">>>", "...", "+-")) or ("|" not in line and "_" not in line):
            pass
        else:
            lines[i] = _escape_bars_in_line(line)
        if line.rstrip().endswith("::"):
            literal_indent = indent


def _process_bases(app, name, obj, options, bases):
    """Drop the bases that ``dataclasses.make_dataclass`` creates at import
    time (module ``types``): they have no documentation anywhere."""
    bases[:] = [b for b in bases if getattr(b, "__module__", "") != "types"]


def _skip_member(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_{method}_request`` methods are documented
    by scikit-learn (metadata routing), not here."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    app.connect("missing-reference", _on_missing_reference)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-bases", _process_bases)
    app.connect("autodoc-process-docstring", _escape_bars, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
