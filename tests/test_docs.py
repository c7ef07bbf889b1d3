"""The README and docs/: the generated pages match the code, the README stays short and leads to every page,
and every link between them resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaluators import docs
from tests.conftest import REPO

README = REPO / "README.md"
PAGES = sorted(docs.DOCS.glob("*.md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path: Path) -> set[str]:
    """GitHub's ids of a Markdown file's headings (lower case, punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_generated_pages_are_current():
    assert docs.stale() == {}, "docs/ is stale: run `make docs`"


def test_the_cli_reference_has_every_command():
    from evaluators import cli

    text = (docs.DOCS / "cli.md").read_text(encoding="utf-8")
    for path in docs._command_paths(cli.build_parser()):
        assert f"## `{' '.join(('bananabench', *path))}`" in text


def test_readme_is_short_starts_with_the_two_commands_and_leads_to_every_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert text.startswith("# BananaBench\n\n```sh\nmake demo")
    assert "make test" in text.split("\n\n")[1]
    linked = {target.split("#")[0] for target in LINK.findall(text)}
    assert {f"docs/{page.name}" for page in PAGES} <= linked


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: p.name)
def test_every_relative_link_resolves(path):
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        file = (path.parent / name).resolve() if name else path
        assert file.exists(), f"{path.name}: {target}: no such file"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), f"{path.name}: {target}: no such heading"
