# The controller on a new emulated Pico's flash, for any test that wants one.
# On the project's image (the default) it is frozen in: a new flash starts it.
# On the official image it comes by the real path, `make deploy` through
# mpremote, whose closing `mpremote reset` restarts the emulation on the saved
# flash. mpremote reaches a running controller's REPL only through the key
# switch and the host link's `repl` (to_repl). With a seed, a TEST-ONLY
# /boot.py goes onto the flash too (pico_seeded_boot.py): the controller's
# random source becomes the seeded stream the virtual board's tests use, so
# hit values are foreseen by independent_draws.py.
import subprocess
import sys
from pathlib import Path

from uthctl.boards.handoff import hand_to_repl
from uthctl.links.rig import Rig

REPO = Path(__file__).resolve().parents[2]
MPREMOTE = Path(sys.executable).parent / "mpremote"
SEEDED_BOOT = Path(__file__).parent / "pico_seeded_boot.py"
SEEDED_BYTES = REPO / "boards" / "sim" / "seeded_bytes.py"  # the boot's seeded source
BOOT_WAIT = 60.0
HANDOFF_WAIT = 60.0  # each reply of the key's turn and `repl`, on an emulated chip


def mpremote(port, *args, timeout=120):
    done = subprocess.run([str(MPREMOTE), "connect", port, *args], capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def to_repl(board, timeout=HANDOFF_WAIT):
    # A running controller's port handed to the REPL, as a technician gets it
    # (the key held, `repl`): no byte a host sends stops the controller.
    return hand_to_repl(board.serial_path, board.rig_address, timeout)


def seeded_boot(seed):
    # pico_seeded_boot.py with its seed written in.
    source = SEEDED_BOOT.read_text()
    assert "SEED = 0\n" in source
    return source.replace("SEED = 0\n", "SEED = %d\n" % seed)


def seeded_copies(folder, seed):
    # mpremote's arguments that put the seeded /boot.py, and the seeded
    # source it imports beside it, onto a board's flash.
    boot = Path(folder) / "boot.py"
    boot.write_text(seeded_boot(seed))
    return ["cp", str(boot), ":boot.py", "+", "cp", str(SEEDED_BYTES), ":seeded_bytes.py"]


def fresh_controller(board, folder, seed=None):
    # The controller on a running PicoBoard's new flash, as the board's image
    # brings it; returns how it came up after its last restart.
    if board.image == "official":
        assert board.wait_started(BOOT_WAIT)["state"] == "repl"  # a bare image
        return deploy(board, folder, seed)
    came = board.wait_started(BOOT_WAIT)
    if seed is None:
        return came
    assert came == {"state": "unconfigured", "fault": None}, came
    boots = board.state()["boots"]
    to_repl(board)
    mpremote(board.serial_path, *seeded_copies(folder, seed), "+", "reset")
    return _restarted(board, boots)


def _restarted(board, boots):
    with Rig(board.rig_address) as rig:
        rig.wait_for(lambda s: s["boots"] == boots + 1 and s["powered"], BOOT_WAIT,
                     what="the restart after mpremote reset")
    return board.wait_started(BOOT_WAIT)


def deploy(board, folder, seed=None):
    # Deploys the project to a running PicoBoard at its REPL (a new flash) and
    # returns how the controller came up after the restart.
    boots = board.state()["boots"]
    if seed is not None:
        mpremote(board.serial_path, *seeded_copies(folder, seed))
    done = subprocess.run(["make", "-C", str(REPO), "deploy", "BOARD=rp2040_pico",
                           "PORT=" + board.serial_path], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return _restarted(board, boots)
