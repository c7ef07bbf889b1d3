"""Every `extra` key `publish` reads is declared in code: attempts' keys by the evaluators that write them
(`AttemptExtra` in each evaluator's package, on `core.contract.CommonExtra`), runs' and scores' by
`core.contract`. Publish names them only through the contract's constants (`AttemptKey`, `RunKey`, ...;
`K` and `R` in templates), and every constant names a declared key, so a read of an undeclared key fails here.
"""

from __future__ import annotations

import ast
import re

import jinja2
import pytest

import evaluators.agent
import evaluators.chat
import evaluators.lmeval
import evaluators.loglik
import evaluators.modes
from evaluators.core import contract
from evaluators.core.contract import ITEM_KEYS, MESSAGE_KEYS, AttemptKey, BenchmarkKey, RunKey, ScoreKey
from evaluators.publish.builder import TEXT_KEYS, _environment
from tests.conftest import REPO

DECLARATIONS = {module.__name__: module.AttemptExtra for module in
                (evaluators.loglik, evaluators.chat, evaluators.agent, evaluators.modes, evaluators.lmeval)}
DECLARED = frozenset(key for extra in DECLARATIONS.values() for key in extra.__optional_keys__ | extra.__required_keys__)
CONSTANTS = {"AttemptKey": AttemptKey, "RunKey": RunKey, "ScoreKey": ScoreKey, "BenchmarkKey": BenchmarkKey,
             "K": AttemptKey, "R": RunKey}


def _values(holder: type) -> dict[str, str]:
    return {name: value for name, value in vars(holder).items() if name.isupper() and isinstance(value, str)}


def test_every_attempt_key_of_the_contract_is_declared_by_an_evaluator():
    keys = {name: value for name, value in _values(AttemptKey).items() if name != "VERDICT_PREFIX"}
    assert {name: value for name, value in keys.items() if value not in DECLARED} == {}
    assert [k for k in (*ITEM_KEYS, *MESSAGE_KEYS, *(k for k, _ in TEXT_KEYS)) if k not in DECLARED] == []


def test_every_evaluator_builds_on_the_common_keys():
    common = contract.CommonExtra.__optional_keys__
    assert common and all(common <= extra.__optional_keys__ for extra in DECLARATIONS.values())


def _is_extra(node: ast.AST) -> bool:
    """`x.extra`, `x["extra"]`, `x.get("extra")`, a name holding one (`extra`, `run_extra`), or one passed through
    `or {}` or a decoding call (`_dict(run["extra"])`)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "extra"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "extra"
    if isinstance(node, ast.BoolOp):
        return _is_extra(node.values[0])
    if isinstance(node, ast.Call):
        named = isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args and \
            isinstance(node.args[0], ast.Constant) and node.args[0].value == "extra"
        return bool(named or (node.args and _is_extra(node.args[0])))
    return isinstance(node, ast.Name) and node.id.endswith("extra")


def literal_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, key) of every read of an `extra` by a literal string: `extra["k"]`, `extra.get("k")`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_extra(node.value) and isinstance(node.slice, ast.Constant):
            out.append((node.lineno, node.slice.value))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and _is_extra(node.func.value) and node.args and isinstance(node.args[0], ast.Constant)):
            out.append((node.lineno, node.args[0].value))
    return out


def constant_reads(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, holder, name) of every `AttemptKey.NAME`-style use."""
    return [(node.lineno, node.value.id, node.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in CONSTANTS
            and node.attr.isupper()]


def test_publish_reads_extra_keys_only_through_declared_constants():
    found = []
    for path in sorted((REPO / "evaluators" / "publish").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(REPO)
        found += [f"{where}:{line}: extra read by the literal {key!r}" for line, key in literal_reads(tree)]
        found += [f"{where}:{line}: {holder}.{name} is not declared" for line, holder, name in constant_reads(tree)
                  if name not in _values(CONSTANTS[holder])]
    assert found == []


TEMPLATE_LITERAL = re.compile(r"""extra\s*(\.get\(\s*['"]|\[\s*['"]|\.(?!get\b|items\b)[a-z_]+)""")
TEMPLATE_CONSTANT = re.compile(r"\b([KR])\.([A-Za-z_]+)")


def test_templates_read_extra_keys_only_through_declared_constants():
    found = []
    for path in sorted((REPO / "templates").glob("*.j2")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"{path.relative_to(REPO)}:{number}"
            found += [f"{where}: extra read by a literal ({m.group(0)})" for m in TEMPLATE_LITERAL.finditer(line)]
            found += [f"{where}: {holder}.{name} is not declared" for holder, name in TEMPLATE_CONSTANT.findall(line)
                      if name not in _values(CONSTANTS[holder])]
    assert found == []
    assert "K.TAMPER_FLAGS" in (REPO / "templates" / "attempt.html.j2").read_text(encoding="utf-8")


def test_the_checks_see_literal_and_undeclared_reads(tmp_path):
    tree = ast.parse('a.extra.get("reason")\nrun["extra"]["out_dir"]\nextra.get(AttemptKey.NOPE)\n'
                     'run_extra.get(RunKey.OUT_DIR)\n(run.get("extra") or {}).get("report")\n_dict(r["extra"])["x"]\n')
    assert sorted(literal_reads(tree)) == [(1, "reason"), (2, "out_dir"), (5, "report"), (6, "x")]
    assert [(holder, name) for _, holder, name in constant_reads(tree) if name not in _values(CONSTANTS[holder])] \
        == [("AttemptKey", "NOPE")]
    assert TEMPLATE_LITERAL.search('{{ a.extra.get("title") }}') and TEMPLATE_LITERAL.search("{{ a.extra.title }}")
    assert not TEMPLATE_LITERAL.search("{% for k, v in s.extra|dictsort %}{{ a.extra.get(K.TITLE) }}")


def test_a_template_reading_an_undeclared_key_fails_to_render(tmp_path):
    (tmp_path / "probe.j2").write_text("{{ a.extra.get(K.TITLE) }}|{{ a.extra.get(K.NOT_DECLARED) }}")
    env = _environment(tmp_path)
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("probe.j2").render(a={"extra": {"title": "t"}})
    (tmp_path / "fine.j2").write_text("{{ a.extra.get(K.TITLE) }}")
    assert env.get_template("fine.j2").render(a={"extra": {"title": "t"}}) == "t"
