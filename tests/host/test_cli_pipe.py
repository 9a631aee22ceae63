# A reader that closes the pipe (`uthctl signage A1 | head -5`) has what it
# wanted: uthctl ends quietly with status 0, as `head`'s writers do in a shell
# script, not with an error about the pipe.
import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv", [["signage", "A1"], ["paytables"], ["paytables", "--json"]])
def test_a_closed_stdout_ends_quietly(argv):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader gone before the first line is written
    try:
        done = subprocess.run([sys.executable, "-m", "uthctl.cli"] + argv, stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")
