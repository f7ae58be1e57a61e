"""The "Stored results" page, generated at build time from the JSON results
that ship with the paper wing (``polyrank_paper/stored_results/*.json``,
read by :func:`polyrank_paper.stored.load_result`, which never runs code
from a file).

For each stored experiment the page shows where and when it ran
(:class:`~polyrank_paper.stored.Provenance`), the options of the run, the
"paper vs polyrank" items of its summary, its printed table and its notes.
Nothing is computed: the build only reads the files, in well under a second.
"""

from __future__ import annotations

from pathlib import Path

HEADER = """# Stored results

The heavy reproductions behind the notebooks are computed once
(`tools/store_results.py`) and shipped with the paper wing as JSON
(`polyrank_paper/stored_results/`); the notebooks load them with
{func}`polyrank_paper.load_or_run`. This page is generated from those files when the
site is built (`docs/_ext/polyrank_tables.py`), so it always shows what the package
ships. The tables of the last full runs on the development machine are on
{doc}`reproductions` and {doc}`benchmarks`.
"""


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _paper_rows(result) -> list[str]:
    summary = result.summary
    items = getattr(summary, "paper", None) or ()
    if not items:
        return []
    from polyrank_paper.registry import as_record

    rows = ["| item | paper | polyrank | data |", "| --- | --- | --- | --- |"]
    for it in as_record(items):
        rows.append(f"| {_cell(it['item'])} | {_cell(it['paper'])} | {_cell(it['ours'])} | "
                    f"{_cell(it['data'])} |")
    return rows


def _section(name: str, result) -> str:
    prov = result.provenance
    opts = ", ".join(f"{k}={v!r}" for k, v in sorted(result.options.items())) or "defaults"
    lines = [f"## `{name}`", "", _cell(result.title) if result.title else "", ""]
    if prov is not None:
        lines += [f"Computed {prov.created[:16].replace('T', ' ')} UTC with polyrank "
                  f"{prov.polyrank_version} on {prov.cpu_count} cores "
                  f"({_cell(prov.machine)}) in {prov.elapsed_s:.1f} s; options: `{opts}`.", ""]
    paper = _paper_rows(result)
    if paper:
        lines += paper + [""]
    lines += ["```text", result.format_table().rstrip(), "```", ""]
    if result.notes:
        lines += ["```text", *[str(n) for n in result.notes], "```", ""]
    return "\n".join(lines)


def render() -> str:
    """The page's MyST text, one section per stored result (sorted by name)."""
    from polyrank_paper.stored import STORED_DIR, load_result

    parts = [HEADER]
    for path in sorted(Path(STORED_DIR).glob("*.json")):
        parts.append(_section(path.stem, load_result(path)))
    return "\n".join(parts)


def _on_builder_inited(app) -> None:
    out = Path(app.srcdir) / "stored_results.md"
    text = render()
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
