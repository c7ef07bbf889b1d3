"""`python -m evaluators` is the same as the `bananabench` console script."""

from evaluators.cli import main

raise SystemExit(main())
