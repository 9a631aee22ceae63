# The heap census (bench/heap_census.py) on the emulated ESP32: MicroPython's
# official image (ESP32_GENERIC, the WROOM's; or the SPIRAM image, the
# WROVER's) on QEMU, the controller's .mpy build on its flash with the bus
# stand-ins (uthctl/boards/esp32_flash.py), main.py held aside so the REPL comes up;
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

from uthctl import build_mpy
from uthctl.boards import esp32_flash, raw_repl
from uthctl.boards.esp32 import Esp32Board

HERE = Path(__file__).resolve().parent
REPL_HEAP = """
import gc, json
print(json.dumps({"gc_heap": gc.mem_free() + gc.mem_alloc(), "gc_free": gc.mem_free()}))
"""
# After a collection, and the ESP-IDF heap (the SPIRAM image panics in both under QEMU).
REPL_COLLECTED = """
import gc, json
gc.collect()
figures = {"gc_heap": gc.mem_free() + gc.mem_alloc(), "gc_free": gc.mem_free()}
import esp32
figures["idf_free"] = sum(r[1] for r in esp32.idf_heap_info(esp32.HEAP_DATA))
figures["idf_largest"] = max(r[2] for r in esp32.idf_heap_info(esp32.HEAP_DATA))
print(json.dumps(figures))
"""


def at_repl(programs, image="wroom", memory=None, tries=3, stderr=None, files=None):
    # {name: the JSON its program printed last} for each (name, program, tries)
    # run in turn at the REPL of an emulated ESP32 whose flash holds the .mpy
    # build and the stand-ins, main.py held aside as main.held (heap_census.py
    # puts it back), and files {name: bytes} at its root;
    # with the boot's time and the emulator's panics, QEMU aborts and resets.
    # A program the board restarted under (a panic) is run again, up to its
    # tries, each counted.
    build = esp32_flash.emulated_build()
    figures = {"image": image, "memory": memory, "tries": 0}
    with tempfile.TemporaryDirectory(prefix="uth-esp32-census-") as scratch:
        folder = Path(scratch) / "build"
        shutil.copytree(build, folder)
        # The REPL, not the controller; the census puts main.py back before
        # it builds the controller, which checks the program whole at start.
        (folder / "main.py").rename(folder / "main.held")
        for name, data in (files or {}).items():
            (folder / name).write_bytes(data)
        flash = Path(scratch) / "flash.bin"
        with Esp32Board(flash=flash, build=folder, image=image, memory=memory,
                        stderr=stderr) as board:
            started = time.monotonic()
            came = board.wait_started()
            figures["boot_s"] = round(time.monotonic() - started, 1)
            assert came["state"] == "repl", (came, board.state())
            for name, program, most in programs:
                for _ in range(most):
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
                    except raw_repl.RawReplError as error:
                        figures[name + "_error"] = str(error)[-1000:]
                        break
            if not all(name in figures for name, _, _ in programs):
                figures["console"] = board.console_tail()[-3000:]
            state = board.state()
            figures.update(panics=state["panics"], qemu_aborts=state["qemu_aborts"],
                           resets=state["resets"])
    return figures


def census(image="wroom", memory=None, repl_only=False, tries=3, stderr=None):
    programs = [("repl", REPL_HEAP, tries), ("repl_collected", REPL_COLLECTED, 1)]
    files = {}
    if not repl_only:
        # The census as a .mpy on the flash, as the controller's modules are,
        # not compiled at the REPL: a WROOM running main.py holds neither.
        files["heap_census.mpy"] = _compiled(HERE / "heap_census.py")
        programs.append(("census", "import heap_census\n", tries))
    return at_repl(programs, image, memory, tries, stderr, files)


def _compiled(source):
    with tempfile.TemporaryDirectory(prefix="uth-census-mpy-") as scratch:
        target = Path(scratch) / "heap_census.mpy"
        code, message = build_mpy.compile_module(source, target, esp32_flash.ARCH, source.parent)
        if code:
            raise OSError("the census does not compile: " + message)
        return target.read_bytes()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("image", nargs="?", default="wroom", choices=sorted(esp32_flash.IMAGES))
    parser.add_argument("--memory", help="QEMU's -m (the SPIRAM image's PSRAM)")
    parser.add_argument("--repl-only", action="store_true")
    parser.add_argument("--tries", type=int, default=3, help="boots a program may take")
    args = parser.parse_args(argv)
    print(json.dumps(census(args.image, args.memory, args.repl_only, args.tries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
