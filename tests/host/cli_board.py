# A running board driven as a technician drives it: `uthctl` commands on its
# port, its key and chips through the rig (tests/host/conftest.py gives one
# to a test as `cli_table`).
import json

from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.links.rig import lit


class Board:
    # A new board on the target, powered and answering, with its rig.
    def __init__(self, tmp_path, stack, target):
        self.target = target
        self.vb = target.board(tmp_path / "flash.img")
        stack.callback(self.vb.stop)
        self.port = self.vb.serial_path
        with target.link(self.port) as link:  # closed: one reader on the port at a time
            link.wait_ready(20.0)
        self.rig = stack.enter_context(target.rig(self.vb.rig_address))

    def run(self, capsys, *argv, code=0):
        # One uthctl command on this board: its stdout (JSON read when asked for).
        capsys.readouterr()
        timeout = "%g" % self.target.wait(5.0)
        assert uthctl([*argv, "--port", self.port, "--timeout", timeout]) == code
        out, err = capsys.readouterr()
        if code:
            return err.strip() or json.loads(out)["error"]
        return json.loads(out) if "--json" in argv else out

    def key(self, held):
        # Held: service mode, which the display shows; released: back to play.
        self.rig.key(held)
        service = reading("SErvICE")
        self.rig.wait_for(lambda s: (reading(s["display"]) == service) == held,
                          what="the key %s" % ("held" if held else "released"))

    def provision(self, capsys, key_file):
        # The newest key of key_file given as at the table: the key held,
        # `uthctl provision`, the key released. Gives its JSON reply.
        self.key(True)
        try:
            return self.run(capsys, "provision", "--key-file", str(key_file), "--json")
        finally:
            self.key(False)

    def play_round(self, seats):
        for seat in seats:
            self.rig.chip(seat, True)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == sorted(seats), what="bet lights")
        self.rig.press_lock()
        for seat in seats:
            self.rig.chip(seat, False)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == [], what="the round's end")


def configured(table, capsys, name="A1"):
    table.key(True)
    changed = table.run(capsys, "config", name, "--yes", "--json")
    table.key(False)
    return changed
