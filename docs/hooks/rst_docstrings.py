"""A Griffe extension for the site's API reference: the reStructuredText of our docstrings as Markdown.

The docstrings are written for reading in the source and with ``help()``: reStructuredText roles,
``::`` literal blocks and simple tables. mkdocstrings renders docstrings as Markdown, so
``mkdocs.yml`` loads this extension, which rewrites each docstring's text before it is rendered
(:func:`rst_to_markdown`; the source files are not touched):

* ``:class:`~pkg.mod.Name``` (and ``func``, ``meth``, ``mod``, ``data``, ``attr``, ``exc``, ``obj``)
  becomes the code ``Name`` (the last part with ``~``, else the whole target) linked to that
  object's entry when the reference documents it — an optional cross-reference of mkdocs-autorefs,
  so a target the reference does not render stays plain code and is no warning. A target without a
  package (``Table``, ``Trainer.update``) is looked up in the docstring's own module first.
* A paragraph that ends in ``::`` ends in ``:`` (a lone ``::`` line goes), and the indented block
  after it becomes a fenced code block.
* A simple table (border lines of ``=`` runs) becomes a Markdown table; a row whose first column is
  empty continues the row above; a third border line makes the rows above it the header (else the
  header is empty).
* A bullet list right after a paragraph line gets the blank line Markdown needs before it.

It lives beside the pages (``docs/hooks/``, left out of the site by ``exclude_docs``);
``tests/test_docstring_markup.py`` tests the conversion.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`<]+?)(?:\s*<([^>`]+)>)?`")
_BORDER = re.compile(r"^(\s*)=+(?:\s+=+)+\s*$")
_BULLET = re.compile(r"^[*-] ")
#: Top-level names a role target may start with; any other first part is relative to the module.
_PACKAGES = ("kardinal_env", "agents", "kardinal_configs", "typing", "collections", "random", "numpy", "torch")


def _columns(border: str) -> list[int]:
    """Start offsets of the ``=`` runs of a table border line."""
    return [m.start() for m in re.finditer(r"=+", border)]


def _cells(line: str, starts: list[int]) -> list[str]:
    ends = starts[1:] + [None]
    return [line[start:end].strip() if end is not None else line[start:].strip() for start, end in zip(starts, ends)]


def _rows(lines: list[str], starts: list[int]) -> list[list[str]]:
    """Rows of a simple table's lines; a line whose first column is empty continues the row above."""
    rows: list[list[str]] = []
    for line in lines:
        cells = _cells(line, starts)
        if rows and not cells[0]:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    return rows


def _markdown_table(header: list[list[str]], body: list[list[str]], columns: int) -> list[str]:
    head = [" ".join(column).strip() for column in zip(*header)] if header else [""] * columns
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * columns]
    return out + ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]


def _table_end(lines: list[str], top: int) -> list[int] | None:
    """The border lines (2 or 3) of the simple table whose top border is ``lines[top]``, or ``None``:
    rows are contiguous, and the bottom border is followed by a blank line or the end."""
    starts = _columns(lines[top])
    borders = [top]
    for j in range(top + 1, len(lines)):
        if not lines[j].strip():
            return None
        if _BORDER.match(lines[j]):
            if _columns(lines[j]) != starts:
                return None
            borders.append(j)
            if j + 1 == len(lines) or not lines[j + 1].strip():
                return borders if len(borders) in (2, 3) else None
            if len(borders) == 3:
                return None
    return None


def _convert_tables(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        borders = _table_end(lines, i) if _BORDER.match(lines[i]) else None
        if borders is None:
            out.append(lines[i])
            i += 1
            continue
        starts = _columns(lines[i])
        header = _rows(lines[borders[0] + 1 : borders[1]], starts) if len(borders) == 3 else []
        body = _rows(lines[borders[-2] + 1 : borders[-1]], starts)
        if out and out[-1].strip():
            out.append("")
        out += _markdown_table(header, body, len(starts))
        out.append("")
        i = borders[-1] + 1
    return out


def _convert_literal_blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.rstrip().endswith("::") or line.lstrip().startswith(("|", ">>>")):
            out.append(line)
            i += 1
            continue
        text = line.rstrip()[:-2].rstrip()
        indent = len(line) - len(line.lstrip())
        if text.strip():
            out.append(text + ":")
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        block: list[str] = []
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            block.append(lines[j])
            j += 1
        while block and not block[-1].strip():
            block.pop()
        if not block:
            i += 1
            continue
        margin = min(len(b) - len(b.lstrip()) for b in block if b.strip())
        out += ["", " " * indent + "```"]
        out += [" " * indent + b[margin:] if b.strip() else "" for b in block]
        out += [" " * indent + "```", ""]
        i = j
    return out


def _blank_before_lists(lines: list[str]) -> list[str]:
    out: list[str] = []
    fenced = False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        previous = out[-1] if out else ""
        if (
            not fenced
            and _BULLET.match(line)
            and previous.strip()
            and not _BULLET.match(previous)
            and not previous.startswith((" ", "|"))
        ):
            out.append("")
        out.append(line)
    return out


def _role(match: re.Match, module: str | None) -> str:
    tilde, text, explicit = match.group(1), match.group(2).strip(), match.group(3)
    target = (explicit or text).strip().removesuffix("()").lstrip(".")
    title = text if explicit else (target.rsplit(".", 1)[-1] if tilde else target)
    identifier, fallback = target, ""
    if module and target.split(".")[0] not in _PACKAGES:
        identifier, fallback = f"{module}.{target}", target
    slug = f' slug="{fallback}"' if fallback else ""
    return f'<autoref identifier="{identifier}"{slug} optional><code>{title}</code></autoref>'


def rst_to_markdown(text: str, module: str | None = None) -> str:
    """The docstring ``text`` with the reStructuredText described in the module docstring turned into
    Markdown; ``module`` (a dotted path) resolves role targets without a package."""
    lines = _convert_tables(text.split("\n"))
    lines = _convert_literal_blocks(lines)
    lines = _blank_before_lists(lines)
    out = "\n".join(lines)
    fenced = re.split(r"(^\s*```.*?^\s*```)", out, flags=re.M | re.S)
    for index in range(0, len(fenced), 2):  # roles outside fenced blocks only
        fenced[index] = _ROLE.sub(lambda m: _role(m, module), fenced[index])
    return "".join(fenced)


class RstDocstrings(griffe.Extension):
    """Rewrites every docstring with :func:`rst_to_markdown` once its object is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            module = obj.path if obj.is_module else obj.module.path
            obj.docstring.value = rst_to_markdown(obj.docstring.value, module)
