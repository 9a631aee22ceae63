# Virtual tables for the floor's tests and its demo (`make floor-demo`):
# each a virtual board configured A1, its rig, and its `uthctl bridge` run
# as its own process (killed and started again by the tests), and the floor
# service likewise.
import json
import os
import subprocess
import sys
import time

from terminal_argv import UTHCTL_AS_FROM_A_TERMINAL
from uthctl.boards.max7219_model import reading
from uthctl.boards.virtual import VirtualBoard
from uthctl.links import logexport
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig, lit

from .ending import ending_with_us

SEATS = (1, 2, 3)
EVERY_S = "2"  # meters snapshots this often, so a lost record is asked for soon


def uthctl_process(argv, log):
    # Ended with us (ending.py): a killed test run leaves no bridge or floor running.
    # Started as from a terminal, so Ctrl-C stops it cleanly however the run began.
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return ending_with_us([*UTHCTL_AS_FROM_A_TERMINAL, *argv],
                          stdout=subprocess.DEVNULL, stderr=open(log, "ab"), env=env)


def stop_process(process):
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Table:
    def __init__(self, name, folder, floor_dir, broker, seed=None, key_file=None):
        self.name, self.folder = name, folder
        self.floor_dir, self.broker = floor_dir, broker
        # seed: TEST ONLY, the board's random source, so a test knows its hit value.
        self.board = VirtualBoard(flash=folder / ("table-%s.img" % name), seed=seed).start()
        self.rig = Rig(self.board.rig_address, timeout=10.0)
        self.expected = 0  # the board's log head
        # key_file: keyed at installation, before its first configuration, as
        # a casino's table is: every record it makes is signed.
        self.key_id = None if key_file is None else self.provision(key_file)
        self.configure()
        # Its config and reset records, and service mode left; entered too,
        # once keyed (a new board's entry goes out as an event alone).
        self.expected += 3 if key_file is None else 4
        self.bridge = None

    def configure(self):
        with Link(self.board.serial_path, timeout=10.0) as link:
            link.wait_ready(30.0)
            self.rig.key(True)
            self.rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"),
                              timeout=10.0, what="service mode")
            assert link.command("config", mystery="A1")["ok"]
            self.rig.key(False)
            link.wait_event("reset", timeout=10.0)

    def provision(self, key_file):
        # The table's newest key from its key file, given as a technician
        # gives it (`uthctl provision`, the key held); the key's id. The
        # controller first answers: a key held as it starts is no key turned.
        with Link(self.board.serial_path, timeout=10.0) as link:
            link.wait_ready(30.0)
        self.rig.key(True)
        self.rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), timeout=10.0,
                          what="service mode")
        try:
            done = subprocess.run([sys.executable, "-m", "uthctl.cli", "provision", "--port",
                                   self.board.serial_path, "--key-file", str(key_file), "--json"],
                                  capture_output=True, text=True, timeout=60)
        finally:
            self.rig.key(False)
        if done.returncode:
            raise RuntimeError("provision of table %s: %s" % (self.name, done.stderr.strip()))
        # The key's own record and service mode left; entered too on a board
        # with records already (a new board's entry goes out as an event alone).
        self.expected += 2 if self.expected == 0 else 3
        return json.loads(done.stdout)["key_id"]

    def start_bridge(self):
        self.bridge = uthctl_process(
            ["bridge", "--port", self.board.serial_path, "--broker", self.broker.url,
             "--table", self.name, "--casino", self.floor_dir.settings()["casino"],
             "--credentials", str(self.floor_dir.credentials("table-%s" % self.name)),
             "--state", str(self.folder / ("bridge-%s.json" % self.name)),
             "--every", EVERY_S], self.folder / ("bridge-%s.log" % self.name))

    def kill_bridge(self):
        self.bridge.kill()
        self.bridge.wait()
        self.bridge = None

    def play_round(self):
        # One round on three seats; a hit it makes is validated at once by
        # the key (its records are then more than the round's). Whether it hit.
        for seat in SEATS:
            self.rig.chip(seat, True)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), timeout=10.0,
                          what="bet lights on")
        self.rig.press_lock()
        for seat in SEATS:
            self.rig.chip(seat, False)
        state = self.rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or
                                  any(s["jackpot_lights"]), timeout=10.0,
                                  what="the round's end")
        if self.expected is not None:  # the round's record
            self.expected += 1
        if not any(state["jackpot_lights"]):
            return False
        self.rig.turn_key()
        self.rig.wait_for(lambda s: not any(s["jackpot_lights"]), timeout=10.0,
                          what="the hit validated")
        self.expected = None  # hit, validated, paid, reset and perhaps retained: not counted
        return True

    def power_cut(self):
        self.board.power(False)
        time.sleep(0.3)
        self.board.power(True)
        if self.expected is not None:  # a configured board's start is a record
            self.expected += 1

    def own_export(self):
        # The board's whole log as `uthctl log export` takes it (the bridge stopped).
        with Link(self.board.serial_path, timeout=10.0) as link:
            link.wait_ready(30.0)
            records, _ = logexport.export(link)
        return records

    def close(self):
        stop_process(self.bridge)
        self.rig.close()
        self.board.stop()


def start_floor(floor_dir, broker, db_url, log):
    return uthctl_process(["floor", "--dir", str(floor_dir.folder), "--broker", broker.url,
                           "--db", db_url], log)


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("not within %.0f s: %s" % (timeout, what))
        time.sleep(0.2)
