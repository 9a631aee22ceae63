# The program check a start makes (table/program_check.py), on the chip (run
# by mpremote on a Pico with the controller stopped, as auth_pieces.py): the
# board's own program hashed whole, as the start hashes it, timed with
# time.ticks_us on the chip's clock. Prints one JSON line: program, us, digest.
# The same script runs on the unix port over the virtual board's build
# (bench/start_check_run.py gives it the board).
import json
import time

from table.program_check import program_digest


def measure(program, repeats=3):
    best, digest, kind = None, None, None
    for _ in range(repeats):
        began = time.ticks_us()
        kind, digest = program_digest(program)
        took = time.ticks_diff(time.ticks_us(), began)
        best = took if best is None else min(best, took)
    return {"program": kind, "us": best, "digest": digest, "repeats": repeats}


def main():
    import board

    print(json.dumps(measure(board.build().program)))


if __name__ == "__main__":
    main()
