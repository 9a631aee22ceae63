# The program check's time at start (bench/start_check.py) on the boards this
# machine runs: the emulated Pico's project image (the image in flash) and the
# virtual board's build on the 32-bit unix port (its files). Prints one JSON
# object; docs/benchmarks.md, "The program check at start", gives the figures.
# Usage: .venv/bin/python bench/start_check_run.py
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pico_bench  # bench/, beside this script

REPO = Path(__file__).resolve().parent.parent


def on_unix_port():
    # The virtual board's program: the sim build its supervisor lends, read as files.
    from uthctl.boards import sim_build
    from uthctl.boards.virtual import find_micropython

    firmware, _ = sim_build.compiled(REPO)
    code = ("import sys;sys.path.insert(0,%r);import start_check,json;"
            "from table.program import files_program;"
            "print(json.dumps(start_check.measure(files_program(%r,%r))))"
            % (str(REPO / "bench"), str(firmware), str(firmware / "main.py")))
    env = dict(os.environ, MICROPYPATH=":".join([".frozen", str(firmware)]))
    done = subprocess.run([find_micropython(), "-c", code], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    return pico_bench.last_json(done.stdout)


def on_pico():
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.boards.pico import PicoBoard

    with tempfile.TemporaryDirectory(prefix="uth-bench-start-") as tmp:
        with open(os.path.join(tmp, "board.log"), "w") as log:
            board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                              image="project")
            with board:
                board.wait_started(pico_bench.BOOT_WAIT)
                hand_to_repl(board.serial_path, board.rig_address, timeout=120.0)
                return pico_bench.last_json(pico_bench.mpremote(
                    board.serial_path, "run", str(pico_bench.BENCH / "start_check.py")))


def main():
    found = {"unix_port": on_unix_port()}
    if "--unix-only" not in sys.argv:
        found["pico_project_image"] = on_pico()
    print(json.dumps(found))


if __name__ == "__main__":
    main()
