"""ModeBench on BananaBench: sample k answers per problem, grade them with `modebench`, keep every attempt.

`modebench` (a dependency, never re-implemented here) owns the tasks, the prompts, the verifiers and
the per-cell metrics. This package does what it leaves to its users: generate responses from a model
(`generate.py`), run its file evaluation over one or more groups and ingest the receipts and journals
into the store (`run.py`), and combine several groups the way the ModeBench grid does (`metrics.py`).
"""

from evaluators.core.contract import Metric
from evaluators.core.presentation import Presentation, Rank

BENCHMARK = "modebench"
CUSTOM_BENCHMARK = "modebench-custom"
HEADLINE_METRIC = Metric.PASS_AT_K
# What the site shows of ModeBench runs: their scores and the item table (registered by `start_run`).
PRESENTATION = Presentation(rank=Rank.DIVERSITY)
