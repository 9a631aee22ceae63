# The controller's heap census (bench/heap_census.py, as `make bench` runs it
# through bench/heap_report.py) on the 32-bit unix port from the virtual
# board's build, at the smallest controller board's heap: the ESP32-WROOM-32's
# 166,592 bytes (its board file's WROOM_HEAP_BYTES, measured on the official
# image). Ten six-seat rounds with every side wager settle, and 24 KB stay free
# after them: the reserve a board keeps for what play leaves in pieces
# (docs/heap.md), with no record key and with one (every commit signed, as at
# a keyed table). The census's figures are printed with -s.
import sys
from pathlib import Path

import pytest

from uthctl.boards import heaps

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import heap_report  # noqa: E402

RESERVE = 24 * 1024  # bytes free after ten rounds (docs/heap.md)
ROUND_GROWTH = 512  # bytes a round may leave behind past the first


@pytest.mark.parametrize("signed", [False, True], ids=["unkeyed", "keyed"])
def test_the_wroom_settles_ten_rounds_and_keeps_24_kb_free(signed):
    wroom = ("ESP32-WROOM-32", heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES"))
    census = heap_report.unix([wroom], signed=signed)[wroom[0]]
    heap_report.print_unix({wroom[0]: census})
    assert "failed" not in census, census
    assert census["heap"] >= wroom[1]
    assert census["free_after"] >= RESERVE, census
    assert census["after_rounds"] - census["first_round"] < ROUND_GROWTH * 10, census
