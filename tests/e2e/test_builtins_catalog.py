"""The built-in case studies as a whole: listed by name, safe to import by path, data checked."""

import subprocess
import sys

from perflab import builtins

CASE_STUDIES = [
    "json_dumps",
    "json_loads",
    "logging_messages",
    "crypto_aes",
    "json_dumps_ensure_ascii",
    "uuids",
    "http_parse",
]


def test_perflab_list_shows_every_case_study_with_one_line():
    listing = subprocess.run(
        [sys.executable, "-m", "perflab", "list"], capture_output=True, text=True, check=True
    ).stdout
    for name in CASE_STUDIES:
        line = next(line for line in listing.splitlines() if line.split()[0] == name)
        assert builtins.summary(name)[:30] in line  # the terminal may wrap the rest
