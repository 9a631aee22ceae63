# Two emulated Picos wired pin to pin by the host: the rig Pico
# (boards/rig_pico) and the controller's Pico (boards/rp2040_pico), each in
# its own emulator. A thread copies each level across as it changes, as the
# wires of docs/boards.md's table would carry it:
#   rig drive GPIO high -> its NPN on -> the controller's input pulled low:
#       the controller board's rig `set NAME 1` (chip present, pressed, turned;
#       the seats' on its expanders)
#   rig expander's port A pin high (the UTH spots, seat 7's progressive
#       spot) -> the controller's `set uthN` / `set bet7`, as for a GPIO
#   controller light (an expander's output) -> the rig's light input: a GPIO
#       (seats 1-6) or its expander's port B pin (seat 7), as
#       boards/rig_pico/board.py wires them
#   rig RUN GPIO high -> the controller reset; rig power GPIO low/high ->
#       the controller's supply off/on
# It polls both chips every few ms (all of a chip's pads in one round trip, the
# rig expander's outputs in another),
# so a level crosses within about one poll plus the emulators' lag: presses
# of a few hundred ms, as a dealer's, cross whole.
import json
import threading
import time

from rig_pico_target import POWER_GPIO, RUN_GPIO, rig_pins

from uthctl.links.rig import Rig

POLL_S = 0.005
TIMEOUT = 30.0
PORT_B = 8  # an expander's GPB0 as a pin number (GPA0-7 = 0-7)


class PinBridge(threading.Thread):
    def __init__(self, rig_board, controller_board):
        super().__init__(name="pin-bridge", daemon=True)
        pins = rig_pins()
        self.inputs = dict(pins["_GP_DRIVE"])  # name: rig GPIO
        self.x_inputs = dict(pins["_X_DRIVE"])  # name: the rig expander's port A bit
        self.address = pins["_X_ADDRESS"]
        # Each seat's light, in the controller's order: ("gpio", N) or ("x", expander pin).
        self.lights = {kind: [("gpio", gpio) for gpio in pins["_GP_" + key]]
                       + [("x", PORT_B + bit) for bit in pins["_X_" + key]]
                       for kind, key in (("bet_lights", "BET_LIGHT"),
                                         ("jackpot_lights", "JACKPOT_LIGHT"))}
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
        except Exception as error:  # noqa: BLE001 -- the test raises it when it ends
            self.error = error

    def _bridge(self, rig_pins, controller):
        drives = {name: 0 for name in self.inputs}
        # None: not yet copied, so the first poll gives the controller the UTH
        # spots as the rig's expander drives them (all released until it is set up).
        drives.update({name: None for name in self.x_inputs})
        lights = {}  # place: the level last put on the rig's pin
        run, power = 0, 1
        while not self.halt.is_set():
            pads = read_pads(rig_pins, list(self.inputs.values()) + [RUN_GPIO, POWER_GPIO])
            levels = {name: pads[gpio] for name, gpio in self.inputs.items()}
            word = rig_pins.request(op="expander", address=self.address)["outputs"]
            levels.update({name: (word >> bit) & 1 for name, bit in self.x_inputs.items()})
            for name, level in levels.items():
                if level != drives[name]:
                    drives[name] = level
                    controller.set(name, level)  # high: the transistor pulls it low
                    self.crossed += 1
            if pads[RUN_GPIO] and not run:
                controller.reset()
            if pads[POWER_GPIO] != power:
                controller.power(bool(pads[POWER_GPIO]))
            run, power = pads[RUN_GPIO], pads[POWER_GPIO]
            self._lights(rig_pins, controller.state(), lights)
            time.sleep(POLL_S)

    def _lights(self, rig_pins, state, lights):
        for kind, places in self.lights.items():
            for place, level in zip(places, state[kind], strict=True):
                if lights.get(place) == level:
                    continue
                lights[place] = level
                if place[0] == "gpio":
                    rig_pins.request(op="gpio", pin=place[1], level=level)
                else:
                    rig_pins.request(op="expander", address=self.address, pin=place[1],
                                     level=level)
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
