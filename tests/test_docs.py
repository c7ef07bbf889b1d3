"""README's generated sections (CLI reference, store schema) match the code."""

from evaluators import docs


def test_readme_generated_sections_are_current():
    current = docs.README.read_text()
    assert docs.render(current) == current, "README.md is stale: run `make docs`"
    assert current.startswith("# BananaBench\n\n```sh\nmake demo")
    assert "make test" in current.split("\n\n")[1]
