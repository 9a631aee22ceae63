# The power-cut proof through settled rounds in full: every flash operation
# of every step of the table day with rounds settled on the board, and of
# the boots after, in three ways, under both boards' littlefs settings
# (tests/logic/power_cut_script.py, settled-full). `make test` cuts one
# settlement's operations (tests/logic/test_power_cut.py); this takes
# minutes, so it is long_run (`make test-long`).
import os
import subprocess
from pathlib import Path

import pytest

from uthctl.boards import heaps

ROOT = Path(__file__).resolve().parents[2]
HEAP = heaps.heapsize(heaps.smallest()[1])  # the smaller controller board's, as make test's


@pytest.mark.long_run
@pytest.mark.parametrize("board", ["pico", "esp32"])
def test_power_cut_at_every_operation_of_the_day_with_settled_rounds(micropython, board):
    env = dict(os.environ, MICROPYPATH="firmware:tests/logic")
    done = subprocess.run([micropython, "-X", "heapsize=" + HEAP,
                           "tests/logic/power_cut_script.py", board, "settled-full",
                           HEAP], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    print(done.stdout)
    assert done.returncode == 0, done.stdout
