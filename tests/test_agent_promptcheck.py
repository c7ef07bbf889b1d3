"""The prompt rules the corpus enforces, on a small project: names only the fix brings in, reproductions."""

from __future__ import annotations

from pathlib import Path

from evaluators.agent.corpus import measure, promptcheck

PATCH = """diff --git a/pkg/calc.py b/pkg/calc.py
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,5 @@ import os
-def sub(a, b):
-    return a + b
+def sub(a, b, *, strict_mode=False):
+    return a - b
+
+def _check_operands(a):
+    return a
diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -1 +1,2 @@
+new_test_helper = 1
 x = 1
diff --git a/CHANGES.md b/CHANGES.md
--- a/CHANGES.md
+++ b/CHANGES.md
@@ -1 +1,2 @@
+fixed sub
 changes
"""


def _start(tmp_path: Path) -> Path:
    start = tmp_path / "start"
    (start / "pkg").mkdir(parents=True)
    (start / "pkg" / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    (start / "pkg" / "__init__.py").write_text("")
    return start


def test_a_prompt_may_not_name_what_only_the_fix_brings_in(tmp_path: Path):
    start = _start(tmp_path)
    report = "Calling `sub(5, 3)` returns 8. I expected 2.\n"
    assert promptcheck.fix_only_names(report, PATCH, start) == []
    leaky = "Add a strict_mode flag to sub and validate with `_check_operands`; new_test_helper too.\n"
    assert promptcheck.fix_only_names(leaky, PATCH, start) == ["_check_operands", "strict_mode"]
    assert promptcheck.fix_only_names(leaky, PATCH, start, ("strict_mode",)) == ["_check_operands"]


def test_a_reproduction_must_behave_differently_once_fixed(tmp_path: Path):
    start = _start(tmp_path)
    fixed = tmp_path / "fixed"
    (fixed / "pkg").mkdir(parents=True)
    (fixed / "pkg" / "calc.py").write_text("def sub(a, b):\n    return a - b\n")
    prompt = ("sub is wrong:\n\n```python repro\nfrom pkg.calc import sub\nprint(sub(5, 3))\n```\n\n"
              "```python\nprint('not a repro')\n```\n")
    [code] = promptcheck.repros(prompt)
    before, after = promptcheck.run_repro(code, start), promptcheck.run_repro(code, fixed)
    assert before == (0, "8\n") and after == (0, "2\n")
    assert not list(start.rglob("__pycache__")), "the reproduction wrote bytecode into the start state"
    crash = promptcheck.run_repro("import pkg.missing\n", start)
    assert crash[0] == 1 and "<workspace>" not in crash[1] and "ModuleNotFoundError" in crash[1]


def test_a_python_the_reproduction_starts_imports_the_workspace_too(tmp_path: Path):
    start = _start(tmp_path)
    code = ("import subprocess, sys\n"
            "subprocess.run([sys.executable, '-c', 'from pkg.calc import sub; print(sub(5, 3))'], check=True)\n")
    assert promptcheck.run_repro(code, start) == (0, "8\n")
    assert not list(start.rglob("__pycache__")), "the Python it started wrote bytecode into the start state"


def test_fix_size_counts_source_lines_files_and_places():
    assert measure.fix_size(PATCH) == (1, 6, 1)  # the test file and the changelog do not count
    assert measure.Size(1, 6, 1, 900).difficulty == "trivial"
    assert measure.Size(1, 20, 2, 900).difficulty == "easy"
    assert measure.Size(3, 9, 3, 900).difficulty == "medium"
    assert measure.Size(4, 22, 5, 900).difficulty == "hard"
    assert measure.Size(1, 6, 1, 120_000).difficulty == "easy" and measure.Size(1, 6, 1, 120_000).size == "large"
