# The emulated Pico's GPIOs by number on its rig port, for a test that
# checks pins the controller's wiring does not name (the test rig's
# firmware, boards/rig_pico, say). A PicoBoard's rig requests:
#   {"op": "gpio", "pin": N} -> {"ok": true, "pin": N, "level": 0|1,
#       "output": BOOL}: the pad's level (what the chip drives, else what
#       the outside drives, else its pull) and whether the chip drives it
#   {"op": "gpio", "pin": N, "level": 0|1|null} -> {"ok": true, "pin": N,
#       "level": ..., "applied": BOOL}: the outside drives the pin (null
#       releases it to its pull), answered two 5 ms ticks of the chip's
#       clock later, as a rig's `set` is

GPIOS = 30  # GPIO0..29 of the RP2040


class GpioOps:
    # Mixed into PicoBoard (pico.py), whose control socket carries the lines
    # and whose queue of rig connections waiting on the chip (_time_asked)
    # gets each read's answer in turn.
    def _gpio(self, conn, request):
        pin = request["pin"]
        if type(pin) is not int or not 0 <= pin < GPIOS:
            raise ValueError("gpio: pin is a GPIO number, 0 to %d" % (GPIOS - 1))
        if self._ctl is None:
            raise ValueError("the board is off: its pins are not running")
        if "level" not in request:
            self._time_asked.append(conn)
            self._ctl_send(b"gpio %d\n" % pin)
            return
        level = request["level"]
        if level is not None and level not in (0, 1):
            raise ValueError("gpio: level is 0, 1 or null (released)")
        self._seq += 1
        reply = {"ok": True, "pin": pin, "level": level, "applied": True}
        self._pending[self._seq] = (conn, reply, self._due(self._APPLY_TIMEOUT))
        drive = b"z" if level is None else b"%d" % level
        self._ctl_send(b"set %d %s %d\n" % (pin, drive, self._seq))

    def _gpio_read(self, conn, args):
        # The emulator's "gpio N LEVEL OUT" line, to the rig that asked.
        self._reply(conn, {"ok": True, "pin": int(args[0]), "level": int(args[1]),
                           "output": args[2] == "1"})
