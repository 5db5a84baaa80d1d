"""``python -m perflab.bench.worker.program [OPTIONS] -- script.py ARGS`` (or ``-- -m module ARGS``): runs a
Python program as ``python script.py ARGS`` would, for whole-program profiles and ``perflab isolate``.

Started by perflab instead of the program itself so that
- the program starts only once the sampler is attached (``--go-fd``: one byte on that pipe), so
  its first milliseconds are profiled too, and nothing of it has run if the sampler cannot attach;
  ``--ready-fd`` says when this interpreter is up and waiting, so that py-spy is not started on a
  process still loading Python ("Failed to find python version from target process");
- its frames can be told from the launcher's (everything below ``run_program`` is the program's);
- the in-process sampler (``--inprocess RATE,MODE,FILE``) can run where py-spy may not attach;
- calls of one function can be recorded (``--record SPEC``, see perflab.bench.worker.call_recorder).

The program's ``sys.argv``, ``sys.path[0]`` and ``__main__`` are what they would be without perflab;
its output, exceptions and exit status are its own. Standard library only.
"""

from __future__ import annotations

import json
import os
import runpy
import sys

PROGRAM_REGION = "run_program"


def prepare(target: list[str]) -> None:
    """``sys.argv`` and ``sys.path[0]`` as ``python script.py`` or ``python -m module`` sets them."""
    if target[0] == "-m":
        sys.argv = [target[1], *target[2:]]  # runpy puts the module's file in argv[0]
        sys.path[0] = os.getcwd()
    else:
        sys.argv = list(target)
        sys.path[0] = os.path.dirname(os.path.abspath(target[0]))


def run_program(target: list[str]) -> None:
    """Run the script or module; profiles keep what runs below this frame."""
    if target[0] == "-m":
        runpy.run_module(target[1], run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target[0], run_name="__main__")


def main(argv: list[str]) -> None:
    options, target = _split(argv)
    from perflab.bench.worker.call_recorder import (  # before sys.path[0] becomes the program's
        CallRecorder,
        RecorderError,
    )
    from perflab.bench.worker.inprocess_sampler import InProcessSampler

    prepare(target)
    ready_fd = options.get("--ready-fd")
    if ready_fd is not None:
        os.write(int(ready_fd), b"r")
        os.close(int(ready_fd))
    go_fd = options.get("--go-fd")
    if go_fd is not None:  # wait until the parent's sampler is attached
        go = os.read(int(go_fd), 1)
        os.close(int(go_fd))
        if not go:  # the parent is gone or gave up: the program is not run
            raise SystemExit(1)
    sampler = recorder = None
    inprocess = options.get("--inprocess")
    if inprocess is not None:
        rate, mode, stacks_file = inprocess.split(",", 2)
        sampler = InProcessSampler(float(rate), mode)
        sampler.start()
    if options.get("--record") is not None:
        try:
            recorder = CallRecorder.from_spec(options["--record"])
        except RecorderError as error:  # the program is not run: the parent reports this line
            CallRecorder.write_error(options["--record"], str(error))
            raise SystemExit(2) from None
        recorder.start()
    try:
        run_program(target)
    finally:
        if sampler is not None:
            with open(stacks_file, "w", encoding="utf-8") as file:
                json.dump(sampler.stop(), file)
        if recorder is not None:
            recorder.stop()


def _split(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    if "--" not in argv:
        raise SystemExit("usage: python -m perflab.bench.worker.program [OPTIONS] -- script.py ARGS | -m module ARGS")
    position = argv.index("--")
    flags, target = argv[:position], argv[position + 1 :]
    if not target or (target[0] == "-m" and len(target) < 2):
        raise SystemExit("perflab.bench.worker.program: no script or module to run")
    return dict(zip(flags[::2], flags[1::2])), target


if __name__ == "__main__":
    main(sys.argv[1:])
