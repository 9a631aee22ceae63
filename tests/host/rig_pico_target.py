# The test rig's firmware (boards/rig_pico) onto an emulated Pico: a new
# flash given the rig's build by `make deploy BOARD=rig_pico` through
# mpremote, as onto a real second Pico, whose closing reset restarts the
# emulation with the rig answering on its pty. The rig's emulated Pico has
# the rig's own MCP23017 model on its I2C bus (rig_wiring) and no seats.
import ast
import subprocess
import time
from pathlib import Path

from uthctl.boards import pico_image
from uthctl.links.rig import Rig, RigError

REPO = Path(__file__).resolve().parents[2]
RIG = REPO / "boards" / "rig_pico"
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


def rig_names(path, prefix):
    # The module-level assignments to names with prefix in a rig file, read
    # from its source (never imported: it imports machine): literals and const(N).
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "").startswith(prefix):
            value = node.value
            found[node.targets[0].id] = ast.literal_eval(
                value.args[0] if isinstance(value, ast.Call) else value)
    return found


def rig_pins():
    # The rig's wiring from its board file: _GP_* GPIOs, _X_* its expander's
    # address and bits (port A drives, port B lights: 0-7 each), _I2C_BUS.
    return rig_names(RIG / "board.py", "_")


def rig_wiring():
    # PicoBoard's wiring for the rig's Pico: its one expander on its I2C bus.
    pins = rig_pins()
    return dict(pico_image.wiring(), inputs={}, expander_inputs={}, bet_lights=[],
                jackpot_lights=[], expanders=[pins["_X_ADDRESS"]], i2c=pins["_I2C_BUS"],
                sda=pins["_GP_SDA"], scl=pins["_GP_SCL"])


def rig_board(flash):
    # An emulated Pico wired as the rig Pico (not yet started): the official
    # image, which `make deploy BOARD=rig_pico` copies the rig's build onto.
    from uthctl.boards.pico import PicoBoard

    return PicoBoard(flash=flash, wiring=rig_wiring(), image=pico_image.OFFICIAL)
