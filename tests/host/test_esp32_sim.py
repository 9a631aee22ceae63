# `make sim BOARD=esp32_devkitc`: the interactive table on the emulated ESP32, played
# as a person plays it in a terminal (make sim runs `uthctl sim --board esp32_devkitc
# SIM_ARGS`; test_make_sim.py reads that line from make's dry run). A configuration
# chosen in service mode, chips at three seats, LOCK: the round locks with the
# contributions the regulation's A1 gives (2% of a $1 chip a seat), the LED meter
# shows it, and q ends the program with QEMU. The flash is the session's started one
# (targets.Esp32Images), so the controller's first start is not paid again.
import os
import shutil
import sys
import time

import pytest
from test_tui import Terminal, alive, children, meter_line, money, seat_row

from uthctl.boards import esp32_flash

pytestmark = [pytest.mark.esp32, pytest.mark.slow,
              pytest.mark.skipif(esp32_flash.unavailable() is not None,
                                 reason=str(esp32_flash.unavailable()))]

A1_MINIMUM_CENTS = 10_000  # A1's reset value, $100 (rules.md, the configurations)
A1_CENTS_PER_SEAT = 2  # 2% of the $1 chip a seat bets
START_WAIT = 900.0  # QEMU's boot and the controller's start, and any panic's fresh QEMU
WAIT = 120.0  # any one step: each crosses the chip's slow flash
DISPLAY_WAIT = 180.0  # the LED's frames cross the stood-in SPI's UART after the meter's


def start_sim(flash):
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    env.pop("NO_COLOR", None)
    return Terminal([sys.executable, "-m", "uthctl.cli", "sim", "--board", "esp32_devkitc",
                     "--flash", str(flash)], env)


def test_a_table_played_in_the_terminal_on_the_emulated_esp32(tmp_path, esp32_images):
    flash = tmp_path / "flash.bin"
    shutil.copyfile(esp32_images.image(None), flash)
    seats = (1, 2, 3)
    locked_cents = A1_MINIMUM_CENTS + A1_CENTS_PER_SEAT * len(seats)
    term = start_sim(flash)
    try:
        term.wait_text("turn on service mode (s) and choose a configuration (c)", START_WAIT)
        assert "state UNCONFIGURED" in term.text()
        term.keys("s")
        term.wait_text("state SERVICE", WAIT)
        term.keys("c")
        term.wait_text("choose a configuration", WAIT)
        term.keys("A1\r")
        term.wait_text("config A1 (was none)", WAIT)
        term.keys("s")
        term.wait_text("state BETTING", WAIT)
        term.wait_for(lambda t: "$%s" % money(A1_MINIMUM_CENTS) in meter_line(term), WAIT,
                      what="the meter at $100.00")

        term.keys("".join(str(seat) for seat in seats))
        term.wait_for(lambda t: all("● ON" in seat_row(term, n) for n in seats), WAIT,
                      what="bet lights 1-3")
        term.keys("l")
        term.wait_text("locked round 1, meter $%s" % money(locked_cents), WAIT)
        term.wait_text("state LOCKED", WAIT)
        term.wait_text('display "%s"' % money(locked_cents), DISPLAY_WAIT)
        term.keys("0")
        term.wait_text("state BETTING", WAIT)
        term.wait_for(lambda t: all("○ off" in seat_row(term, n) for n in seats), WAIT,
                      what="bet lights off")

        emulators = children(term.proc.pid)
        assert emulators, "no QEMU under uthctl sim"
        term.keys("q")
        deadline = time.monotonic() + 60
        while term.proc.poll() is None and time.monotonic() < deadline:
            term.pump(0.1)
        assert term.proc.poll() == 0, term.text()
        assert not any(alive(pid) for pid in emulators)
    finally:
        term.close()
