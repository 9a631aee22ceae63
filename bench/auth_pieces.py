# The `authenticate` command's pieces on the chip (run by mpremote on a Pico
# with the controller stopped): each step() of one authentication timed with
# time.ticks_us on the chip's clock, over the board's own program (its image
# in flash on the project's image, its files on the .mpy path). The longest
# piece is the most the table's next tick can wait behind the link. Prints one
# JSON line: program, bytes, pieces, max_us, total_us, digest.
import json
import time

import board

from table.authenticate import Authentication

SEED = "0123456789abcdef"


def main():
    job = Authentication({"seed": SEED}, board.build().program)
    pieces, longest, total = 0, 0, 0
    while True:
        began = time.ticks_us()
        reply = job.step()
        took = time.ticks_diff(time.ticks_us(), began)
        pieces += 1
        longest = max(longest, took)
        total += took
        if reply is not None:
            break
    print(json.dumps({"program": reply["program"], "bytes": reply["bytes"], "pieces": pieces,
                      "max_us": longest, "total_us": total, "digest": reply["digest"],
                      "seed": SEED}))


main()
