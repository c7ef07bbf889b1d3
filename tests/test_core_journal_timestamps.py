"""Resume replays the journal: rows with timestamps (JSON strings there) must go back into the store."""

from __future__ import annotations

import datetime as dt

from evaluators.core.runs import RunSpec, start_run
from evaluators.core.store import Store


def test_resume_replays_timestamped_rows(tmp_path):
    store = Store(tmp_path)
    spec = RunSpec(evaluator="fake", benchmark="b", model_name="m", n_items=2)
    began = dt.datetime(2026, 1, 2, 3, 4, 5, 678000)
    run = start_run(store, spec)
    with run:
        run.flush_every_s = 1e9          # keep the row in the journal only, as after a crash
        run.record({"item_id": "a", "status": "ok", "started_at": began})
        run._buffer = {k: [] for k in run._buffer}
    resumed = start_run(store, spec, resume=True)
    with resumed:
        assert resumed.run_id == run.run_id and resumed.is_done("a")
    assert store.attempts(run.run_id)[0]["started_at"] == began
