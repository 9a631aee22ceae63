# LOCK to the committed "locked" line on the emulated ESP32, beside the
# emulated Pico's (docs/benchmarks.md, "On the emulated ESP32"): the .mpy
# build and main.py on its flash, the controller started, A1 configured in
# service mode through the host link (pico_bench.configure), then N six-seat
# rounds through the rig: the chips placed, LOCK pressed, the "locked" event
# awaited. Two times a round:
#   chip_ms  on the chip's clock (ticks_us), from the controller's read of
#            LOCK taking the level in to the "locked" line written, stamped by
#            the bench-only /boot.py (bench/esp32_boot.py);
#   host_ms  on the host's clock, from the rig's LOCK sent to the "locked"
#            line read: the wire, the wait for the controller's next tick and
#            the serial relay added.
# QEMU keeps the chip's clock on the host's (no instruction counting) and its
# flash is far slower than a chip's, so both are QEMU's on this host.
#   python bench/esp32_lock.py [--rounds N] [--json FILE]
import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pico_bench  # noqa: E402

SEATS = 6
START_WAIT = 900.0  # the controller's first start, and each panic's fresh QEMU


def bench_boot(build):
    # The emulated /boot.py with the bench's stamps in place of its install line.
    text = (Path(build) / "boot.py").read_text()
    line = "\nstandin.install()\n"
    if text.count(line) != 1:
        raise RuntimeError("the emulated /boot.py no longer installs the stand-ins in one line")
    return text.replace(line, "\n" + (HERE / "esp32_boot.py").read_text() + "\n").encode()


def one_round(link, rig, chips):
    link.events.clear()
    pico_bench.set_all(rig, chips, 1)
    time.sleep(0.3)  # past the sensors' 30 ms debounce
    sent = time.monotonic()
    pico_bench.set_all(rig, ["lock"], 1)
    link.wait_event("locked")
    host_ms = (time.monotonic() - sent) * 1000
    clock = link.wait_event("bench_clock")
    state = rig.state()
    pico_bench.set_all(rig, ["lock"] + chips, 0)
    if any(state["jackpot_lights"]):  # a hit: validated with the key, as a floor would
        pico_bench.set_all(rig, ["key"], 1)
        time.sleep(0.3)
        pico_bench.set_all(rig, ["key"], 0)
        link.wait_event("reset")
    rig.wait_for(lambda s: not any(s["bet_lights"]), 300.0, what="betting again")
    # ticks_us wraps at 2**30 us: the difference modulo that.
    return {"chip_ms": ((clock["locked_us"] - clock["lock_us"]) % (1 << 30)) / 1000,
            "host_ms": host_ms, "mem_free": clock["mem_free"],
            "mem_free_collected": clock["mem_free_collected"]}


def summary(values):
    return {"best": min(values), "median": statistics.median(values), "max": max(values)}


def bench(count):
    from uthctl.boards import esp32_flash
    from uthctl.boards.esp32 import Esp32Board
    from uthctl.links.board_link import Link
    from uthctl.links.rig import Rig

    started = time.monotonic()
    build = esp32_flash.emulated_build()
    chips = ["bet%d" % seat for seat in range(1, SEATS + 1)]
    with tempfile.TemporaryDirectory(prefix="uth-esp32-lock-") as tmp:
        flash = esp32_flash.make_flash(Path(tmp) / "flash.bin", build,
                                       extra={"boot.py": bench_boot(build)})
        with Esp32Board(flash=flash) as board:
            came = board.wait_started(START_WAIT)
            if came["state"] != "unconfigured":
                raise RuntimeError("the controller did not start unconfigured: %s" % came)
            result = {"start_s": round(time.monotonic() - started, 1)}
            pico_bench.configure(board)
            rounds = []
            with Link(board.serial_path, timeout=300.0) as link, \
                    Rig(board.rig_address, timeout=300.0) as rig:
                link.wait_ready(timeout=120.0)
                try:
                    for _ in range(count):
                        rounds.append(one_round(link, rig, chips))
                except OSError as error:  # a panic's fresh QEMU mid-round, most often
                    result["stopped"] = "after %d rounds: %s" % (len(rounds), error)
                    result["console"] = board.console_tail()[-3000:]
            state = board.state()
    if rounds:
        result.update(chip_ms=summary([r["chip_ms"] for r in rounds]),
                      host_ms=summary([r["host_ms"] for r in rounds]),
                      mem_free_min=min(r["mem_free"] for r in rounds),
                      mem_free_collected_min=min(r["mem_free_collected"] for r in rounds))
    result.update(rounds=rounds, panics=state["panics"], resets=state["resets"],
                  qemu_aborts=state["qemu_aborts"], wall_s=round(time.monotonic() - started, 1))
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description="LOCK to locked on the emulated ESP32")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    found = bench(args.rounds)
    print(json.dumps(found))
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
