"""MkDocs hook: the manual's generated tables, read from their one home at build time.

A page asks for a table with a marker line of its own:

- ``<!-- mote:error-codes -->``: every ``mote_err_t`` code of
  runtime/include/mote/types.h (group, name, value, the header's comment);
- ``<!-- mote:boards -->``: one row per boards/*.json (core features, memory,
  where it runs);
- ``<!-- mote:commands -->``: every ``aot`` sub-command's ``--help``, from the
  argparse parser the command line itself uses (aot.cli.build_parser);
- ``<!-- mote:modules -->``: every module of the ``aot`` package with the first
  line of its docstring, package by package from the command line down;
- ``<!-- mote:c-api -->``: each public header of runtime/include/mote/, its
  opening comment and every declaration that has a ``/** ... */`` comment,
  verbatim.

An unknown ``mote:`` marker stops the build. tests/docs/test_docs.py checks
the error-code table against aot.host.abi.error_codes(), the values the host
binding uses.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
TYPES_H = ROOT / "runtime" / "include" / "mote" / "types.h"
BOARDS_DIR = ROOT / "boards"

MARKER = re.compile(r"^<!-- mote:([\w-]+) -->$", re.M)


def error_codes() -> list:
    """The mote_err_t enum of types.h as [(group, name, value, meaning)]: group
    is the comment line above a run of codes ("-1xx: the caller passed
    something wrong"), meaning the comment after the code (continuation lines
    joined)."""
    text = TYPES_H.read_text()
    m = re.search(r"typedef enum mote_err \{(.*?)\} mote_err_t;", text, re.S)
    if m is None:
        raise ValueError(f"{TYPES_H}: no 'typedef enum mote_err {{ ... }} mote_err_t;'")
    body = m.group(1)
    rows, group, last_end = [], "", None
    for t in re.finditer(r"/\*(.*?)\*/|\b(MOTE_\w+)\s*=\s*(-?\d+)", body, re.S):
        if t.group(2):
            rows.append([group, t.group(2), int(t.group(3)), ""])
            last_end = t.end()
            continue
        comment = " ".join(t.group(1).split())
        if rows and last_end is not None and "\n" not in body[last_end:t.start()]:
            rows[-1][3] = comment           # the comment after a code
            last_end = None
        else:
            group = comment                 # a comment line of its own: a group
    return [tuple(r) for r in rows]


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def error_codes_markdown() -> str:
    lines = ["| code | name | meaning |", "|---:|---|---|"]
    group = None
    for g, name, value, meaning in error_codes():
        if g != group and g:
            lines.append(f"| | **{_md_cell(g)}** | |")
            group = g
        lines.append(f"| {value} | `{name}` | {_md_cell(meaning or ('success' if value == 0 else ''))} |")
    return "\n".join(lines)


def _bytes(hex_or_int) -> str:
    n = int(str(hex_or_int), 0)
    return f"{n // 1024 // 1024} MiB" if n % (1024 * 1024) == 0 else f"{n // 1024} KiB"


def boards_markdown() -> str:
    lines = ["| board | what it is | int8 kernels | fp32 | flash | RAM | runs where |",
             "|---|---|---|---|---|---|---|"]
    for path in sorted(BOARDS_DIR.glob("*.json")):
        b = json.loads(path.read_text())
        feat = b["features"]
        int8 = "MVE" if feat.get("mve") else "DSP" if feat.get("dsp") else "plain C"
        fp32 = (b.get("mfpu") if b.get("mfpu") not in (None, "auto") else "hardware FPU") \
            if feat.get("fpu") else "soft float"
        sim = b.get("simulator")
        where = f"{sim['kind'].upper() if sim['kind'] == 'qemu' else sim['kind']} `{sim['machine']}`" \
            if sim else "build-only"
        if b.get("uf2_family_id"):
            where += f" (UF2 family `{b['uf2_family_id']}`)"
        lines.append(f"| `{b['name']}` | {_md_cell(b['description'])} | {int8} | {fp32} | "
                     f"{_bytes(b['flash']['size'])} | {_bytes(b['ram']['size'])} | {where} |")
    return "\n".join(lines)


def commands_markdown() -> str:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ["COLUMNS"] = "100"           # argparse wraps at the terminal's width
    from aot.cli import build_parser
    parser = build_parser()
    parser.prog = "aot"
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    helps = {c.dest: c.help for c in sub._choices_actions}
    out = []
    for name, p in sub.choices.items():
        p.prog = f"aot {name}"
        out += [f"## aot {name}", "", (helps.get(name) or "").rstrip(".") + ".", "",
                "```text", p.format_help().rstrip(), "```", ""]
    return "\n".join(out)


#: the order the module map shows aot's packages in (the layers, top down);
#: a package not named here follows them, so a new one is never left out
PACKAGE_ORDER = ["aot", "aot.tools", "aot.devtools", "aot.deploy", "aot.compiler", "aot.backends",
                 "aot.host", "aot.pte"]


def _first_doc_line(path: Path) -> str:
    import ast
    doc = ast.get_docstring(ast.parse(path.read_text(), str(path)))
    if not doc:
        return ""
    text = re.sub(r":(?:mod|class|func|meth):", "", " ".join(doc.split("\n\n")[0].split()))
    if len(text) > 160:                     # a long first paragraph: its first sentence
        m = re.match(r"(.{40,}?[.:])\s", text)
        text = m.group(1) if m else text
    return text


def modules_markdown() -> str:
    aot_dir = ROOT / "aot"
    packages = {}
    for path in sorted(aot_dir.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__" and len(parts) > 2:
            continue                        # a package's own docstring heads its rows
        pkg = ".".join(parts[:2]) if len(parts) > 2 else "aot"
        packages.setdefault(pkg, []).append(path)
    order = [p for p in PACKAGE_ORDER if p in packages] + sorted(set(packages) - set(PACKAGE_ORDER))
    lines = ["| module | what it is |", "|---|---|"]
    for pkg in order:
        init = ROOT / pkg.replace(".", "/") / "__init__.py"
        if pkg != "aot":
            head = _first_doc_line(init) if init.exists() else ""
            lines.append(f"| **`{pkg.replace('.', '/')}/`** | {_md_cell(head)} |")
        for path in packages[pkg]:
            rel = path.relative_to(ROOT).as_posix()
            lines.append(f"| `{rel}` | {_md_cell(_first_doc_line(path))} |")
    return "\n".join(lines)


#: the public headers, in the order a reader needs them
C_HEADERS = ["model.h", "slot.h", "port.h", "program.h", "method.h", "data_map.h", "types.h",
             "config.h", "trace.h", "backend.h", "kernel.h"]


def _header_blocks(text: str):
    """(opening comment, [documented declaration]) of a header: a declaration is
    a ``/** ... */`` comment and the lines after it up to a blank line or the
    next comment (private ones left out)."""
    m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
    opening = "\n".join(re.sub(r"^\s?\* ?", "", ln) for ln in m.group(1).strip("\n").splitlines()) if m else ""
    blocks = []
    for d in re.finditer(r"^/\*\*.*?\*/\n(?:(?!/\*\*|\n|#endif|#ifdef __cplusplus)[^\n]*\n)+", text, re.S | re.M):
        block = d.group(0).rstrip()
        if "(private)" in block or "Treat the fields as private" in block:
            continue
        blocks.append(block)
    return opening.strip(), blocks


def c_api_markdown() -> str:
    out = []
    inc = ROOT / "runtime" / "include" / "mote"
    missing = sorted({p.name for p in inc.glob("*.h")} - set(C_HEADERS) - {"mote.h"})
    if missing:
        raise PluginError(f"runtime/include/mote: {', '.join(missing)} not in the manual's C_HEADERS")
    for name in C_HEADERS:
        opening, blocks = _header_blocks((inc / name).read_text())
        out += [f"### mote/{name}", "", "```text", opening, "```", ""]
        if blocks:
            out += ["```c", "\n\n".join(blocks), "```", ""]
    return "\n".join(out)


GENERATORS = {
    "error-codes": error_codes_markdown,
    "boards": boards_markdown,
    "commands": commands_markdown,
    "c-api": c_api_markdown,
    "modules": modules_markdown,
}


def on_page_markdown(markdown, page, config, files):
    def replace(m):
        name = m.group(1)
        if name not in GENERATORS:
            raise PluginError(f"{page.file.src_path}: unknown generated table 'mote:{name}' "
                             f"(known: {', '.join(sorted(GENERATORS))})")
        return GENERATORS[name]()
    return MARKER.sub(replace, markdown)
