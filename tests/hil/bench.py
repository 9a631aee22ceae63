# The test bench a scenario runs on: a controller, its host link and a rig.
# The scenarios (test_hil_*.py) use only what a real bench gives: the
# controller's USB serial port (the host link, and mpremote to prepare it)
# and the rig's verbs (chips, LOCK, the key, the lights as the rig reads
# them, reset through RUN, power through a load switch where one is wired).
#
#   SimBench   the virtual board, its rig port
#   PicoBench  the emulated Pico, its control socket as the rig
#   RealBench  a controller and a rig Pico on two serial ports: real hardware
#              (`--target real --port DEV --rig DEV`) or the emulated pair
#              (`--target pair`: two emulated Picos wired pin to pin)
#
# fresh(seed) gives an unconfigured controller with empty meters whose random
# source is the TEST-ONLY seeded stream (seed None: the board's own). On the
# virtual board and the emulated Pico that is a new flash image; on a real
# bench it is done over the controller's port, as a technician would: mpremote
# stops the controller, erases the meter store and writes the seeded /boot.py,
# and the rig resets the controller through RUN. finish() leaves a real
# controller as a new one: no test seed, no meters.
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pico_target import seeded_copies
from targets import PicoTarget, SimTarget, TargetLink, TargetRig

from uthctl.links.board_link import LinkError
from uthctl.links.rig import PRESS_MS, Rig, RigError

MPREMOTE = Path(sys.executable).parent / "mpremote"
STORAGE_ROOT = "/meter"  # boards/*/board.py STORAGE_ROOT

# Run on the controller by mpremote: the meter store gone, whatever it holds.
ERASE_STORE = """
import os
def _gone(path):
    try:
        kind = os.stat(path)[0]
    except OSError:
        return
    if kind & 0x4000:
        for name in os.listdir(path):
            _gone(path + "/" + name)
        os.rmdir(path)
    else:
        os.remove(path)
_gone(%r)
_gone("/boot.py")
_gone("/seeded_bytes.py")
""" % STORAGE_ROOT


class Bench:
    name = None
    stretch = 1.0  # every wait a scenario gives is this many times longer here
    press_ms = PRESS_MS  # how long a press is held, from the rig's pin to the release

    def __init__(self):
        self.link = None
        self.rig = None

    def wait(self, seconds):
        return seconds * self.stretch

    def trouble(self):
        # What is known to be wrong with the bench itself, or None.
        return None

    def open_link(self, timeout=10.0):
        # The host link, once the controller answers; a port that is not
        # there yet (a Pico's USB after a reset) is tried again.
        deadline = time.monotonic() + self.wait(timeout)
        while True:
            try:
                self.link = TargetLink(self.port, 10.0, self.stretch)
                self.link.wait_ready(timeout)
                return self.link
            except (LinkError, OSError):
                self.close_link()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def close_link(self):
        if self.link is not None:
            self.link.close()
            self.link = None

    def restart(self):
        # The controller reset through the rig (RUN, or a power cycle).
        self.close_link()
        self.rig.reset()
        return self.open_link(30.0)

    def power_cycle(self, off_s=1.0):
        # The controller's supply cut through the rig and restored.
        self.close_link()
        self.rig.power(False)
        time.sleep(self.wait(off_s))  # off long enough for the supply to drain
        self.rig.power(True)
        return self.open_link(30.0)

    def has_power_switch(self):
        return True

    def close(self):
        self.close_link()
        if self.rig is not None:
            self.rig.close()
            self.rig = None


class SimBench(Bench):
    name = "sim"

    def __init__(self, folder):
        super().__init__()
        self.folder = Path(folder)
        self.target = self._target()
        self.board = None

    def _target(self):
        return SimTarget()

    def fresh(self, seed=None):
        self.close()
        if self.board is not None:
            self.board.stop()
        flash = self.folder / ("flash-%s.img" % seed)
        flash.unlink(missing_ok=True)
        self.board = self.target.board(flash, seed=seed)
        self.port = self.board.serial_path
        self.rig = TargetRig(self.board.rig_address, self.stretch)
        return self.open_link()

    def finish(self):
        self.close()
        if self.board is not None:
            self.board.stop()
            self.board = None


class PicoBench(SimBench):
    name = "pico"
    stretch = PicoTarget.stretch

    def __init__(self, folder, images):
        self.images = images
        super().__init__(folder)

    def _target(self):
        return PicoTarget(self.images)


class RealBench(Bench):
    name = "real"
    stretch = 2.0  # USB round trips, a board a technician may be watching

    def __init__(self, port, rig_port, stretch=None, press_ms=None):
        super().__init__()
        self.port = port
        self.rig_port = rig_port
        if stretch is not None:
            self.stretch = stretch
        if press_ms is not None:
            self.press_ms = press_ms

    def fresh(self, seed=None):
        self.close()
        self.rig = TargetRig(None, self.stretch, port=self.rig_port)
        self._release_inputs()
        self._prepare(seed)
        return self.restart()

    def _release_inputs(self):
        # The inputs as the rig starts them: no progressive chip, press or turn
        # left from the last test (the controller would start with them: a
        # chip on its spot at start is a stale chip), every UTH chip placed.
        for name, level in self.rig.state()["inputs"].items():
            if level != start_level(name):
                self.rig.set(name, start_level(name))

    def _prepare(self, seed):
        # The controller hands its port to the REPL (the key held through the
        # rig, `repl`: no byte alone stops it), then mpremote erases the store
        # and /boot.py, and writes the seeded /boot.py when a seed is given.
        from uthctl.boards.handoff import hand_over
        from uthctl.links.board_link import AtReplError

        try:
            hand_over(self.port, self.rig, timeout=10.0 * self.stretch)
        except AtReplError:
            pass  # already at the REPL: no controller runs
        with tempfile.TemporaryDirectory() as folder:
            args = ["exec", ERASE_STORE]
            if seed is not None:
                args += ["+", *seeded_copies(folder, seed)]
            mpremote(self.port, *args)

    def trouble(self):
        # The emulated pair's wires are a host thread: it may have stopped.
        bridge = getattr(self, "bridge", None)
        if bridge is not None and (bridge.error is not None or not bridge.is_alive()):
            return "the pin bridge stopped: %r" % (bridge.error,)
        return None

    def has_power_switch(self):
        try:
            self.rig.power(True)  # already on: changes nothing, fails without a switch
        except RigError:
            return False
        return True

    def finish(self):
        # No test seed, no meters: the controller as a new one, running.
        self.close()
        self.rig = TargetRig(None, self.stretch, port=self.rig_port)
        try:
            self._release_inputs()
            self._prepare(None)
            self.restart()
        finally:
            self.close()


def start_level(name):
    # The rig Pico's, the virtual board's and the emulated Pico's start: the
    # UTH chips placed, everything else released.
    return 1 if name.startswith("uth") else 0


def mpremote(port, *args, timeout=120):
    done = subprocess.run([str(MPREMOTE), "connect", port, *args], capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError("mpremote %s: %s%s" % (" ".join(args[:1]), done.stdout, done.stderr))
    return done.stdout


__all__ = ["Bench", "PicoBench", "RealBench", "Rig", "SimBench", "mpremote"]
