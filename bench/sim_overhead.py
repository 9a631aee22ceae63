# The virtual board's own part of its heap (boards/sim/board.py's HEAP_OVERHEAD):
# what its boot (simboot: the machine and time stand-ins, the littlefs image
# mounted at /), its board file's wire, models and fast clock hold after a
# collection, less the firmware modules a real board file imports too. Run
# twice on the unix port from the sim build (bench/heap_report.py runs it):
#   UTH_SIM_FLASH=IMAGE MICROPYPATH=.frozen:<build>/firmware:<build>/sim \
#       micropython bench/sim_overhead.py sim|board   -> {"used": bytes}
# "sim": the virtual board booted and its board built; "board": only the
# firmware modules every board file imports. The overhead is the difference.
import gc
import json
import sys


def used():
    gc.collect()
    return gc.mem_alloc()


before = used()
if sys.argv[1] == "sim":
    import simboot

    simboot.boot()
    import board

    built = board.build()
else:
    import table.hardware  # noqa: F401
    import table.seat_expanders  # noqa: F401
    import table.serial  # noqa: F401
print(json.dumps({"used": used() - before}))
