# `make sim` is the virtual board and builds no firmware image; only
# `make sim BOARD=rp2040_pico` builds the Pico's first. BOARD's own default
# (make deploy's rp2040_pico) once made plain `make sim` build the image for
# minutes before a virtual table. Read from make's dry run, which runs nothing.
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def dry_run(*args):
    # Run from make test, this make is a sub-make: its parent's flags and
    # directory lines are not this dry run's.
    env = {name: value for name, value in os.environ.items()
           if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    done = subprocess.run(["make", "--no-print-directory", "-n", "sim", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_plain_make_sim_builds_no_image_and_names_no_board():
    commands = dry_run()
    assert "build_image.py" not in commands
    assert commands.rstrip().splitlines()[-1].split()[1:] == ["sim"]


def test_make_sim_for_the_pico_builds_its_image_first():
    lines = dry_run("BOARD=rp2040_pico").rstrip().splitlines()
    assert any("build_image.py --board rp2040_pico" in line for line in lines)
    assert lines[-1].split()[1:] == ["sim", "--board", "rp2040_pico"]


def test_make_sim_for_the_esp32_runs_the_emulated_esp32_and_builds_no_image():
    lines = dry_run("BOARD=esp32_devkitc").rstrip().splitlines()
    assert not any("build_image.py" in line for line in lines)
    assert lines[-1].split()[1:] == ["sim", "--board", "esp32_devkitc"]
