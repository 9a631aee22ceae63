# A build step of minutes says how far it is on the clock, also while the
# build itself prints nothing (one long compile): the step waits here until
# two progress lines have come during its silence, so the test holds whatever
# the machine's speed.
import os

import pytest

from uthctl import logged_run


def test_progress_lines_come_while_the_build_is_silent(tmp_path, monkeypatch):
    monkeypatch.setattr(logged_run, "PROGRESS_EVERY_S", 0.05)
    go_on = tmp_path / "go-on"
    said = []

    def say(line):
        said.append(line)
        if sum("the image: 12%" in text for text in said) >= 2:
            go_on.touch()

    script = ("echo '[ 12%%] Building C object a.o'; while [ ! -e %s ]; do sleep 0.05; done; "
              "echo '[ 57%%] Building C object b.o'" % go_on)
    with open(tmp_path / "build.log", "wb") as out:
        logged_run.run_logged(["sh", "-c", script], dict(os.environ), out, say, "the image")
    shown = [line.split(",")[0].strip() for line in said]
    assert shown.count("the image: 12%") >= 2
    assert set(shown) <= {"the image: working", "the image: 12%", "the image: 57%"}
    assert all(line.endswith("s so far") for line in said)
    assert "57%] Building C object b.o" in (tmp_path / "build.log").read_text()


def test_a_failed_step_says_its_exit_status(tmp_path):
    with open(tmp_path / "build.log", "wb") as out, \
            pytest.raises(logged_run.StepFailed, match="exited 3"):
        logged_run.run_logged(["sh", "-c", "exit 3"], dict(os.environ), out)
