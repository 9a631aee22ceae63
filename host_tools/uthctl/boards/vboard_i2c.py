# The virtual board's I2C bus faults, for a rig to test the table's fault path
# (the board's MCP23017 models, boards/sim/mcp23017_model.py):
#   {"op": "i2c_fault", "on": BOOL[, "address": N]} -> {"ok": true, "on": BOOL,
#       "address": N or null, "applied": BOOL}: the bus (or only the expander
#       at N) stops answering, or answers again. Kept by the supervisor as a
#       broken wire would be: a board that restarts gets it at once.
#   {"op": "display_fault", "on": BOOL} -> {"ok": true, "on": BOOL, "applied": BOOL}:
#       the LED meter stops acknowledging what it is sent, as a TM1637 with
#       a broken wire does (boards/sim/board.py models the acks), or answers
#       again; kept across a restart as the I2C faults are.
# "applied": false when no board is wired now (the next one starts with it).


class I2cFaultOps:
    # Mixed into VirtualBoard (virtual.py), which lists its expanders.
    def _reset_faults(self):
        self._i2c_faults = {"bus": False, "detached": set()}
        self._display_fault = False

    def _rig_request(self, conn, request):
        if request.get("op") == "display_fault":
            return self._display_fault_request(conn, request)
        if request.get("op") != "i2c_fault":
            return super()._rig_request(conn, request)
        on, address = request["on"], request.get("address")
        if on not in (True, False):
            raise ValueError("i2c_fault: on is true or false")
        if address is not None and address not in self.EXPANDERS:
            raise ValueError("i2c_fault: address is one of %s" % list(self.EXPANDERS))
        if address is None:
            self._i2c_faults["bus"] = on
        elif on:
            self._i2c_faults["detached"].add(address)
        else:
            self._i2c_faults["detached"].discard(address)
        line = "i2c_fault %d%s\n" % (on, "" if address is None else " %d" % address)
        if self._board is not None:
            self._board.send(line.encode())
        self._reply(conn, {"ok": True, "on": on, "address": address,
                           "applied": self._board is not None})
        return None

    def _display_fault_request(self, conn, request):
        on = request["on"]
        if on not in (True, False):
            raise ValueError("display_fault: on is true or false")
        self._display_fault = on
        if self._board is not None:
            self._board.send(("display_fault %d\n" % on).encode())
        self._reply(conn, {"ok": True, "on": on, "applied": self._board is not None})
        return None

    def _fault_lines(self):
        # For a board that has just wired itself: the faults in force.
        lines = "i2c_fault 1\n" if self._i2c_faults["bus"] else ""
        lines += "display_fault 1\n" if self._display_fault else ""
        return lines + "".join("i2c_fault 1 %d\n" % address
                               for address in sorted(self._i2c_faults["detached"]))
