# The heap census (bench/heap_census.py) on the emulated ESP32: MicroPython's
# official image (ESP32_GENERIC, the WROOM's; or the SPIRAM image, the
# WROVER's) on QEMU, the controller's .mpy build on its flash with the bus
# stand-ins (uthctl/boards/esp32_flash.py), no main.py so the REPL comes up;
# the census then builds the controller as main.py would, through the shipped
# board file, and plays its rounds. Prints one JSON line: the REPL's heap
# (gc.mem_free() + gc.mem_alloc(), the ESP-IDF heap's free bytes), the
# census's figures, and the emulator's panics, QEMU aborts and resets seen.
#   python bench/esp32_census.py [wroom|wrover] [--memory 4M] [--repl-only]
import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from uthctl.boards import esp32_flash, raw_repl
from uthctl.boards.esp32 import Esp32Board

HERE = Path(__file__).resolve().parent
REPL_HEAP = """
import gc, json
gc.collect()
figures = {"gc_heap": gc.mem_free() + gc.mem_alloc(), "gc_free": gc.mem_free()}
try:
    import esp32
    figures["idf_free"] = sum(r[1] for r in esp32.idf_heap_info(esp32.HEAP_DATA))
    figures["idf_largest"] = max(r[2] for r in esp32.idf_heap_info(esp32.HEAP_DATA))
except Exception as e:
    figures["idf_error"] = repr(e)
print(json.dumps(figures))
"""


def census(image="wroom", memory=None, repl_only=False, tries=3, stderr=None):
    build = esp32_flash.emulated_build()
    figures = {"image": image, "memory": memory, "tries": 0}
    with tempfile.TemporaryDirectory(prefix="uth-esp32-census-") as scratch:
        folder = Path(scratch) / "build"
        shutil.copytree(build, folder)
        (folder / "main.py").unlink()  # the REPL, not the controller
        flash = Path(scratch) / "flash.bin"
        with Esp32Board(flash=flash, build=folder, image=image, memory=memory,
                        stderr=stderr) as board:
            started = time.monotonic()
            came = board.wait_started()
            figures["boot_s"] = round(time.monotonic() - started, 1)
            assert came["state"] == "repl", (came, board.state())
            programs = [("repl", REPL_HEAP)]
            if not repl_only:
                programs.append(("census", (HERE / "heap_census.py").read_text()))
            for name, program in programs:
                for _ in range(tries):
                    figures["tries"] += 1
                    try:
                        if board.wait_started()["state"] != "repl":
                            continue
                        out = raw_repl.check(board.serial_path, program, timeout=900,
                                             boots=lambda: board.state()["boots"])
                        figures[name] = json.loads(out.strip().splitlines()[-1])
                        break
                    except raw_repl.BoardRestarted:
                        continue
            state = board.state()
            figures.update(panics=state["panics"], qemu_aborts=state["qemu_aborts"],
                           resets=state["resets"])
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("image", nargs="?", default="wroom", choices=sorted(esp32_flash.IMAGES))
    parser.add_argument("--memory", help="QEMU's -m (the SPIRAM image's PSRAM)")
    parser.add_argument("--repl-only", action="store_true")
    args = parser.parse_args(argv)
    print(json.dumps(census(args.image, args.memory, args.repl_only)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
