"""Whole programs: `perflab profile -- python app.py`, `--pid`, `perflab isolate`, suggestions, and
the loop from a real program (tests/programs/twitter_report) to verdicts with equivalence."""

import os
import select
import subprocess
import sys
import time

from perflab.profile.program import python_command


def test_the_launcher_says_it_is_ready_and_runs_nothing_before_the_go_byte(tmp_path):
    # py-spy is started only after the ready byte: on a process still loading Python it fails.
    ran = tmp_path / "ran"
    script = tmp_path / "app.py"
    script.write_text(f"open({str(ran)!r}, 'w').close()\n")
    go_read, go_write = os.pipe()
    ready_read, ready_write = os.pipe()
    argv = python_command([sys.executable, str(script)]).launcher(
        "--go-fd", str(go_read), "--ready-fd", str(ready_write)
    )
    launcher = subprocess.Popen(argv, pass_fds=(go_read, ready_write))
    os.close(go_read)
    os.close(ready_write)
    try:
        assert select.select([ready_read], [], [], 60)[0], "no ready byte from the launcher"
        assert os.read(ready_read, 1) == b"r"
        time.sleep(0.2)
        assert launcher.poll() is None and not ran.exists()
        os.write(go_write, b"g")
        assert launcher.wait(timeout=60) == 0 and ran.exists()
    finally:
        os.close(go_write)
        os.close(ready_read)
        if launcher.poll() is None:
            launcher.kill()
