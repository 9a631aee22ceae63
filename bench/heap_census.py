# The controller's heap, stage by stage, where it runs: on the emulated Pico
# (`bench/pico_round.py bench/heap_census.py`: the deployed build, the
# board's own pins and flash), on the emulated ESP32 (bench/esp32_census.py:
# the .mpy build on its flash, the shipped board file on the bus stand-ins)
# or on the unix port with the sim build
# (MICROPYPATH=.frozen:<the sim build's lib>:tests/logic micropython
# -X heapsize=$UTH_HEAPSIZE bench/heap_census.py: fake pins, a folder for flash,
# and what app.build adds on a board: app and asyncio loaded, the heap watch,
# what is made at start for rounds). Everywhere the replies go out through the
# board's USB port code (table/serial.py) to a host's end that keeps no line.
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
import io
import json
import sys
import time

TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
STAKES = {"trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500}
SEATS = ((1, "2c", "3c"), (2, "4c", "5c"), (3, "6c", "7c"), (4, "8c", "Tc"), (5, "Jc", "Qc"),
         (6, "Kc", "Ac"))
ROUNDS = 10
RECORD_KEY = "5e" * 32
HELD_MAIN = "main.held"
_HEAD = 200  # bytes of a reply kept to say why it failed


def used():
    gc.collect()
    return gc.mem_alloc()


def _controller():
    if sys.platform in ("rp2", "esp32"):
        _main_back()
        import board

        from table import app

        table, link = app.build(board.build())
        key = _Key()
        table.key_pin = key  # the census turns the key itself
        now = time.ticks_ms()
        app.start(table, link, now)
        _port_mount()
        if table.bonus.fault or table.program_fault:
            raise RuntimeError("the table did not start: %s" % (
                table.bonus.fault or table.program_fault))
        return table, link, sys.platform
    import tmpdir
    from table_rig import Rig

    rig = Rig(tmpdir.make())
    rig.configure("A1")
    # The paytables set in service mode, as a floorperson sets them: a table
    # with paytables in force loads the settlement as it starts (app.py).
    rig.key.level = 1
    rig.run(100)
    assert rig.command(cmd="set", name="paytables", value=TABLES)[-1]["ok"]
    if sys.argv[-1] == "signed":
        assert rig.command(cmd="provision", key=RECORD_KEY)[-1]["ok"]
    rig.key.level = 0
    rig.run(100)
    rig.lines.clear()
    _as_a_board_builds_it(rig.link)
    return rig.table, rig.link, "unix"


def _port_mount():
    # The emulated ESP32's /boot.py mounts its filesystem with 4 KB caches,
    # for QEMU's slow flash operations (docs/boards.md); a WROOM keeps the
    # port's own mount, 128-byte caches. Once the controller has started
    # (imports and the program check done on the fast mount), the census
    # mounts it as the port does, so the rounds hold the heap a WROOM's do.
    if sys.platform != "esp32":
        return
    import vfs
    from flashbdev import bdev

    vfs.umount("/")
    vfs.mount(vfs.VfsLfs2(bdev), "/")


class _Key:
    # The key switch as the census holds and releases it on a board.
    level = 0

    def value(self):
        return self.level


def _configured(table, link, said, figures):
    # A new flash configured as a technician configures it: the key held,
    # `config` through the host link.
    from table.controller import NOT_CONFIGURED

    if table.mode != NOT_CONFIGURED:
        return
    now = _key_to(table, table.key_pin, 1, time.ticks_ms())
    link.feed(b'{"cmd": "config", "mystery": "A1"}\n', now)
    _check(said, figures)
    _key_to(table, table.key_pin, 0, now)


def _key_to(table, key, level, now):
    # The key set to level and the table ticked past its debounce: the ticks after.
    key.level = level
    for _ in range(40):
        now = time.ticks_add(now, 5)
        table.tick(now)
    return now


def _main_back():
    # The emulated ESP32's flash holds main.py as main.held, so that its REPL
    # comes up for this script (bench/esp32_census.py); the program check at
    # start reads the program whole, main.py with it.
    import os

    if HELD_MAIN in os.listdir():
        os.rename(HELD_MAIN, "main.py")


def _as_a_board_builds_it(link):
    # The fake pins' link given what app.build gives a board's: its heap
    # watch, and what it makes at start for rounds.
    from table import app
    from table.heap import HeapWatch

    link.heap = HeapWatch(link.send, None)
    app.ready_for_rounds(link)


def _usb_port():
    # The board's USB port (UsbSerial), made before the controller as a
    # board's is, writing into the host's end: (port, host's end).
    from table.serial import UsbSerial

    host = _HostEnd()
    port = object.__new__(UsbSerial)  # its stdin and poller: nothing is read here
    port.stdout = port.text_out = host
    return port, host


class _HostEnd(io.IOBase):
    # The host's end of the USB port: it keeps no line (a board's port does
    # not), only whether the last said "ok": true, and its first bytes.
    def __init__(self):
        self.tail = b""
        self.head = b""
        self.line_ok = False
        self.said_ok = None
        self.said = None

    def write(self, data):
        size = len(data)
        if size < 64:  # a piece of json.dump's: seen with the last's end
            data = data.encode() if isinstance(data, str) else bytes(data)
            if data == b"\r\n":
                self.said_ok, self.said = self.line_ok, self.head
                self.line_ok, self.tail, self.head = False, b"", b""
                return size
            data = self.tail + data
        if len(self.head) < _HEAD:
            self.head += data[:_HEAD]
        self.line_ok = self.line_ok or b'"ok": true' in data
        self.tail = data[-12:]
        return size


def _round_line(number):
    data = {"cmd": "round", "round": "heap-%d" % number, "dealer": ["Qs", "Ks"],
            "board": ["9s", "Ts", "Js", "9c", "9d"],
            "seats": [{"seat": n, "cards": [a, b], "wagers": STAKES} for n, a, b in SEATS]}
    return json.dumps(data).encode() + b"\n"


def _check(said, figures):
    # The round's reply said ok, else why not, with the heap as it is then.
    if not said.said_ok:
        figures["heap_now"] = gc.mem_free() + gc.mem_alloc()
        figures["free_now"] = gc.mem_free()
        raise AssertionError("%s %s" % (said.said, json.dumps(figures)))


def main():
    figures = {"heap": gc.mem_free() + gc.mem_alloc(), "start": used()}
    port, said = _usb_port()
    table, link, where = _controller()
    link.write, link.write_json = port.write_line, port.write_json
    _configured(table, link, said, figures)
    table.bonus.meter.settings["paytables"] = TABLES
    figures["controller"] = used()
    link.feed(_round_line(0), time.ticks_ms())
    _check(said, figures)
    figures["first_round"] = used()
    for number in range(1, ROUNDS + 1):
        link.feed(_round_line(number), time.ticks_ms())
        _check(said, figures)
    figures["after_rounds"] = used()
    figures["free_after"] = gc.mem_free()
    figures["where"] = where
    print(json.dumps(figures))


main()
