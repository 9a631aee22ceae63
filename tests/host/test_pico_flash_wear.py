# Flash wear measured on the real image: the project's own image (the
# controller frozen into the rp2 MicroPython), its littlefs as the image mounts it, and
# the emulator counting every sector erase the chip's flash driver makes.
# 1,000 rounds at six seats, each hit validated and reset as a floor would,
# and each round's side wagers settled (the `round` command's commit: six
# seats with all four side wagers), driven by a script on the chip through
# the controller's own meter and store
# (app.build on the board's own wiring and storage root) rather than through
# its pins, for speed. Then, as tests/logic/test_flash_wear.py assumes of
# littlefs, the erases are spread over every sector of the filesystem: 352
# sectors of 4 KiB rated for 100,000 erase cycles each, at design.md's 1,500
# rounds a day, must last its 20 years.
#
# Long (minutes on a shared 2-core machine): marked pico_slow, and run only
# when selected, e.g. `pytest -m pico_slow tests/host/test_pico_flash_wear.py`.
import json
import time

import pytest
from pico_target import fresh_controller, mpremote, to_repl

from uthctl.boards import pico_image

WHY_NOT = pico_image.unavailable()
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.pico_slow, pytest.mark.board]

if WHY_NOT is None:
    from uthctl.boards.pico import PicoBoard
    from uthctl.links.rig import Rig

ROUNDS = 1000
ROUNDS_A_DAY = 1500  # design.md
ERASE_CYCLES = 100_000  # W25Q16JV: 100,000 program/erase cycles a sector
FS_BYTES = 1408 * 1024  # the rp2 image's littlefs region
SECTOR = 4096
WEAR_FLOOR_YEARS = 20  # design.md
SEED = 2  # the seeded stream gives this run 3 hits (foreseen on CPython)
BOOT_WAIT = 60.0

# TEST ONLY, run on the chip in the interpreter mpremote stops the controller
# for: the controller built as main.py builds it, its meter configured, then
# ROUNDS rounds at six seats with every hit validated and the meter reset.
WEAR_RUN = r"""
import json, time
import board
from table import app
from mystery import configs
from mystery.meter import PENDING, AWAITING_RESET
table, link = app.build(board.build())
table.start(time.ticks_ms())
bonus = table.bonus
bonus.configure("A1")
bonus.reset()
bonus.change_setting("paytables", {"trips": "E", "bad_beat": "C", "play_the_board": "A",
                                   "ultimate_pairs": "F"})
stakes = {"trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500}
settle = {"dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
          "seats": [{"seat": n, "cards": [a, b], "wagers": stakes} for n, a, b in (
              (1, "2c", "3c"), (2, "4c", "5c"), (3, "6c", "7c"), (4, "8c", "Tc"),
              (5, "Jc", "Qc"), (6, "Kc", "Ac"))]}
seats = [(n, True, configs.get("A1").min_wager_cents) for n in range(1, 7)]
hits = 0
for _ in range(%d):
    if bonus.meter.phase == AWAITING_RESET:
        bonus.reset()
    bonus.lock_round(seats)
    if bonus.meter.phase == PENDING:
        hits += 1
        bonus.validate("jackpot_slip")
        bonus.reset()
    bonus.settle_round(settle)
print(json.dumps({"hits": hits, "round": bonus.meter.round, "phase": bonus.meter.phase,
                  "settled": bonus.wager_meters()["settled"]}))
"""


def erased(rig):
    # Bytes erased this power-on. The emulator reports each operation on a
    # socket of its own, a little after it: read until the count holds still.
    last = rig.state()["flash_bytes"]["erase"]
    while True:
        time.sleep(0.3)
        now = rig.state()["flash_bytes"]["erase"]
        if now == last:
            return now
        last = now


@pytest.fixture
def selected(request):
    # Minutes long: it runs when a mark expression names it, never by default.
    if "pico_slow" not in (request.config.option.markexpr or ""):
        pytest.skip("a long run: select it with -m pico_slow")


def test_flash_outlasts_twenty_years_on_the_real_image(tmp_path, selected):
    with PicoBoard(tmp_path / "pico.img", realtime=False) as board:
        assert fresh_controller(board, tmp_path, SEED)["state"] not in (None, "repl")
        script = tmp_path / "wear.py"
        script.write_text(WEAR_RUN % ROUNDS)
        with Rig(board.rig_address) as rig:
            to_repl(board)  # a new board: the key held, `repl`, no record
            before = erased(rig)
            out = mpremote(board.serial_path, "run", str(script), timeout=3600)
            done = json.loads(out.strip().splitlines()[-1])
            after = erased(rig)
            assert rig.state()["boots"] == 2, "the board restarted during the run"
    assert done["hits"] >= 1, done  # a run with hits, validations and resets
    assert done["round"] >= ROUNDS and done["settled"] == ROUNDS, done
    per_round = (after - before) / SECTOR / ROUNDS
    years = (FS_BYTES // SECTOR) * ERASE_CYCLES / (per_round * ROUNDS_A_DAY * 365)
    print("flash wear on the emulated Pico: %.2f sector erases a round (LOCK and settlement)"
          " over %d rounds (%d hits): %.1f years" % (per_round, ROUNDS, done["hits"], years))
    assert years >= WEAR_FLOOR_YEARS, "%.1f years at %.2f erases a round" % (years, per_round)
