"""Error types that map onto the CLI's exit codes (0 ok, 2 bad input, 3 evaluation failure)."""

from __future__ import annotations

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 3


class BananaError(Exception):
    """Base class: carries the exit code the CLI should return."""

    exit_code = EXIT_FAILURE


class BadInput(BananaError):
    """The user's input (flags, data files, configuration) is wrong: exit 2, nothing written."""

    exit_code = EXIT_BAD_INPUT


class EvaluationFailure(BananaError):
    """The evaluation or its infrastructure failed (model server down, backend error): exit 3."""

    exit_code = EXIT_FAILURE


class Interrupted(BananaError):
    """SIGINT/SIGTERM arrived; finished work is kept, the item in flight is discarded."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum
        self.exit_code = 128 + signum


def located(path: object, line: int | None, field: str | None, message: str) -> str:
    """Format a data error the same way everywhere: `file:line: field: message`."""
    where = str(path)
    if line is not None:
        where += f":{line}"
    if field:
        where += f": {field}"
    return f"{where}: {message}"
