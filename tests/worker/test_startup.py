"""``perflab --help`` and the start of every verb stay fast: building the command line imports
none of the heavy libraries (numpy, scipy, Hypothesis, pyperf), which the verbs import where they
use them. (How fast it is, is a figure in benchmarks/, not a test.)"""

import subprocess
import sys

HEAVY = ("numpy", "scipy", "hypothesis", "pyperf", "psycopg", "procrastinate")
PROBE = """
import contextlib, io, sys
from perflab import cli
parser = cli.parser()
for verb in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args([verb, "--help"])
        except SystemExit:
            pass
print(" ".join(sorted({name.partition(".")[0] for name in sys.modules} & set(HEAVY))))
""".replace("HEAVY", repr(HEAVY))
VERBS = ["run", "compare", "bisect", "demo", "list", "history", "check", "import", "export", "profile", "merge", "diff"]
VERBS += ["submit", "worker", "jobs"]


def test_help_of_every_verb_imports_no_heavy_library():
    done = subprocess.run([sys.executable, "-c", PROBE, *VERBS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"imported at start-up: {done.stdout}"


def test_the_results_model_and_store_import_no_statistics_library():
    probe = (
        "import sys, perflab.results.model, perflab.results.store, perflab.render.terminal.results; "
        "print(' '.join(sorted({m.partition('.')[0] for m in sys.modules} & {'numpy', 'scipy'})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
