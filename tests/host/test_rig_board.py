# The test rig's board folder (boards/rig_pico), checked without a board:
# build() with a stand-in `machine` drives the controller inputs the rig
# reaches (the progressive spots of seats 1-6 on the controller's expanders,
# LOCK and the key on the controller's GPIO of the same number, read by
# pico_image.wiring), drives start released and the lights are read with
# pull-downs; `make build` gives the rig its own modules alone and the
# controller none of them.
import importlib.util
import pathlib
import sys

import pytest

from uthctl.boards import pico_image

ROOT = pathlib.Path(__file__).resolve().parents[2]
RIG = ROOT / "boards" / "rig_pico"
from uthctl import build_mpy  # noqa: E402

PICO_HEADER_GPIOS = set(range(23)) | {26, 27, 28}


class FakePin:
    IN, OUT, PULL_UP, PULL_DOWN = "in", "out", "pull_up", "pull_down"

    def __init__(self, gpio, mode=None, pull=None, value=None):
        self.gpio, self.mode, self.pull, self.level = gpio, mode, pull, value
        MADE.append(self)

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level


MADE = []


@pytest.fixture
def rig(monkeypatch):
    machine = type(sys)("machine")
    machine.Pin = FakePin
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.syspath_prepend(str(RIG))
    MADE.clear()
    spec = importlib.util.spec_from_file_location("rig_board", RIG / "board.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(lambda ms: None)


def test_the_rig_drives_six_progressive_spots_and_lock_and_key_on_their_own_numbers(rig):
    wiring = pico_image.wiring()
    assert sorted(rig.drives) == sorted(["bet%d" % n for n in range(1, 7)] + ["lock", "key"])
    assert set(rig.drives) - {"lock", "key"} <= set(wiring["expander_inputs"])
    assert {name: rig.drives[name].gpio for name in ("lock", "key")} == wiring["inputs"]
    for pin in rig.drives.values():
        assert (pin.mode, pin.level) == (FakePin.OUT, 0)  # transistor off: released


def test_six_seats_lights_are_read_with_a_pull_down(rig):
    assert len(rig.bet_lights) == len(rig.jackpot_lights) == 6
    for pin in rig.bet_lights + rig.jackpot_lights:
        assert (pin.mode, pin.pull) == (FakePin.IN, FakePin.PULL_DOWN)


def test_run_and_power_are_outputs_on_free_header_gpios(rig):
    assert (rig.run.mode, rig.run.level) == (FakePin.OUT, 0)
    assert (rig.power.mode, rig.power.level) == (FakePin.OUT, 1)  # the controller on
    gpios = [pin.gpio for pin in MADE]
    assert sorted(set(gpios)) == sorted(gpios), "a GPIO was made twice"
    assert set(gpios) <= PICO_HEADER_GPIOS and len(gpios) == 8 + 12 + 2


def test_the_rig_build_is_its_own_modules_and_the_controllers_has_none(tmp_path):
    assert build_mpy.build(tmp_path, "rig_pico", "armv6m") == []
    assert build_mpy.build(tmp_path, "rp2040_pico", "armv6m") == []
    rig_files = sorted(p.relative_to(tmp_path / "rig_pico").as_posix()
                       for p in (tmp_path / "rig_pico").rglob("*") if p.is_file())
    assert rig_files == ["lib/board.mpy", "lib/rig_protocol.mpy", "main.py"]
    assert (tmp_path / "rig_pico" / "main.py").read_text() == (RIG / "main.py").read_text()
    controller = {p.name for p in (tmp_path / "rp2040_pico").rglob("*.mpy")}
    assert "rig_protocol.mpy" not in controller
    assert (tmp_path / "rp2040_pico" / "main.py").read_text() == \
        (ROOT / "firmware" / "main.py").read_text()
