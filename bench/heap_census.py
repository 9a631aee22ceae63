# The controller's heap, stage by stage, where it runs: on the emulated Pico
# (`bench/pico_round.py bench/heap_census.py`: the deployed build, the
# board's own pins and flash), on the emulated ESP32 (bench/esp32_census.py:
# the .mpy build on its flash, the shipped board file on the bus stand-ins)
# or on the unix port with the sim build
# (MICROPYPATH=.frozen:<the sim build's lib>:tests/logic micropython
# -X heapsize=$UTH_HEAPSIZE bench/heap_census.py: fake pins, a folder for flash).
# Each figure is gc.mem_alloc() after a collection, bytes. Prints one JSON line:
#   heap            the whole heap (free + used) before the firmware loads
#   start           used before the firmware loads (this script, the runtime)
#   controller      used with the controller built and started (table, store,
#                   meter, host link), as main.py builds it
#   first_round     used after the first round: the evaluator and paytables
#                   loaded, the round line's buffer made
#   after_rounds    used after ten six-seat rounds (the round line's buffer,
#                   the side wagers' meters, what rounds leave behind)
#   free_after      free after those rounds
# With the argument `signed` (unix port only), the table is given a record key
# in service mode once configured, so every commit signs its records.
import gc
import json
import sys
import time

TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
STAKES = {"trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500}
SEATS = ((1, "2c", "3c"), (2, "4c", "5c"), (3, "6c", "7c"), (4, "8c", "Tc"), (5, "Jc", "Qc"),
         (6, "Kc", "Ac"))
ROUNDS = 10
RECORD_KEY = "5e" * 32


def used():
    gc.collect()
    return gc.mem_alloc()


def _controller():
    if sys.platform in ("rp2", "esp32"):
        import board

        from table import app

        table, link = app.build(board.build())
        table.start(time.ticks_ms())
        return table, link, sys.platform
    import tmpdir
    from table_rig import Rig

    rig = Rig(tmpdir.make())
    rig.configure("A1")
    if sys.argv[-1] == "signed":
        rig.key.level = 1
        rig.run(100)
        assert rig.command(cmd="provision", key=RECORD_KEY)[-1]["ok"]
        rig.key.level = 0
        rig.run(100)
        rig.lines.clear()
    return rig.table, rig.link, "unix"


def _round_line(number):
    data = {"cmd": "round", "round": "heap-%d" % number, "dealer": ["Qs", "Ks"],
            "board": ["9s", "Ts", "Js", "9c", "9d"],
            "seats": [{"seat": n, "cards": [a, b], "wagers": STAKES} for n, a, b in SEATS]}
    return json.dumps(data).encode() + b"\n"


def main():
    figures = {"heap": gc.mem_free() + gc.mem_alloc(), "start": used()}
    table, link, where = _controller()
    table.bonus.meter.settings["paytables"] = TABLES
    said = [None]

    def write(text):
        said[0] = text
    link.write = write
    figures["controller"] = used()
    link.feed(_round_line(0), time.ticks_ms())
    assert json.loads(said[0])["ok"], said[0]
    figures["first_round"] = used()
    for number in range(1, ROUNDS + 1):
        link.feed(_round_line(number), time.ticks_ms())
        assert json.loads(said[0])["ok"], said[0]
    figures["after_rounds"] = used()
    figures["free_after"] = gc.mem_free()
    figures["where"] = where
    print(json.dumps(figures))


main()
