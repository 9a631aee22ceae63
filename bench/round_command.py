# The `round` command measured where the controller runs: on the emulated
# Pico or ESP32 (run on the chip by bench/pico_round.py or esp32_bench.py,
# the controller built as main.py builds it on the board's own flash) or on
# the 32-bit unix port at a board's heap (MICROPYPATH=.frozen:firmware:tests/logic
# micropython -X heapsize=$UTH_HEAPSIZE bench/round_command.py). Prints one JSON line:
#   settle_ms   uth.settle alone on a six-seat round (every side wager)
#   round_ms    the whole command as the link reads it: its line checked and
#               parsed, settled by the table's rules, recorded and committed
#               (on the emulated Pico, CPU time only: flash operations take
#               no emulated time; on the emulated ESP32, QEMU's flash time
#               in it), best and median of the runs
#   free        gc.mem_free() with the controller built and a round settled
#   longest_line        the reply to a 4,096-byte round line, fed in pieces
#   largest_free_block  then, the largest piece of heap free: what a longer
#                       line's buffer (made at start) would have to come from
import gc
import json
import sys
import time

TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
STAKES = {"trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500}
SEATS = ((1, "2c", "3c"), (2, "4c", "5c"), (3, "6c", "7c"), (4, "8c", "Tc"), (5, "Jc", "Qc"),
         (6, "Kc", "Ac"))
ROUND = {"round": "bench-1", "dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
         "seats": [{"seat": n, "cards": [a, b], "wagers": STAKES} for n, a, b in SEATS]}
RUNS = 10
MAX_ROUND_LINE = 4096  # table/hostlink.py


def _controller():
    # (table, link, where): the board's own build on a Pico or an ESP32, a
    # tests/logic rig on the unix port.
    if sys.platform in ("rp2", "esp32"):
        import board

        from table import app

        table, link = app.build(board.build())
        app.start(table, link, time.ticks_ms())
        return table, link, sys.platform
    import tmpdir
    from table_rig import Rig

    rig = Rig(tmpdir.make())
    rig.configure("A1")
    return rig.table, rig.link, "unix"


def _replies(link):
    # The last line the link sent, kept alone: a list of every reply would
    # take the heap being measured.
    said = [None]

    def write(text):
        said[-1] = text
    link.write = write
    return said


def _largest_block():
    # The largest piece of heap one allocation can take now, to 256 bytes.
    low, high = 0, 256 * 1024
    while high - low > 256:
        size = (low + high) // 2
        try:
            block = bytearray(size)
            del block
            low = size
        except MemoryError:
            high = size
    return low


def main():
    table, link, where = _controller()
    table.bonus.meter.settings["paytables"] = TABLES
    said = _replies(link)
    from uth.settle import settle

    data = dict(ROUND, paytables=TABLES)
    settle(data)
    gc.collect()
    start = time.ticks_us()
    for _ in range(RUNS):
        settle(data)
    settle_ms = time.ticks_diff(time.ticks_us(), start) / RUNS / 1000
    line = json.dumps(dict(ROUND, cmd="round")).encode() + b"\n"
    times = []
    for _ in range(RUNS):
        gc.collect()
        start = time.ticks_us()
        link.feed(line, time.ticks_ms())
        times.append(time.ticks_diff(time.ticks_us(), start) / 1000)
        assert json.loads(said[-1])["ok"], said[-1]
    times.sort()
    gc.collect()
    free = gc.mem_free()
    # A round's longest line, 4,096 bytes (whitespace-padded), fed as a
    # serial link delivers it, 64 bytes at a time.
    body = json.dumps(ROUND)[1:]
    pad = MAX_ROUND_LINE - len(body) - len('{"cmd": "round",')
    pieces = [b'{"cmd": "round",'] + [b" " * 64] * (pad // 64) + [b" " * (pad % 64),
                                                                  body.encode(), b"\n"]
    for piece in pieces:
        link.feed(piece, time.ticks_ms())
    longest = json.loads(said[-1])
    longest = {"ok": longest["ok"], "error": longest.get("error")}
    gc.collect()
    headroom = _largest_block()
    print(json.dumps({"where": where, "settle_ms": settle_ms, "round_ms_best": times[0],
                      "round_ms_median": times[len(times) // 2], "free": free,
                      "longest_line": longest, "largest_free_block": headroom,
                      "settled": table.bonus.wager_meters()["settled"]}))


if __name__ == "__main__":  # bench/round_profile.py imports it
    main()
