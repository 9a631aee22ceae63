# --port auto: the one MicroPython board attached, found by its USB identity
# (the port listing replaced here by made-up ports); none or several is an
# error listing what was seen. The identities are the ones the boards
# announce: the Pico's MicroPython 2e8a:0005, a CP210x bridge 10c4:ea60 on
# an ESP32 DevKitC.
import json

import pytest
from serial.tools.list_ports_common import ListPortInfo

from uthctl.cli import main as uthctl
from uthctl.links import ports


def port(device, vid=None, pid=None, manufacturer=None, product=None):
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    info.manufacturer, info.product = manufacturer, product
    return info


SERIAL_0 = port("/dev/ttyS0")  # a motherboard's UART: no USB identity
PICO = port("/dev/ttyACM0", 0x2E8A, 0x0005, "MicroPython", "Board in FS mode")
DEVKITC = port("/dev/ttyUSB0", 0x10C4, 0xEA60, "Silicon Labs", "CP2102 USB to UART")
KEYBOARD_UART = port("/dev/ttyACM3", 0x046D, 0xC52B, "Logitech", "USB Receiver")


@pytest.fixture
def attached(monkeypatch):
    listed = []
    monkeypatch.setattr(ports, "comports", lambda: list(listed))
    return listed


def test_the_one_pico_is_found_among_other_ports(attached):
    attached += [SERIAL_0, KEYBOARD_UART, PICO]
    assert ports.resolve("auto") == "/dev/ttyACM0"


def test_an_esp32_devkit_is_found_by_its_bridge(attached):
    attached += [SERIAL_0, DEVKITC]
    assert ports.resolve("auto") == "/dev/ttyUSB0"


def test_a_port_given_is_taken_as_it_is(attached):
    attached += [PICO]
    assert ports.resolve("/dev/pts/7") == "/dev/pts/7"


def test_no_board_lists_what_was_seen(attached):
    attached += [SERIAL_0, KEYBOARD_UART]
    with pytest.raises(ports.PortNotFound) as refused:
        ports.resolve("auto")
    assert str(refused.value) == (
        "--port auto: no MicroPython board attached (seen: /dev/ttyS0 no USB id; "
        "/dev/ttyACM3 046d:c52b Logitech USB Receiver)")


def test_no_port_at_all_says_so(attached):
    with pytest.raises(ports.PortNotFound, match="no serial ports at all"):
        ports.resolve("auto")


def test_several_boards_are_listed_and_none_chosen(attached, capsys):
    attached += [PICO, SERIAL_0, DEVKITC]
    assert uthctl(["status", "--port", "auto", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error == (
        "--port auto: 2 MicroPython boards attached, give one with --port: /dev/ttyACM0 "
        "2e8a:0005 MicroPython Board in FS mode (MicroPython on an RP2040 (Raspberry Pi Pico)); "
        "/dev/ttyUSB0 10c4:ea60 Silicon Labs CP2102 USB to UART (CP210x USB-UART bridge "
        "(ESP32 dev kit))")


@pytest.mark.usefixtures("micropython")
def test_every_board_command_finds_the_board_with_auto(attached, capsys, tmp_path):
    # The virtual board's pty, listed as a Pico would be: each command reaches it.
    from uthctl.boards.virtual import VirtualBoard

    with VirtualBoard(flash=tmp_path / "flash.img") as vb:
        vb.wait_started()
        attached += [SERIAL_0, port(vb.serial_path, 0x2E8A, 0x0005, "MicroPython", "Pico")]
        out = str(tmp_path / "log.jsonl")
        for argv in (["status"], ["meters"], ["config"], ["payment", "jackpot_slip"],
                     ["log", "export", "--out", out]):
            capsys.readouterr()
            assert uthctl([*argv, "--port", "auto", "--json"]) == 0, capsys.readouterr()
            assert "error" not in json.loads(capsys.readouterr().out)
        capsys.readouterr()
        assert uthctl(["status", "--port", "auto", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["status"]["payment"] == "jackpot_slip"
        # A new board's log is empty, which the audit reports as its one failure.
        assert uthctl(["audit", "--port", "auto", "--json"]) == 1
        report = json.loads(capsys.readouterr().out)
        assert report["source"] == "the board at %s" % vb.serial_path
        assert report["failures"] == ["log: the log holds no records"]
