# The heap census on the emulated ESP32 (bench/esp32_census.py), on the official
# images: ESP32_GENERIC (the WROOM's) with the controller built and ten six-seat
# rounds settled through the shipped board file, its REPL heap the figure
# boards/esp32_devkitc/board.py names; and the SPIRAM image (the WROVER's) at its
# REPL. Every panic, QEMU abort and reset the emulator made is printed (-s), not hidden.
import importlib.util
from pathlib import Path

import pytest

from uthctl.boards import esp32_flash, heaps

pytestmark = [pytest.mark.esp32, pytest.mark.slow,
              pytest.mark.skipif(esp32_flash.unavailable() is not None,
                                 reason=str(esp32_flash.unavailable()))]
BENCH = Path(__file__).resolve().parents[2] / "bench" / "esp32_census.py"
PICO_RESERVE = 24 * 1024


def _census():
    spec = importlib.util.spec_from_file_location("esp32_census", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.census


@pytest.mark.xfail(strict=True, reason="the emulated WROOM's GC heap grows to 190,656 bytes "
                   "and no further, and the controller's .mpy modules with the emulator's bus "
                   "stand-ins leave its rounds less than the 24 KB reserve, or no room at all "
                   "(docs/heap.md, 'The WROOM's ceiling'); its passing is news")
def test_wroom_census_on_the_official_image():
    figures = _census()("wroom")
    print("ESP32_GENERIC census:", figures)
    assert figures["repl"]["gc_heap"] == heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES")
    census = figures["census"]
    assert census["where"] == "esp32"
    assert census["controller"] < census["first_round"]
    # In use after a collection may fall as well as rise from round to round
    # (one census read 153,280 bytes after the first, 152,864 after ten); a
    # leak of 512 bytes a round would show over the nine rounds after it.
    assert census["after_rounds"] - census["first_round"] < 9 * 512
    # The WROOM keeps settlement on the reserve the Pico keeps, 24 KB free after
    # six-seat settled rounds (docs/heap.md): that decision rests on this.
    assert census["free_after"] >= PICO_RESERVE


@pytest.mark.xfail(strict=True, reason="QEMU's ESP32 machine: the SPIRAM image panics "
                   "(LoadProhibited) on its first program at the REPL, with -m 4M and 8M "
                   "(docs/heap.md); its passing is news")
def test_wrover_heap_at_the_repl():
    figures = _census()("wrover", memory="4M", repl_only=True)
    print("ESP32_GENERIC-SPIRAM at its REPL:", figures)
    assert figures["repl"]["gc_heap"] > heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES")
