# The emulated Pico's seats: both spots and both lights of each seat on the
# MCP23017 models behind its I2C bus (host_tools/pico_emu/mcp23017.mjs), at
# the expander pins boards/rp2040_pico/board.py wires (pico_image.wiring()).
#   {"op": "set", "pin": "bet3" | "uth3", "level": 1}: a chip on seat 3's
#       progressive or UTH spot pulls that expander pin low (answered as
#       every set: once two controller ticks have seen it)
#   {"op": "i2c_fault", "on": BOOL[, "address": N]}: the bus (or only the
#       expander at N) stops answering, or answers again; a fault outlasts
#       power cycles (a broken wire), until the rig mends it
#   {"op": "expander", "address": N} -> {"ok": true, "address": N, "outputs":
#       WORD}: the output pins of the expander at N (bit n = pin n, GPB0 =
#       8) as its last transaction left them, 0 while the board is off
#   {"op": "expander", "address": N, "pin": B, "level": 0|1|null}: the
#       outside drives its pin B (null: lets it go to its pull), answered
#       once two 5 ms ticks of the chip's clock have it, as a gpio's is
#       (pico_gpio.py): for a board whose expanders are not the seats' (the
#       test rig's own, tests/host/rig_pico_target.py)
#   {"op": "set", "pin": "door", "level": 1}: the controller's compartment
#       door opened: its switch lets go of the expander pin the board file's
#       _DOOR names (level 0: shut, the switch pulls it low)
# A table starts with every seat's UTH chip in place, as the virtual board's
# does, so a rig that sets only betN plays as before; it clears uthN to test
# that a progressive chip alone does not qualify. Its door starts shut.
DOOR = "door"


def pulls_low(name, level):
    # Whether the rig's level on that input pulls its expander pin low: a
    # chip present does; the door's switch does while the door is shut.
    return not level if name == DOOR else bool(level)


def initial_levels(wiring):
    levels = {name: 0 for name in wiring["inputs"]}
    levels.update({name: 1 if name.startswith("uth") else 0
                   for name in wiring["expander_inputs"]})
    return levels


def light_places(wiring):
    # {(address, bit): (lights list name, seat index)}
    return {tuple(place): (kind, seat) for kind in ("bet_lights", "jackpot_lights")
            for seat, place in enumerate(wiring[kind])}


def no_faults():
    return {"bus": False, "detached": set()}  # PicoBoard._i2c_faults, kept across power-ons


class ExpanderOps:
    # Mixed into PicoBoard (pico.py).
    def _expander_args(self, levels):
        wiring = self.wiring
        faults = self._i2c_faults
        low = ["%d:%d" % tuple(wiring["expander_inputs"][name]) for name, level in levels.items()
               if name in wiring["expander_inputs"] and pulls_low(name, level)]
        args = ["--i2c", str(wiring["i2c"]), "--expanders", ",".join(map(str,
                                                                          wiring["expanders"]))]
        args += ["--xlow", ",".join(low)] if low else []
        args += ["--i2c-broken"] if faults["bus"] else []
        detached = ",".join(str(address) for address in sorted(faults["detached"]))
        return args + (["--i2c-detached", detached] if detached else [])

    def _expander_level(self, pin, level, number):
        address, bit = self.wiring["expander_inputs"][pin]
        drive = b"0" if pulls_low(pin, level) else b"z"
        self._ctl_send(b"xset %d %d %s %d\n" % (address, bit, drive, number))

    def _expander_outputs(self, address, word):
        self._xout[address] = word
        for bit in range(16):
            light = self._light_places.get((address, bit))
            if light is not None:
                self._lights[light[0]][light[1]] = (word >> bit) & 1

    def _expander_input_ns(self, address, bit, ns):
        for name, place in self.wiring["expander_inputs"].items():
            if tuple(place) == (address, bit):
                self._inputs_ns[name] = ns

    def _i2c_fault(self, conn, request):
        on, address = request["on"], request.get("address")
        if on not in (True, False):
            raise ValueError("i2c_fault: on is true or false")
        if address is not None and address not in self.wiring["expanders"]:
            raise ValueError("i2c_fault: address is one of %s" % self.wiring["expanders"])
        faults = self._i2c_faults
        if address is None:
            faults["bus"] = on
        elif on:
            faults["detached"].add(address)
        else:
            faults["detached"].discard(address)
        if self._ctl is not None:  # else the next power-on starts with it
            tail = b"" if address is None else b" %d" % address
            self._ctl_send(b"i2cfault %d%s\n" % (int(on), tail))
        self._reply(conn, {"ok": True, "on": on, "address": address})

    def _expander_pin(self, conn, request):
        address = request["address"]
        if address not in self.wiring["expanders"]:
            raise ValueError("expander: address is one of %s" % self.wiring["expanders"])
        if "pin" not in request:
            self._reply(conn, {"ok": True, "address": address,
                               "outputs": self._xout.get(address, 0)})
            return
        pin, level = request["pin"], request.get("level")
        if type(pin) is not int or not 0 <= pin < 16:
            raise ValueError("expander: pin is 0 to 15 (GPB0 = 8)")
        if level not in (0, 1, None):
            raise ValueError("expander: level is 0, 1 or null (released)")
        if self._ctl is None:
            raise ValueError("the board is off: its pins are not running")
        self._seq += 1
        reply = {"ok": True, "address": address, "pin": pin, "level": level, "applied": True}
        self._pending[self._seq] = (conn, reply, self._due(self._APPLY_TIMEOUT))
        drive = b"z" if level is None else b"%d" % level
        self._ctl_send(b"xset %d %d %s %d\n" % (address, pin, drive, self._seq))
