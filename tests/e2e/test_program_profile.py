"""Whole programs: `perflab profile -- python app.py`, `--pid`, `perflab isolate`, suggestions, and
the loop from a real program (tests/programs/twitter_report) to verdicts with equivalence."""

from support.cli import run_perflab
from support.program_profile_shared import EXITS

from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile


def test_exit_status_and_output_pass_through_with_the_inprocess_sampler(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(EXITS)
    result = run_perflab(
        "profile",
        "--sampler",
        "inprocess",
        "--json",
        tmp_path / "p.json",
        "--html",
        tmp_path / "p.html",
        "--",
        "python",
        app,
        "a",
    )
    assert result.returncode == 3, result.stderr
    assert "the program's own output ['a']" in result.stdout
    profile = Profile.load(tmp_path / "p.json")
    roots = {parse_frame(stack[0]).name for stack in profile.merged() if stack}
    assert roots == {"<module>"}  # the launcher's frames are gone
    assert any("spin" in label for stack in profile.merged() for label in stack)
    assert profile.metadata["run_info"][0]["exit_status"] == 3
    assert "the program" in (tmp_path / "p.html").read_text() and "the program" in result.stdout  # the root


def test_bad_program_forms_are_refused_in_one_line(tmp_path):
    both = run_perflab("profile", "json_dumps", "--", "python", "x.py")
    assert both.returncode == 2 and "both given" in both.stderr
    assert run_perflab("profile", "--duration", "1", "--", "python", "x.py").returncode == 2
    code = run_perflab("profile", "--", "python", "-c", "pass")
    assert code.returncode == 2 and "python -c is not supported" in code.stderr
    missing = run_perflab("profile", "--pid", "999999999")
    assert missing.returncode == 2
    absent = run_perflab("profile", "--", "python", tmp_path / "absent.py")
    assert absent.returncode == 2 and "absent.py: no such file" in absent.stderr
    app = tmp_path / "app.py"
    app.write_text(EXITS)
    clobber = run_perflab("profile", "--json", app, "--", "python", app)
    assert clobber.returncode == 2 and app.read_text() == EXITS  # an output never overwrites the program
    nothing = run_perflab("profile")
    assert nothing.returncode == 2 and "nothing to profile" in nothing.stderr


def test_recorder_refuses_what_cannot_be_copied_and_names_it(tmp_path):
    (tmp_path / "lib.py").write_text("def handle(value):\n    return 1\n")
    app = tmp_path / "app.py"
    app.write_text(
        "import threading\nfrom lib import handle\nclass Local:\n    pass\n"
        "for _ in range(5):\n    handle(threading.Lock())\n    handle(Local())\n"
    )
    result = run_perflab(
        "isolate", "--function", "lib:handle", "--output", tmp_path / "b.py", "--", "python", app, cwd=tmp_path
    )
    assert result.returncode == 1
    assert "10 calls seen, none recorded" in result.stderr
    assert "cannot be copied (TypeError" in result.stderr and "__main__" in result.stderr
    assert not (tmp_path / "b.py").exists() and not (tmp_path / "b.inputs.pickle").exists()
    unknown = run_perflab("isolate", "--function", "lib:nope", "--output", tmp_path / "c.py", "--", "python", app)
    assert unknown.returncode == 1 and "lib has no nope" in unknown.stderr
