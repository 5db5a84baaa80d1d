"""asv.conf.json: where a project's asv benchmark directory is.

asv reads its configuration as JSON with JavaScript comments (through json5), and takes
``benchmark_dir`` (default ``benchmarks``) relative to the file's directory. Plain JSON is read
with the standard library; a file with comments needs json5 (``pip install 'perflab[asv]'``).
"""

from __future__ import annotations

import json
from pathlib import Path

CONFIG_NAME = "asv.conf.json"
DEFAULT_BENCHMARK_DIR = "benchmarks"


class AsvConfigError(Exception):
    """asv.conf.json cannot be read; one line naming the file and what to do."""


def benchmark_dir(config: Path) -> Path:
    """The benchmark directory that ``config`` (an asv.conf.json) names."""
    try:
        text = config.read_text(encoding="utf-8")
    except OSError as error:
        raise AsvConfigError(f"{config}: cannot be read: {error.strerror}") from None
    try:
        settings = json.loads(text)
    except ValueError:
        settings = _json_with_comments(config, text)
    if not isinstance(settings, dict):
        raise AsvConfigError(f"{config}: not an asv configuration (expected a JSON object)")
    directory = config.parent / str(settings.get("benchmark_dir", DEFAULT_BENCHMARK_DIR))
    if not directory.is_dir():
        raise AsvConfigError(f"{config}: its benchmark_dir {directory} is not a directory")
    return directory.resolve()


def _json_with_comments(config: Path, text: str) -> object:
    try:
        import json5
    except ImportError:
        raise AsvConfigError(
            f"{config}: not plain JSON (comments?); asv reads it with json5: pip install 'perflab[asv]', "
            "or give the benchmark directory itself"
        ) from None
    try:
        return json5.loads(text)
    except ValueError as error:
        raise AsvConfigError(f"{config}: not valid JSON5: {error}") from None
