# `uthctl floor ... add-user` and `users passwd` from the command line: with
# no terminal to ask the password on, a clear error naming UTH_FLOOR_PASSWORD;
# an unknown name said before anything about the password.
import json
import os
import subprocess
import sys

import pytest

from uthctl.cli import main as uthctl


def _floor(folder, *argv, password=None):
    # The command in a session of its own (no controlling terminal), its
    # standard input empty, as from cron or `< /dev/null`.
    env = {k: v for k, v in os.environ.items() if k != "UTH_FLOOR_PASSWORD"}
    if password is not None:
        env["UTH_FLOOR_PASSWORD"] = password
    return subprocess.run([sys.executable, "-m", "uthctl.cli", "floor", "--dir", str(folder)]
                          + list(argv), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, env=env, start_new_session=True, timeout=120)


@pytest.mark.parametrize("argv", [("add-user", "bob", "--role", "viewer"),
                                  ("users", "passwd", "sam")])
def test_no_terminal_and_no_password_variable_is_a_clear_error(tmp_path, monkeypatch, argv):
    monkeypatch.setenv("UTH_FLOOR_PASSWORD", "sams password")
    assert uthctl(["floor", "--dir", str(tmp_path), "add-user", "sam", "--role",
                   "viewer"]) == 0
    done = _floor(tmp_path, *argv)
    assert done.returncode == 2, done.stderr
    assert ("uthctl: error: no terminal to ask the password on: set UTH_FLOOR_PASSWORD or "
            "run it in a terminal") in done.stderr
    assert "internal error" not in done.stderr
    assert sorted(json.loads((tmp_path / "users.json").read_text())) == ["sam"]  # nothing added


def test_an_unknown_user_is_said_before_the_passwords_length(tmp_path):
    done = _floor(tmp_path, "users", "passwd", "nobody", password="x")
    assert done.returncode == 2
    assert done.stderr.strip() == "uthctl: error: no floor page user 'nobody'"


@pytest.mark.parametrize("argv", [("add-user", "bob", "--role", "viewer", "--password-stdin"),
                                  ("users", "passwd", "sam", "--password-stdin")])
def test_a_password_on_standard_input_for_scripts_with_no_warning(tmp_path, argv):
    from uthctl.floor.page.users import Users

    env = {k: v for k, v in os.environ.items() if k != "UTH_FLOOR_PASSWORD"}
    added = subprocess.run([sys.executable, "-W", "default", "-m", "uthctl.cli", "floor",
                            "--dir", str(tmp_path), "add-user", "sam", "--role", "viewer",
                            "--password-stdin"], input="first password\n",
                           capture_output=True, text=True, env=env, timeout=120)
    assert added.returncode == 0, added.stderr
    done = subprocess.run([sys.executable, "-W", "default", "-m", "uthctl.cli", "floor",
                           "--dir", str(tmp_path)] + list(argv), input="a scripted one\n",
                          capture_output=True, text=True, env=env, timeout=120,
                          start_new_session=True)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr + added.stderr  # getpass's GetPassWarning
    name = argv[1] if argv[0] == "add-user" else argv[2]
    assert Users(tmp_path / "users.json").check(name, "a scripted one")
    # Nothing on standard input: a clear error, nothing changed.
    empty = subprocess.run([sys.executable, "-m", "uthctl.cli", "floor", "--dir", str(tmp_path),
                            "add-user", "eve", "--role", "viewer", "--password-stdin"],
                           input="", capture_output=True, text=True, env=env, timeout=120)
    assert empty.returncode == 2 and "standard input held no password" in empty.stderr
