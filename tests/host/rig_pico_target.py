# The test rig's firmware (boards/rig_pico) onto an emulated Pico: a new
# flash given the rig's build by `make deploy BOARD=rig_pico` through
# mpremote, as onto a real second Pico, whose closing reset restarts the
# emulation with the rig answering on its pty.
import subprocess
import time
from pathlib import Path

from uthctl.links.rig import Rig, RigError

REPO = Path(__file__).resolve().parents[2]
BOOT_WAIT = 60.0
# The rig Pico's GPIOs with no controller input of their own (boards/rig_pico/board.py).
RUN_GPIO = 16
POWER_GPIO = 17


def deploy_rig(board):
    # Deploys the rig to a running PicoBoard at its REPL (a new flash) and
    # waits until the rig answers on the serial port.
    boots = board.state()["boots"]
    done = subprocess.run(["make", "-C", str(REPO), "deploy", "BOARD=rig_pico",
                           "PORT=" + board.serial_path], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    with Rig(board.rig_address) as pins:
        pins.wait_for(lambda s: s["boots"] == boots + 1 and s["powered"], BOOT_WAIT,
                      what="the restart after mpremote reset")
    wait_for_rig(board.serial_path)


def wait_for_rig(port, timeout=BOOT_WAIT):
    # Until the rig firmware answers a ping on its serial port.
    deadline = time.monotonic() + timeout
    while True:
        try:
            with Rig(port=port, timeout=2.0) as rig:
                return rig.request(op="ping")
        except RigError:
            if time.monotonic() > deadline:
                raise
