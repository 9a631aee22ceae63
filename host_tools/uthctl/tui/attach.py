# The board the interactive table attaches to with `uthctl sim --port PORT`:
# one already running (a real board, the virtual board's or the emulated
# Pico's pty), which this program neither started nor may stop. It has the
# face the view expects of a board the table runs itself (alive, reset,
# power), and answers them through the rig when one was given with --rig
# (links/rig.py: the virtual board's rig socket, the emulated Pico's); with
# none, the pins, reset and power are not in reach, and it says so.
from .hands import TableRig

NO_RIG = "no rig given (--rig ADDRESS)"


def open_rig(address):
    # The one seam between the table and a rig: the Rig class (links/rig.py)
    # with the table's quick answers (TableRig).
    return TableRig(address)


class AttachedBoard:
    attached = True

    def __init__(self, port, rig_address=None, rig=None):
        self.title = "board at %s" % port
        self.serial_path = port
        self.rig_address = rig_address
        self.rig = rig  # the hands' rig connection: reset and power go through it
        self.flash = None
        self.failure = None

    def alive(self):
        # Not this program's to run or stop: as alive as its port (host link).
        return True

    def reset(self):
        self._need_rig("reset").reset()

    def power(self, on):
        self._need_rig("power").power(on)

    def stop(self):
        pass  # the board runs on without this program

    def _need_rig(self, what):
        if self.rig is None:
            raise OSError("%s: %s" % (what, NO_RIG))
        return self.rig
