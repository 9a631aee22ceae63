# What the emulated Pico needs (uthctl/boards/pico_image.py), checked without
# running it: each missing piece is one line naming what to do, the official
# image is refused unless its SHA-256 is the pinned one (the project's unless
# it is its .sha256's), and the rig's pins are the
# ones boards/rp2040_pico/board.py wires, as its own wiring table says.
import hashlib
import re
from pathlib import Path

import pytest

from uthctl.boards import pico_image

BOARD = Path(__file__).resolve().parents[2] / "boards" / "rp2040_pico" / "board.py"
WIRING_DOC = Path(__file__).resolve().parents[2] / "docs" / "boards.md"


def test_a_missing_image_is_one_line_naming_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("UTH_RP2_FIRMWARE", str(tmp_path / "none.uf2"))
    with pytest.raises(pico_image.PicoUnavailable) as caught:
        pico_image.firmware("official")
    text = str(caught.value)
    assert "\n" not in text and "UTH_RP2_FIRMWARE" in text and "none.uf2" in text


def test_an_image_with_another_digest_is_refused(monkeypatch, tmp_path):
    other = tmp_path / "other.uf2"
    other.write_bytes(b"not the official image")
    monkeypatch.setenv("UTH_RP2_FIRMWARE", str(other))
    with pytest.raises(pico_image.PicoUnavailable, match="SHA-256"):
        pico_image.firmware("official")
    monkeypatch.setenv("UTH_RP2_BOOTROM", str(other))
    with pytest.raises(pico_image.PicoUnavailable, match="SHA-256"):
        pico_image.bootrom()


def test_without_node_the_reason_names_what_to_install(monkeypatch):
    monkeypatch.setattr(pico_image.shutil, "which", lambda name: None)
    reason = pico_image.unavailable()
    assert "\n" not in reason and "Node.js 18" in reason


def _documented_wiring():
    # {signal: GPIO} from docs/boards.md's Pico table ("| GP22 | 29 | LOCK button ..."),
    # and the expanders' table ("| U2 | 0x21 | GND GND 3V3 | 5-7 ..."), the door's pin on it.
    text = WIRING_DOC.read_text()
    pico = text[text.index("### The Pico (RP2040)"):text.index("### The ESP32-DevKitC")]
    wires = {}
    pattern = re.compile(r"\|\s*GP(\d+)\s*\|\s*\d+\s*\|\s*(LOCK button|key switch|MAX7219 LOAD"
                         r"|I2C1 SDA|I2C1 SCL)")
    for line in pico.splitlines():
        found = pattern.match(line)
        if found:
            wires[found.group(2)] = int(found.group(1))
    chips = re.findall(r"\|\s*U\d\s*\|\s*0x([0-9a-f]{2})\s*\|[^|]*\|\s*(\d)-(\d)", text)
    wires["expanders"] = [(int(address, 16), int(first), int(last))
                          for address, first, last in chips]
    # The door switch, on an expander's row: "| U2 | 0x21 | ... | 5-7; GPA3 the door switch ...".
    door = re.search(r"\|\s*U\d\s*\|\s*0x([0-9a-f]{2})\s*\|[^|]*\|[^|]*GPA(\d) the door switch",
                     text)
    wires["door"] = (int(door.group(1), 16), int(door.group(2)))
    return wires


def test_the_rig_pins_are_the_boards_own_wiring():
    documented = _documented_wiring()
    wiring = pico_image.wiring(BOARD)
    assert wiring["inputs"] == {"lock": documented["LOCK button"],
                                "key": documented["key switch"]}
    assert (wiring["cs"], wiring["sda"], wiring["scl"]) == (
        documented["MAX7219 LOAD"], documented["I2C1 SDA"], documented["I2C1 SCL"])
    assert wiring["i2c"] == 1
    # The header's pin table: seat n = 4k+i+1 on chip k, spots on GPAi and
    # GPA4+i, lights on GPBi and GPB4+i (bit 8 + pin number on port B).
    for address, first, last in documented["expanders"]:
        for seat in range(first, last + 1):
            i = seat - first
            assert wiring["expander_inputs"]["bet%d" % seat] == (address, i)
            assert wiring["expander_inputs"]["uth%d" % seat] == (address, 4 + i)
            assert wiring["bet_lights"][seat - 1] == (address, 8 + i)
            assert wiring["jackpot_lights"][seat - 1] == (address, 12 + i)
    assert wiring["expanders"] == [address for address, _, _ in documented["expanders"]]
    assert sorted(wiring["expander_inputs"]) == sorted(
        ["bet%d" % n for n in range(1, 8)] + ["uth%d" % n for n in range(1, 8)] + ["door"])
    assert wiring["expander_inputs"]["door"] == documented["door"]


@pytest.mark.parametrize("flag", [["--bare"], ["--test-seed", "7"], ["--micropython", "mp"]])
def test_sim_refuses_the_virtual_boards_flags_for_the_pico(capsys, flag):
    from uthctl.cli import main as uthctl

    assert uthctl(["sim", "--board", "rp2040_pico", "--headless", *flag]) == 2
    assert "%s is for the virtual board" % flag[0] in capsys.readouterr().err


def test_sim_without_what_the_pico_needs_says_it_in_one_line(capsys, monkeypatch, tmp_path):
    from uthctl.cli import main as uthctl

    monkeypatch.setenv("UTH_RP2_FIRMWARE", str(tmp_path / "none.uf2"))
    assert uthctl(["sim", "--board", "rp2040_pico", "--image", "official", "--headless",
                   "--flash", str(tmp_path / "f.img")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("none.uf2" in err or "Node.js" in err)
    assert not (tmp_path / "f.img").exists()


def test_a_missing_project_image_names_make_image(monkeypatch, tmp_path):
    monkeypatch.setenv("UTH_PICO_IMAGE", str(tmp_path / "firmware.uf2"))
    with pytest.raises(pico_image.PicoUnavailable) as caught:
        pico_image.firmware()  # the project's image is the default
    text = str(caught.value)
    assert "\n" not in text and "make image" in text and "firmware.uf2" in text


def test_a_project_image_that_is_not_its_sha256_is_refused(monkeypatch, tmp_path):
    image = tmp_path / "firmware.uf2"
    image.write_bytes(b"an image")
    (tmp_path / "firmware.uf2.sha256").write_text(
        hashlib.sha256(b"another image").hexdigest() + "  firmware.uf2\n")
    monkeypatch.setenv("UTH_PICO_IMAGE", str(image))
    with pytest.raises(pico_image.PicoUnavailable, match="SHA-256"):
        pico_image.firmware("project")
    (tmp_path / "firmware.uf2.sha256").write_text(
        hashlib.sha256(b"an image").hexdigest() + "  firmware.uf2\n")
    assert pico_image.firmware("project") == image
    with pytest.raises(ValueError, match="no Pico image"):
        pico_image.firmware("other")


def test_sim_image_is_for_the_pico_alone(capsys):
    from uthctl.cli import main as uthctl

    assert uthctl(["sim", "--headless", "--image", "official"]) == 2
    assert "--image is for --board rp2040_pico" in capsys.readouterr().err
