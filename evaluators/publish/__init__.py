"""The publisher: reads only the store (and the artifacts it points to) and renders the static site
(`bananabench publish`) and text/markdown reports (`bananabench report`) from the same queries."""
