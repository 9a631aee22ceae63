# The `round` command on the emulated Pico: bench/round_command.py run on the
# chip (the controller built as main.py builds it, on the board's own flash)
# after `make deploy`. Times are estimates from the emulator's cycle count at
# 125 MHz, CPU only (flash operations take no emulated time; see pico_bench).
# Usage: .venv/bin/python bench/pico_round.py [CHIP_SCRIPT]  (default: round_command.py)
# round_command.py is copied to the chip's flash too, for a script that
# imports it (bench/round_profile.py).
import json
import os
import sys
import tempfile
import time

import pico_bench  # bench/, beside this script

sys.path.insert(0, str(pico_bench.ROOT / "host_tools"))


def main(script):
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.boards.pico import PicoBoard

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="uth-round-pico-") as tmp:
        with open(os.path.join(tmp, "board.log"), "w") as log:
            board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                              image="official")
            with board:
                came = board.wait_started(pico_bench.BOOT_WAIT)
                if came["state"] != "repl":
                    raise RuntimeError("a new flash did not come up at the REPL: %s" % came)
                pico_bench.deploy(board, tmp, pico_bench.quiet_seed())
                # The running controller's port handed to the REPL (the key
                # held, `repl`): no byte alone stops it.
                hand_to_repl(board.serial_path, board.rig_address, timeout=120.0)
                pico_bench.mpremote(board.serial_path, "cp",
                                    str(pico_bench.BENCH / "round_command.py"), ":")
                out = pico_bench.mpremote(board.serial_path, "run",
                                          str(script))
    found = pico_bench.last_json(out)
    found["wall_s"] = round(time.monotonic() - started, 1)
    print(json.dumps(found))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else pico_bench.BENCH / "round_command.py")
