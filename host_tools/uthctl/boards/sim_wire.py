# The virtual board's wire protocol, spoken by the virtual board
# (virtual.py) and the emulated ESP32's stand-ins (esp32.py) alike: the
# board says "hello" and is sent every input's level, then "ready"; a level
# the rig sets goes as "PIN LEVEL" and "sync N", which the board echoes once
# its next tick sees it; the seats' lights come back as "betlightN 1".
from .sim_pins import INPUTS, SEATS


class SimWire:
    # A supervisor's half of the wire; self._board is the board's connection
    # (None while unwired), and _display_line takes the display's messages.
    def _drop_board(self):
        if self._board is not None:
            self._close(self._board)

    def _close(self, conn):
        super()._close(conn)
        if conn is self._board:
            self._board = None
            self._unapplied()

    def _conn_line(self, conn, line):
        if conn.kind == "board":
            # (the display's text keeps its spaces; a stray "\r" is no part of it)
            self._board_line(line.decode(errors="replace").rstrip("\r"))
        else:
            self._rig_line(conn, line)

    def _board_line(self, line):
        name, _, value = line.partition(" ")
        if name == "hello":
            levels = "".join("%s %d\n" % item for item in self._levels.items())
            self._board.send((levels + self._fault_lines() + "ready\n").encode())
        elif name == "sync":
            if value.isdigit():
                self._applied(int(value))
        elif not self._display_line(name, value):
            self._light_line(name, value)

    def _display_line(self, name, value):
        # True when the line was the display's (each board's display differs).
        raise NotImplementedError

    def _light_line(self, name, value):
        for kind, lights in self._lights.items():
            if name.startswith(kind) and name[len(kind):].isdigit():
                seat = int(name[len(kind):])
                if 1 <= seat <= SEATS:
                    lights[seat - 1] = 1 if value == "1" else 0

    def _check_pin(self, pin):
        if pin not in INPUTS:
            raise ValueError("unknown input %r (one of %s)" % (pin, " ".join(INPUTS)))

    def _wired(self):
        return self._board is not None

    def _send_level(self, pin, level, number):
        # The board echoes the sync once its next tick sees the level.
        self._board.send(b"%s %d\nsync %d\n" % (pin.encode(), level, number))
