"""Where things are, for tests in any tier folder: the repository, the tests folder and its data."""

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
