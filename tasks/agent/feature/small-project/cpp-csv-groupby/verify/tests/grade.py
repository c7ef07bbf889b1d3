"""Hidden grader for csvq: records three tests in $BANANABENCH_REPORT (run from the staged workspace).

- unit_tests::csv_and_queries: the project's unit tests record themselves (bananabench_test.hpp);
- cli_tests: the project's end-to-end shell checks;
- groupby: random tables and queries against a Python reference (hidden_groupby.py).
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden_groupby  # noqa: E402


def record(test_id, passed, message=""):
    line = {"id": test_id, "outcome": "passed" if passed else "failed", "message": message[-2000:]}
    with open(os.environ["BANANABENCH_REPORT"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def main():
    env = {**os.environ, "BANANABENCH_TEST_PREFIX": "unit_tests"}
    subprocess.run(["./build/unit_tests"], env=env, timeout=120)
    cli = subprocess.run(["sh", "tests/cli_tests.sh"], capture_output=True, text=True, timeout=120)
    print(cli.stdout + cli.stderr)
    record("cli_tests", cli.returncode == 0, cli.stdout + cli.stderr)
    hidden_groupby.main()
    record("groupby", not hidden_groupby.failures, "\n".join(hidden_groupby.failures[:5]))


if __name__ == "__main__":
    main()
