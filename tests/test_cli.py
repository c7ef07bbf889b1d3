"""The CLI as a user meets it: help everywhere, store commands, exit codes on bad input."""

from __future__ import annotations

import argparse
import csv
import io
import json

import pytest

from evaluators import cli
from evaluators.specs.spec import builtin_specs
from evaluators.store.records import RunRow
from evaluators.store.store import Store, utcnow
from tests.conftest import run_cli, run_cli_process


def all_command_paths(parser: argparse.ArgumentParser, prefix=()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths.extend(all_command_paths(sub, prefix + (name,)))
    return paths


@pytest.mark.parametrize("path", all_command_paths(cli.build_parser()), ids=lambda p: " ".join(p) or "top")
def test_every_command_has_help(path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([*path, "--help"])
    assert exc.value.code == 0
    assert "usage: bananabench" in capsys.readouterr().out


def seeded_store(results) -> Store:
    s = Store(results)
    s.ensure_benchmark("b", "fake")
    s.insert_run(RunRow(run_id="r1", evaluator="fake", benchmark="b", model_name="alpha", status="finished",
                        started_at=utcnow(), finished_at=utcnow(), official=True))
    s.upsert("attempts", [{"run_id": "r1", "item_id": "i1", "status": "ok", "correct": True},
                          {"run_id": "r1", "item_id": "i2", "status": "ok", "correct": False}])
    return s


def test_store_info_query_and_export(results, tmp_path):
    seeded_store(results)
    info = run_cli("store", "info", "--results", str(results))
    assert info.returncode == 0 and "schema version" in info.stdout and "r1" in info.stdout
    as_json = json.loads(run_cli("store", "info", "--results", str(results), "--json").stdout)
    assert as_json["tables"]["attempts"] == 2
    q = run_cli("store", "query", "--results", str(results), "SELECT item_id, correct FROM attempts ORDER BY 1")
    assert q.returncode == 0
    assert list(csv.reader(io.StringIO(q.stdout))) == [["item_id", "correct"], ["i1", "True"], ["i2", "False"]]
    out = tmp_path / "export"
    e = run_cli("store", "export", "--results", str(results), "--format", "csv", str(out))
    assert e.returncode == 0 and (out / "attempts.csv").exists() and (out / "runs.csv").exists()


def test_store_query_formats_end_lines_with_lf(results):
    seeded_store(results)
    sql = "SELECT item_id, correct, NULL AS note FROM attempts ORDER BY 1"
    csv_out = run_cli("store", "query", "--results", str(results), sql).stdout
    assert csv_out == "item_id,correct,note\ni1,True,\ni2,False,\n"
    assert run_cli("store", "query", "--results", str(results), "--format", "csv", sql).stdout == csv_out
    lines = run_cli("store", "query", "--results", str(results), "--format", "json", sql).stdout
    assert [json.loads(line) for line in lines.splitlines()] == [
        {"item_id": "i1", "correct": True, "note": None}, {"item_id": "i2", "correct": False, "note": None}]
    assert run_cli("store", "query", "--results", str(results), "--json", sql).stdout == lines
    table = run_cli("store", "query", "--results", str(results), "--format", "table", sql).stdout
    assert table == ("item_id  correct  note\n"
                     "-------  -------  ----\n"
                     "i1       True\n"
                     "i2       False\n"
                     "(2 rows)\n")
    assert "\r" not in csv_out + lines + table
    bad = run_cli("store", "query", "--results", str(results), "--format", "xml", sql)
    assert bad.returncode == 2 and "invalid choice: 'xml'" in bad.stderr


def test_benchmarks_list_footer_is_a_line_of_its_own():
    # a real process with both streams on one pipe, its stdout block-buffered: what `2>&1 | less` shows
    proc = run_cli_process("benchmarks", "list", stderr_to_stdout=True, env={"PYTHONUNBUFFERED": ""})
    assert proc.returncode == 0
    *rows, footer = proc.stdout.splitlines()
    assert footer.startswith(f"{len(rows)} built-in benchmark(s);") and len(rows) >= 5
    assert [row.split()[0] for row in rows] == [spec.id for spec in builtin_specs()]
    listed = run_cli("benchmarks", "list")
    assert listed.stdout.splitlines() == rows and listed.stderr == footer + "\n"


def test_store_curation_commands(results, tmp_path):
    seeded_store(results)
    assert run_cli("store", "hide", "--results", str(results), "r1").returncode == 0
    assert Store(results).current_runs() == []
    assert run_cli("store", "unhide", "--results", str(results), "r1").returncode == 0
    r = run_cli("store", "rename-model", "--results", str(results), "alpha", "beta")
    assert r.returncode == 0 and "1 runs" in r.stdout
    other = Store(tmp_path / "other")
    other.ensure_benchmark("b", "fake")
    other.insert_run(RunRow(run_id="r2", evaluator="fake", benchmark="b", model_name="gamma", status="finished",
                            started_at=utcnow(), finished_at=utcnow()))
    m = run_cli("store", "merge", "--results", str(results), str(tmp_path / "other"))
    assert m.returncode == 0 and "runs 1" in m.stdout
    listed = run_cli("models", "list", "--results", str(results))
    assert "beta" in listed.stdout and "gamma" in listed.stdout


@pytest.mark.parametrize("args, message", [
    (("store", "query", "SELEC nonsense"), "query failed"),
    (("store", "hide", "no-such-run"), "no run"),
    (("store", "rename-model", "ghost", "x"), "no model"),
    (("store", "merge", "/nonexistent/place"), "no results database"),
    (("store", "export", "--format", "xml", "d"), "invalid choice"),
    (("no-such-command",), "invalid choice"),
    (("store",), "required"),
])
def test_bad_input_exits_2_with_a_clear_message(results, args, message):
    seeded_store(results)
    verb_args = list(args)
    if len(args) > 1 and args[0] == "store":
        verb_args = [args[0], args[1], "--results", str(results), *args[2:]]
    r = run_cli(*verb_args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert "Traceback" not in r.stderr
