# The controller's heap census (bench/heap_census.py, as `make bench` runs it
# through bench/heap_report.py) on the 32-bit unix port from the virtual
# board's build, the controller built as app.build builds it on a board. Ten
# six-seat rounds with every side wager settle, and 24 KB stay free after
# them: the reserve a board keeps for what play leaves in pieces
# (docs/heap.md), with no record key and with one (every commit signed, as at
# a keyed table). The census's figures are printed with -s.
#
# A heap in pieces fails where its pieces happen to fall, which moves with a
# few bytes anywhere (the census's own, a checkout's path). So the census is
# held at every heap across a band, not at one: a round that needs one block
# in one piece fails somewhere in it.
import sys
from pathlib import Path

import pytest

from uthctl.boards import heaps

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import heap_report  # noqa: E402

RESERVE = 24 * 1024  # bytes free after ten rounds (docs/heap.md)
ROUND_GROWTH = 512  # bytes a round may leave behind past the first
# The band: from the least GC heap on which this build keeps the reserve,
# with a margin (docs/heap.md, "The census as a board builds it": about
# 178,300 bytes without a key and 179,200 with one, 6 December 2026), 8 KB
# up, every 512 bytes.
BAND_FROM = 180 * 1024
BAND = range(BAND_FROM, BAND_FROM + 8 * 1024 + 1, 512)
MODES = pytest.mark.parametrize("signed", [False, True], ids=["unkeyed", "keyed"])


def _holds(census):
    # What a census that failed nothing said: None, or why not.
    if "failed" in census:
        return census["failed"]
    if census["heap"] < census["budget"]:
        return "a heap of %d bytes, not %d" % (census["heap"], census["budget"])
    if census["free_after"] < RESERVE:
        return "%d bytes free after ten rounds" % census["free_after"]
    if census["after_rounds"] - census["first_round"] >= ROUND_GROWTH * 10:
        return "%d bytes left behind by nine rounds" % (
            census["after_rounds"] - census["first_round"])
    return None


@MODES
def test_every_heap_across_the_band_settles_ten_rounds_and_keeps_24_kb_free(signed):
    found = heap_report.unix([("%d" % size, size) for size in BAND], signed=signed)
    failed = {}
    for title, census in found.items():
        why = _holds(census)
        if why:
            failed[title] = why
    heap_report.print_unix({title: found[title] for title in ("%d" % BAND_FROM,)})
    assert failed == {}, failed


@MODES
@pytest.mark.xfail(strict=True, reason=(
    "the build as a board builds it needs about 179,200 bytes of GC heap to keep 24 KB after ten "
    "rounds; a WROOM's heap at its REPL is 166,592 and grows into the ESP-IDF heap on demand, "
    "which the unix port does not do (docs/heap.md, 'The census as a board builds it')"))
def test_the_wroom_at_its_repl_heap_settles_ten_rounds_and_keeps_24_kb_free(signed):
    wroom = ("ESP32-WROOM-32", heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES"))
    census = heap_report.unix([wroom], signed=signed)[wroom[0]]
    heap_report.print_unix({wroom[0]: census})
    assert _holds(census) is None, census
