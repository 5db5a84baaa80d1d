"""``perflab isolate``: from a real program to a benchmark of one of its functions, with the inputs
that function really saw (recording.py runs the program and records calls; benchmark_file.py
writes the benchmark file that ``perflab run`` takes)."""

DEFAULT_CALLS = 50  # calls recorded per run, sampled evenly over it
DEFAULT_MAX_BYTES = 10_000_000  # largest pickled arguments of one call that are kept
