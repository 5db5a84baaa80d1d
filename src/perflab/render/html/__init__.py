"""Self-contained offline HTML: the comparison report and the flame graph viewer (assets/)."""
