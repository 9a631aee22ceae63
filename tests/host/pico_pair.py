# Two emulated Picos wired pin to pin by the host: the rig Pico
# (boards/rig_pico) and the controller's Pico (boards/rp2040_pico), each in
# its own emulator. A thread copies each level across as it changes, as the
# wires of the README's table would carry it:
#   rig drive GPIO high -> its NPN on -> the controller's input pulled low:
#       the controller board's rig `set NAME 1` (chip present, pressed, turned;
#       the seats' on its expanders)
#   controller light (an expander's output) -> the rig's light input GPIO
#       (boards/rig_pico/board.py: seats 1-6; the UTH spots stay placed)
#   rig RUN GPIO high -> the controller reset; rig power GPIO low/high ->
#       the controller's supply off/on
# It polls both chips every few ms (all of a chip's pads in one round trip),
# so a level crosses within about one poll plus the emulators' lag: presses
# of a few hundred ms, as a dealer's, cross whole.
import ast
import json
import threading
import time
from pathlib import Path

from rig_pico_target import POWER_GPIO, RUN_GPIO

from uthctl.links.rig import Rig

POLL_S = 0.005
TIMEOUT = 30.0
RIG = Path(__file__).resolve().parents[2] / "boards" / "rig_pico"


def rig_names(path, prefix):
    # The module-level assignments to names with prefix in a rig file, read
    # from its source (never imported: it imports machine): tuples and const(N).
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "").startswith(prefix):
            value = node.value
            found[node.targets[0].id] = ast.literal_eval(value if isinstance(value, ast.Tuple)
                                                         else value.args[0])
    return found


def rig_gpios():
    return rig_names(RIG / "board.py", "_GP_")


class PinBridge(threading.Thread):
    def __init__(self, rig_board, controller_board):
        super().__init__(name="pin-bridge", daemon=True)
        gpios = rig_gpios()
        names = rig_names(RIG / "rig_protocol.py", "INPUTS")["INPUTS"]
        self.inputs = dict(zip(names, gpios["_GP_DRIVE"], strict=True))  # name: rig GPIO
        self.seats = len(gpios["_GP_BET_LIGHT"])  # the seats whose lights the rig reads
        self.lights = list(gpios["_GP_BET_LIGHT"]) + list(gpios["_GP_JACKPOT_LIGHT"])
        self.rig_address = rig_board.rig_address
        self.controller_address = controller_board.rig_address
        self.halt = threading.Event()
        self.error = None
        self.crossed = 0  # levels copied across, for the test to see the wires worked

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.halt.set()
        self.join(TIMEOUT)
        if self.error is not None and exc[0] is None:
            raise self.error

    def run(self):
        try:
            with Rig(self.rig_address, TIMEOUT) as rig_pins, \
                    Rig(self.controller_address, TIMEOUT) as controller:
                self._bridge(rig_pins, controller)
        except Exception as error:  # the test raises it when it ends
            self.error = error

    def _bridge(self, rig_pins, controller):
        drives = {name: 0 for name in self.inputs}
        lights = {gpio: None for gpio in self.lights}  # None: not yet put on the rig's pad
        run, power = 0, 1
        while not self.halt.is_set():
            pads = read_pads(rig_pins, list(self.inputs.values()) + [RUN_GPIO, POWER_GPIO])
            for name, gpio in self.inputs.items():
                if pads[gpio] != drives[name]:
                    drives[name] = pads[gpio]
                    controller.set(name, pads[gpio])  # high: the transistor pulls it low
                    self.crossed += 1
            if pads[RUN_GPIO] and not run:
                controller.reset()
            if pads[POWER_GPIO] != power:
                controller.power(bool(pads[POWER_GPIO]))
            run, power = pads[RUN_GPIO], pads[POWER_GPIO]
            self._lights(rig_pins, controller.state(), lights)
            time.sleep(POLL_S)

    def _lights(self, rig_pins, state, lights):
        seats = self.seats
        levels = state["bet_lights"][:seats] + state["jackpot_lights"][:seats]
        for gpio, level in zip(self.lights, levels, strict=True):
            if lights[gpio] != level:
                lights[gpio] = level
                rig_pins.request(op="gpio", pin=gpio, level=level)
                self.crossed += 1


def read_pads(pins, gpios):
    # Every pad's level in one round trip: the requests sent together, the
    # answers read in order.
    pins.transport.send(b"".join(json.dumps({"op": "gpio", "pin": gpio}).encode() + b"\n"
                                 for gpio in gpios))
    levels = {}
    for _ in gpios:
        reply = json.loads(pins.transport.read_line())
        assert reply["ok"], reply
        levels[reply["pin"]] = reply["level"]
    return levels
