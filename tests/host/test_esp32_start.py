# The controller starting on the emulated ESP32 (uthctl/boards/esp32.py): the
# official ESP32_GENERIC image on QEMU, a new flash file holding the .mpy build
# and the bus stand-ins. A new store comes up unconfigured and the display,
# driven through the shipped board file and its MAX7219 driver, reads "no CFG"
# (docs/boards.md, "The emulated ESP32"). Minutes on the 2-core machine; every
# panic and fresh QEMU the emulator made is printed (-s), never hidden.
import time

import pytest

from uthctl.boards import esp32_flash

pytestmark = [pytest.mark.esp32, pytest.mark.slow,
              pytest.mark.skipif(esp32_flash.unavailable() is not None,
                                 reason=str(esp32_flash.unavailable()))]

# Power-on to `started` took 164 s (one panic and a fresh QEMU on the way) on
# the loaded 2-core machine; the panics' fresh QEMUs each add a boot.
START_WAIT = 900.0


def test_controller_starts_unconfigured_on_a_new_flash(tmp_path):
    from uthctl.boards.esp32 import Esp32Board

    with Esp32Board(flash=tmp_path / "flash.bin") as board:
        came = board.wait_started(START_WAIT)
        state = _display_settled(board)
        print("emulated ESP32: %(panics)d panics, %(qemu_aborts)d QEMU aborts, "
              "%(resets)d resets" % state)
        assert came == {"state": "unconfigured", "fault": None}, board.console_tail()[-2000:]
        assert state["board"] and state["display"] == "no CFG", state
    # The store's first meter record is on the flash the chip wrote.
    fs = esp32_flash.read_filesystem(tmp_path / "flash.bin")
    assert "meter.a" in fs.listdir("/meter")


def _display_settled(board, wait=60.0):
    # The board's state once the display's frames, which cross UART2 while
    # `started` crosses UART0, have all arrived (or the wait is over).
    deadline = time.monotonic() + wait
    state = board.state()
    while state["display"] != "no CFG" and time.monotonic() < deadline:
        time.sleep(0.2)
        state = board.state()
    return state
