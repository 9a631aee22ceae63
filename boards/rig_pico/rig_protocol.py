# The rig Pico's side of the rig protocol: the same JSON lines the virtual
# board's rig port answers (host_tools/uthctl/boards/rig_port.py), so one
# host driver serves the virtual board, the emulated Pico and this rig.
#   {"op": "set", "pin": "bet3", "level": 1} -> {"ok": true, "pin", "level",
#       "applied": true} once the controller's next tick sees the level
#   {"op": "state"} -> {"ok": true, "bet_lights": [7 x 0/1], "jackpot_lights":
#       [7 x 0/1], "display": null (the rig does not read the MAX7219),
#       "inputs": {pin: level}, "board": true, "powered": BOOL, "boots": null
#       (the rig cannot see the controller boot), "repl": null, "rig": "rig_pico"}
#   {"op": "press", "pin": "lock", "ms": 100} -> {"ok": true, "pin", "ms",
#       "applied": true}: pressed, held ms, released, answered after the
#       release settles; one operation of the rig's, so a host that dies or a
#       cable pulled mid-press leaves nothing held
#   {"op": "power", "on": BOOL}, {"op": "reset"}, {"op": "ping"}
#   anything else -> {"ok": false, "error": TEXT}; so is a request whose pin
#       is on the rig's expander when the expander does not answer: the
#       reply names it, never reporting a level it could not read
# Pins come in (board.py names them): anything with value() is a pin, a rig
# GPIO or a bit of the rig's expander (rig_expander.py) alike. A drive pin
# high turns its transistor on, which pulls the controller's input to
# ground: chip present, LOCK pressed, key turned, as the sensors do; the
# door's (board.py) is the other way round, "door" 1 being the door open.
# The UTH spots start with their chips placed, as the virtual board's and
# the emulated Pico's do: a scenario that places only progressive chips
# plays qualifying seats, and lifts a UTH chip to test one that does not.
import json

from micropython import const

SEATS = const(7)
INPUTS = tuple("bet%d" % n for n in range(1, SEATS + 1)) + tuple(
    "uth%d" % n for n in range(1, SEATS + 1)) + ("lock", "key", "door")
OPS = "state, set, press, power, reset, ping"
_SETTLE_MS = const(10)  # two of the controller's 5 ms ticks: its next one sees the level
_RESET_MS = const(50)  # RUN held low this long resets an RP2040
_POWER_GAP_MS = const(500)  # off this long, so the controller's supply drains
_PRESS_MAX_MS = const(60_000)  # longer is a hold: `set`, then `set` again


class RigPins:
    def __init__(self, drives, bet_lights, jackpot_lights, sleep_ms, run=None, power=None):
        # drives: {input name: pin}; the lights: one pin a seat, high = lit;
        # run: the controller's RUN through a transistor, power: its load switch.
        self.drives = drives
        self.bet_lights = bet_lights
        self.jackpot_lights = jackpot_lights
        self.sleep_ms = sleep_ms
        self.run = run
        self.power = power
        for name, pin in drives.items():
            try:
                pin.value(start_level(name))
            except OSError:  # the expander, silent: every request that needs it says so
                pass
        if run is not None:
            run.value(0)
        if power is not None:
            power.value(1)  # the controller on from the rig's start

    def handle(self, line):
        # One request line (bytes or text) -> its reply as a dict; None for a blank line.
        if isinstance(line, bytes):
            line = line.decode()
        if not line.strip():
            return None
        request = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            reply = self._request(request)
        except (ValueError, TypeError, KeyError, OSError) as error:
            reply = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
        # The serial line is one channel for every client in turn: the id
        # lets a client pass over an answer left for one killed mid-request.
        if isinstance(request, dict) and "id" in request:
            reply["id"] = request["id"]
        return reply

    def _request(self, request):
        op = request.get("op")
        if op == "state":
            return self.state()
        if op == "set":
            return self.set(request["pin"], request["level"])
        if op == "press":
            return self.press(request["pin"], request["ms"])
        if op == "ping":
            return {"ok": True, "reply": "pong", "rig": "rig_pico"}
        if op == "power":
            return self.switch(request["on"])
        if op == "reset":
            return self.reset()
        raise ValueError("unknown op %r (%s)" % (op, OPS))

    def _drive(self, name):
        pin = self.drives.get(name)
        if pin is None:
            raise ValueError("unknown input %r (one of %s)" % (name, " ".join(INPUTS)))
        return pin

    def press(self, name, ms):
        pin = self._drive(name)
        if type(ms) is not int or not 0 <= ms <= _PRESS_MAX_MS:
            raise ValueError("ms is a whole number of milliseconds, 0 to %d" % _PRESS_MAX_MS)
        pin.value(1)
        try:
            self.sleep_ms(ms)
        finally:  # an interrupt mid-hold (Ctrl-C from mpremote) releases it too
            pin.value(0)
        self.sleep_ms(_SETTLE_MS)
        return {"ok": True, "pin": name, "ms": ms, "applied": True}

    def set(self, name, level):
        pin = self._drive(name)
        if level not in (0, 1, True, False):
            raise ValueError("level must be 0 or 1")
        pin.value(1 if level else 0)
        self.sleep_ms(_SETTLE_MS)
        return {"ok": True, "pin": name, "level": 1 if level else 0, "applied": True}

    def state(self):
        return {"ok": True, "bet_lights": _levels(self.bet_lights),
                "jackpot_lights": _levels(self.jackpot_lights), "display": None,
                "inputs": {name: self.drives[name].value() for name in INPUTS},
                "board": True, "powered": self._powered(), "boots": None, "repl": None,
                "rig": "rig_pico"}

    def _powered(self):
        # Without a load switch the rig cannot cut the power: on, as far as it knows.
        return True if self.power is None else bool(self.power.value())

    def switch(self, on):
        if self.power is None:
            raise ValueError("this rig has no load switch wired (board.py)")
        changed = self._powered() != bool(on)
        self.power.value(1 if on else 0)
        return {"ok": True, "changed": changed}

    def reset(self):
        # RUN pulled low and released when wired, else a power cycle.
        if self.run is not None:
            self.run.value(1)
            self.sleep_ms(_RESET_MS)
            self.run.value(0)
            return {"ok": True, "changed": True}
        if self.power is None:
            raise ValueError("this rig has neither RUN nor a load switch wired (board.py)")
        self.power.value(0)
        self.sleep_ms(_POWER_GAP_MS)
        self.power.value(1)
        return {"ok": True, "changed": True}


def start_level(name):
    # The UTH chips placed, everything else released (the controller's
    # pull-ups read no chip, no press), the door shut (0).
    return 1 if name.startswith("uth") else 0


def _levels(pins):
    return [1 if pin.value() else 0 for pin in pins]


def serve(rig, read_line, write):
    # Answers request lines until read_line returns None (a test's end of
    # input; the board reads forever). Replies end in "\r\n" as a board's console.
    while True:
        line = read_line()
        if line is None:
            return
        reply = rig.handle(line)
        if reply is not None:
            write(json.dumps(reply).encode() + b"\r\n")
