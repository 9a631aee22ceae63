# What the two emulated chips' supervisors (pico.py, esp32.py) share: the
# chip runs as one process whose stdin and stdout are its serial console,
# relayed to a raw pty that the host's tools open.
import os
import tempfile
import tty

from .supervisor import Supervisor


class EmulatedBoard(Supervisor):
    def _open_pty(self, name):
        # The pty the host opens, and the I/O thread that relays it.
        self._workdir = tempfile.mkdtemp(prefix="uth-%s-" % name)
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self._start_io(name + "board", self._master, os.ttyname(self._slave))

    def _ptys(self):
        return (self._master, self._slave)

    def _chip_state(self, bet, jackpot, wired):
        # The rig's "state" reply as both chips give it; each adds its own.
        return {"ok": True, "bet_lights": list(self._lights[bet]),
                "jackpot_lights": list(self._lights[jackpot]),
                "display": self._display.text(), "display_segments": self._display.lit(),
                "inputs": dict(self._levels), "board": wired,
                "powered": self._powered, "boots": self._boots,
                "repl": "raw" if self._raw else "friendly",
                "pid": self._proc.pid if self._proc is not None else None}

    def _board_fd(self):
        return None if self._proc is None else self._proc.stdout.fileno()

    def _taking_input(self):
        return self._proc is not None
