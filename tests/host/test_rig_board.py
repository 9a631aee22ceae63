# The test rig's board folder (boards/rig_pico), checked without a board:
# build() with a stand-in `machine` (its I2C the datasheet model of
# tests/logic/fake_i2c.py) drives every controller input (both spots of the
# seven seats on the controller's expanders, LOCK and the key on the
# controller's GPIO of the same number, read by pico_image.wiring), the UTH
# chips start placed and the rest released, the lights are read with
# pull-downs; `make build` gives the rig its own modules alone and the
# controller none of them.
import importlib.util
import pathlib
import sys

import pytest

from fake_i2c import FakeI2C, Mcp23017Model
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
EXPANDER = {}  # the rig's expander model, as the last build() found it


class FakeBus(FakeI2C):
    def __init__(self, bus, scl=None, sda=None, freq=None):
        EXPANDER["model"] = Mcp23017Model()
        super().__init__({0x27: EXPANDER["model"]})
        self.bus, self.scl, self.sda, self.freq = bus, scl.gpio, sda.gpio, freq
        EXPANDER["bus"] = self


@pytest.fixture
def rig(monkeypatch):
    machine = type(sys)("machine")
    machine.Pin = FakePin
    machine.I2C = FakeBus
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.syspath_prepend(str(RIG))
    MADE.clear()
    spec = importlib.util.spec_from_file_location("rig_board", RIG / "board.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(lambda ms: None)


def test_the_rig_drives_both_spots_of_seven_seats_and_lock_and_key_on_their_own_numbers(rig):
    wiring = pico_image.wiring()
    assert sorted(rig.drives) == sorted(list(wiring["expander_inputs"]) + ["lock", "key"])
    assert len(wiring["expander_inputs"]) == 15  # bet1..7, uth1..7, the door
    assert {name: rig.drives[name].gpio for name in ("lock", "key")} == wiring["inputs"]
    gpio_drives = [pin for pin in rig.drives.values() if isinstance(pin, FakePin)]
    assert len(gpio_drives) == 8  # seats 1-6's progressive spots, LOCK, the key
    for pin in gpio_drives:
        assert (pin.mode, pin.level) == (FakePin.OUT, 0)  # transistor off: released
    # The rest on the expander at 0x27 on I2C1 (GP18 SDA, GP19 SCL): its port A.
    bus, model = EXPANDER["bus"], EXPANDER["model"]
    assert (bus.bus, bus.sda, bus.scl) == (1, 18, 19)
    assert model.regs[0x00] == 0x00  # IODIRA: port A outputs
    placed = [name for name, pin in rig.drives.items()
              if hasattr(pin, "bit") and model.output(pin.bit)]
    assert sorted(placed) == ["uth%d" % n for n in range(1, 8)]  # the UTH chips placed


def test_seven_seats_lights_are_read_with_a_pull_down(rig):
    assert len(rig.bet_lights) == len(rig.jackpot_lights) == 7
    for pin in rig.bet_lights[:6] + rig.jackpot_lights[:6]:
        assert (pin.mode, pin.pull) == (FakePin.IN, FakePin.PULL_DOWN)
    # Seat 7's on the expander's port B, no pull-up of its own against the pull-down.
    model = EXPANDER["model"]
    bits = [rig.bet_lights[6].bit + 8, rig.jackpot_lights[6].bit + 8]
    assert all((model.regs[0x01] >> (bit - 8)) & 1 for bit in bits)  # IODIRB: inputs
    assert not any((model.regs[0x0D] >> (bit - 8)) & 1 for bit in bits)  # GPPUB off
    model.drive(bits[0], 1)
    assert (rig.bet_lights[6].value(), rig.jackpot_lights[6].value()) == (1, 0)


def test_run_and_power_are_outputs_on_free_header_gpios(rig):
    assert (rig.run.mode, rig.run.level) == (FakePin.OUT, 0)
    assert (rig.power.mode, rig.power.level) == (FakePin.OUT, 1)  # the controller on
    gpios = [pin.gpio for pin in MADE]
    assert sorted(set(gpios)) == sorted(gpios), "a GPIO was made twice"
    # + SDA, SCL, and the door's drive
    assert set(gpios) <= PICO_HEADER_GPIOS and len(gpios) == 8 + 12 + 2 + 2 + 1


def test_the_rig_build_is_its_own_modules_and_the_controllers_has_none(tmp_path):
    assert build_mpy.build(tmp_path, "rig_pico", "armv6m") == []
    assert build_mpy.build(tmp_path, "rp2040_pico", "armv6m") == []
    rig_files = sorted(p.relative_to(tmp_path / "rig_pico").as_posix()
                       for p in (tmp_path / "rig_pico").rglob("*") if p.is_file())
    assert rig_files == ["lib/board.mpy", "lib/rig_expander.mpy", "lib/rig_protocol.mpy",
                         "main.py"]
    assert (tmp_path / "rig_pico" / "main.py").read_text() == (RIG / "main.py").read_text()
    controller = {p.name for p in (tmp_path / "rp2040_pico").rglob("*.mpy")}
    assert not {"rig_protocol.mpy", "rig_expander.mpy"} & controller
    assert (tmp_path / "rp2040_pico" / "main.py").read_text() == \
        (ROOT / "firmware" / "main.py").read_text()


def test_the_door_is_driven_shut_from_the_start_and_opened_by_level_1(rig):
    # The controller's door switch stands in on a header GPIO: its transistor
    # on (the pin high) holds the controller's U2 GPA3 low, the door shut.
    door = rig.drives["door"]
    gpio = next(pin for pin in MADE if pin.gpio == 26)
    assert (gpio.mode, gpio.level, door.value()) == (FakePin.OUT, 1, 0)
    assert rig.set("door", 1)["applied"] and (gpio.level, door.value()) == (0, 1)
    assert rig.state()["inputs"]["door"] == 1
