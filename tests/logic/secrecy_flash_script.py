# The secrecy proof on a failing flash: the round that hits, with the power
# cut at each of its flash operations (lost, half done, done) or the flash
# filled so that it runs out of space at each point of it, on littlefs as a
# board mounts it. The table runs whole (controller, host link, fake pins)
# on a RAM flash device (ramflash.py), and every byte it sends is searched
# for the live hit value and its salt: events, replies (status, meters, log,
# errors), warnings and the display, in the failure and after the reboot
# that follows, until the cycle's value is dead (its hit committed, or a
# redraw revealed it); then the new value is searched for. The table has a
# record key (docs/host-link.md, "Record keys"), given in service mode before
# the round that hits, so every commit signs; every line is searched for the
# key too, through the failure, the reboot and the log export, in every trial.
#
# With the store's reserve, a full flash must refuse the round with nothing
# written, never fail inside the commit; with no reserve (a flash that fills
# under the store some other way), the commit fails on ENOSPC at whatever
# point the space runs out. Both are tried at every amount of free space,
# the flash filled with the controller stopped (only the store writes it
# while the controller runs), then the controller started on it. Whether a
# fill stops a commit midway depends on how many bytes each record takes, so
# the space also runs out at each flash operation of the hitting round in
# turn (ramflash's FULL), the store keeping no reserve: every point a commit
# can fail on ENOSPC is reached, whatever the word size.
#
# test_mystery_secrecy.py runs this as a process of its own with the board's
# heap, once per board. The flash's bytes are in a file (ramflash.FileChip),
# outside the heap as a board's are, so the controller and this script have
# the heap to themselves:
#   MICROPYPATH=firmware:tests/logic micropython -X heapsize=$UTH_HEAPSIZE \
#       tests/logic/secrecy_flash_script.py pico|esp32
import gc
import json
import os
import sys
import time

import tmpdir
from leaks import leaks, secrets_of
from ramflash import BOARD_MOUNTS, DONE, FULL, HALF, LOST, MODES, FileChip, RamFlash
from table_rig import Rig

BLOCK_SIZE = 4096  # a board's erase block
BOARD = sys.argv[1] if len(sys.argv) > 1 else "esp32"
# The store, its reserve for a commit, and room to fill; as few as will do,
# so each fill trial is short (with the Pico's mount the meter record lives
# in metadata).
BLOCKS = 16 if BOARD == "pico" else 18
FILLER = bytes(BLOCK_SIZE)  # what fills the flash, a block a file

MOUNT = "/flash"
FILL = MOUNT + "/fill.%d"
MOUNT_KEYWORDS = BOARD_MOUNTS[BOARD]
REDRAW = 7  # a redraw's value, cents above the bottom of its range
# Rounds played before the one that hits, in the fill trials: each adds a
# log record, so the log's last block is caught at every fill, across a
# block boundary (where an append spills into a new block).
ROUNDS_BEFORE = 36
# The table's record key, and how a line could show it: its hex, either
# half, in either case (a line is JSON text: the bytes themselves could only
# go out as this hex or as escapes of it, which no firmware code writes).
RECORD_KEY = "3c9e1f07a2b4d6e8" * 4
KEY_SHOWN = (RECORD_KEY[:32], RECORD_KEY[32:], RECORD_KEY[:32].upper(),
             RECORD_KEY[32:].upper())


class Source:
    # The board's random bytes: the first cycle's value `first` cents above
    # A1's $100, then (a redraw's, or a later cycle's) REDRAW cents above the
    # bottom of their range; every salt distinct.
    def __init__(self, first):
        self.first = first
        self.values = 0
        self.salts = 0

    def __call__(self, n):
        if n == 16:
            self.salts += 1
            return bytes((self.salts * 16 + i) & 0xFF for i in range(16))
        self.values += 1
        return (self.first if self.values == 1 else REDRAW).to_bytes(n, "big")


# ---- the flash ----

class Chip:
    def __init__(self, folder):
        self.blocks = FileChip(folder + "/flash.bin", BLOCKS, BLOCK_SIZE)

    def new(self):
        self.blocks.erase_all()
        device = RamFlash(self.blocks)
        os.VfsLfs2.mkfs(device, **MOUNT_KEYWORDS)


def _mount(chip, cut_at=-1, mode=DONE):
    device = RamFlash(chip.blocks, cut_at, mode)
    os.mount(os.VfsLfs2(device, **MOUNT_KEYWORDS), MOUNT)
    return device


def _unmount():
    os.umount(MOUNT)


def _free_blocks():
    stat = os.statvfs(MOUNT)
    return stat[4]


def _fill(leave):
    # One-block files until the flash is full, then `leave` of them removed:
    # that many blocks free, give or take the scraps a full flash leaves.
    # (Counted by files: near full, littlefs's estimate of the blocks in use
    # passes the total and statvfs's free count wraps.) In the root folder:
    # a folder of their own would take two blocks of metadata.
    count = 0
    while True:
        try:
            with open(FILL % count, "wb") as f:
                f.write(FILLER)
            count += 1
        except OSError:
            break
    try:
        os.remove(FILL % count)  # the file that failed, if it exists
    except OSError:
        pass
    for _ in range(min(leave, count)):
        count -= 1
        os.remove(FILL % count)


def _unfill():
    for name in os.listdir(MOUNT):
        if name.startswith("fill."):
            os.remove(MOUNT + "/" + name)


# ---- the table ----

def _live(bonus):
    # The live hit value and salt, or None: in a fault, memory may be ahead
    # of the flash, and the caller keeps what was live before it.
    meter = bonus.meter
    if meter is not None and meter.phase == "running":
        return meter._hit_value, meter._salt
    return None


class Watch:
    # Searches every line a table sends, as it is sent, for the secret live
    # then, and its display texts for the first cycle's value.
    def __init__(self):
        self.checked = 0

    def line(self, line, secret):
        # Gives the message the line carries.
        for shown in KEY_SHOWN:
            assert shown not in line, "the record key went out: %s" % line
        message = json.loads(line)
        if secret is not None:
            assert not leaks(message, secrets_of(secret[0]), secret[1]), line
        self.checked += 1
        return message

    def display(self, rig, value, salt):
        for text in rig.display.history:
            assert not leaks(text, secrets_of(value), salt), text
        self.checked += len(rig.display.history)


def _table(source, watch):
    # The controller on the mounted flash; one source for a trial's boots, as
    # a board's random source never repeats itself after a restart.
    rig = Rig(MOUNT, random_bytes=source, seats=2)
    live = [None if rig.table.bonus.fault else _live(rig.table.bonus)]
    for line in rig.lines:  # the boot's
        watch.line(line, live[0])

    def send(line):
        if rig.table.bonus.fault is None:
            live[0] = _live(rig.table.bonus)
        message = watch.line(line, live[0])
        if "record" not in message and message.get("ev") != "contribution":
            rig.lines.append(line)  # kept for the trial's own checks; the heap is a board's

    rig.link.write = send
    return rig


def _chips_on(rig):
    rig.chip(1)
    rig.chip(2)


def _chips_off(rig):
    rig.chip(1, False)
    rig.chip(2, False)
    rig.run(300)


def _source(rounds_before):
    # Seats 1 and 2 add 2 cents each a round: after the rounds before, the
    # meter is $100 + 4 cents a round, and seat 1's 2 cents in the next
    # round pass a value 1 cent above that.
    return Source(4 * rounds_before + 1)


def _to_the_hitting_round(rig, rounds_before):
    # The rounds before straight to the meter (the same commits, without
    # ticking the table through each): only the round that hits is the test.
    rig.configure("A1")
    rig.key.level = 1  # service mode: the record key is given
    rig.run(100)
    reply = rig.command(cmd="provision", key=RECORD_KEY)[-1]
    assert reply["ok"], reply
    rig.key.level = 0
    rig.run(100)
    for _ in range(rounds_before):
        rig.table.bonus.lock_round([(1, True, 100), (2, True, 100)])
    _chips_on(rig)
    meter = rig.table.bonus.meter
    cents = 10_000 + 4 * rounds_before
    assert meter.meter == cents * 10_000 and meter._hit_value == (cents + 1) * 10_000
    return meter._hit_value, meter._salt


def _probe(rig):
    # What a host and a dealer can provoke at any moment.
    for command in ({"cmd": "status"}, {"cmd": "meters"}, {"cmd": "log", "since": 0},
                    {"cmd": "ping"}, {"cmd": "redraw"}, {"cmd": "config", "mystery": "B1"}):
        rig.command(**command)
    rig.press_lock()
    rig.turn_key()


def _hit_on_flash(value):
    # Whether a log record on the flash carries the value, committed or not.
    needle = '"hit_value":%d' % value
    for name in os.listdir(MOUNT + "/log"):
        with open(MOUNT + "/log/" + name) as f:
            for line in f:
                if needle in line:
                    return True
    return False


def _after_reboot(source, watch, value, salt):
    # The table on the same flash after a restart: it never plays the value
    # a failed commit wrote out; a redraw in service mode replaces it. Gives
    # how the trial ended: "hit" (the hit had committed), "exposed" (the
    # value redrawn), "secret" (the round dropped, the value still secret).
    on_flash = _hit_on_flash(value)
    rig = _table(source, watch)
    meter = rig.table.bonus.meter
    assert rig.table.bonus.fault is None, rig.table.bonus.fault
    # The hit committed: pending, validated and reset, or validated with its
    # reset still owed (a flash too full for it at the restart too: the
    # next LOCK tries it first). Its value is revealed by its own record.
    if meter.cycle > 1 or meter.phase in ("pending", "awaiting_reset"):
        ended = "hit"
    elif meter.exposed:
        ended = "exposed"
        _probe(rig)
        assert rig.events("locked") == [] and rig.events("refused"), "an exposed value played"
        rig.key.level = 1
        rig.run(100)
        assert rig.command(cmd="redraw")[-1]["ok"] is True
        assert rig.events("redraw")[0]["hit_value"] == value
        rig.key.level = 0
        rig.run(100)
        _chips_off(rig)
    else:
        ended = "secret"
        assert not on_flash, "the cycle plays on, its value on the flash outside a commit"
        assert meter._hit_value == value
    _probe(rig)
    watch.display(rig, value, salt)
    return ended


def _rebooted(chip, source, watch, value, salt):
    # The flash mounted again as at a restart, and how the trial ended there.
    gc.collect()
    _mount(chip)
    try:
        return _after_reboot(source, watch, value, salt)
    finally:
        _unmount()


def _fill_trial(chip, watch, rounds_before, leave, reserve):
    # The flash filled to `leave` free blocks before the round that hits,
    # the store keeping its reserve (reserve True) or none. Gives how it
    # ended: refused, committed, or failed and then how the reboot found it.
    gc.collect()
    chip.new()
    _mount(chip)
    source = _source(rounds_before)
    try:
        rig = _table(source, watch)
        value, salt = _to_the_hitting_round(rig, rounds_before)
        _fill(leave)
        # Filled as a technician's copy fills it, the controller stopped:
        # it starts again on the full flash (its store measures the room
        # anew), and the round's chips are placed again.
        rig = _table(source, watch)
        _chips_on(rig)
        kept = rig.table.bonus.store.reserve_blocks
        if not reserve:
            rig.table.bonus.store.reserve_blocks = 0
        before = rig.table.bonus.meters()
        rig.press_lock()
        failed = rig.table.state == "fault"
        refused = [e for e in rig.events("refused") if e["reason"].startswith("flash full")]
        if reserve:
            assert not failed, "a full flash failed inside a commit: %s" % rig.table.bonus.fault
        if refused:
            assert rig.table.bonus.meters() == before, "a refused round changed the meters"
        committed = bool(rig.events("hit"))
        rig.table.bonus.store.reserve_blocks = kept
        _probe(rig)
        watch.display(rig, value, salt)
        _unfill()  # space freed, then the restart
    finally:
        _unmount()
    rig = None  # let the table go before the restart's
    ended = _rebooted(chip, source, watch, value, salt)
    assert (ended == "hit") == committed or failed, (ended, committed)
    return "refused" if refused else ("failed " + ended if failed else "committed")


def _cut_trial(chip, watch, start, cut_at, mode):
    gc.collect()
    chip.new()
    device = _mount(chip, start + cut_at, mode)
    source = _source(1)
    try:
        rig = _table(source, watch)
        value, salt = _to_the_hitting_round(rig, 1)
        assert device.ops == start, "the replay differs"
        rig.press_lock()
        assert device.dead and rig.table.state == "fault", "no cut, or no fault after it"
        _probe(rig)
        watch.display(rig, value, salt)
    finally:
        _unmount()
    rig = None  # let the table go before the restart's
    return "cut " + _rebooted(chip, source, watch, value, salt)


def _full_trial(chip, watch, start, full_at):
    # No reserve, and the flash out of room from the hitting round's
    # operation full_at on: how it ended, as _fill_trial names it.
    gc.collect()
    chip.new()
    device = _mount(chip, start + full_at, FULL)
    source = _source(1)
    try:
        rig = _table(source, watch)
        value, salt = _to_the_hitting_round(rig, 1)
        assert device.ops == start, "the replay differs"
        rig.table.bonus.store.reserve_blocks = 0
        rig.press_lock()
        failed = rig.table.state == "fault"
        committed = bool(rig.events("hit"))
        assert device.full, "the round ended before its operation %d" % full_at
        _probe(rig)
        watch.display(rig, value, salt)
    finally:
        _unmount()
    rig = None  # let the table go before the restart's
    ended = _rebooted(chip, source, watch, value, salt)
    assert (ended == "hit") == committed or failed, (ended, committed)
    return "no reserve: " + ("failed " + ended if failed else "committed")


def _hitting_round_ops(chip):
    # Where the round that hits starts, and how many flash operations it takes.
    chip.new()
    device = _mount(chip)
    try:
        rig = _table(_source(1), Watch())
        _to_the_hitting_round(rig, 1)
        start = device.ops
        rig.press_lock()
        assert len(rig.events("hit")) == 1
        return start, device.ops - start
    finally:
        _unmount()


def main():
    folder = tmpdir.make()
    chip = Chip(folder)
    try:
        _prove(chip)
    finally:
        chip.blocks.close()
        tmpdir.remove(folder)


def _prove(chip):
    started = time.ticks_ms()
    watch = Watch()
    start, ops = _hitting_round_ops(chip)
    outcomes = {}

    def tally(ended):
        outcomes[ended] = outcomes.get(ended, 0) + 1
        return ended

    for cut_at in range(ops):
        for mode in (LOST, HALF, DONE):
            tally(_cut_trial(chip, watch, start, cut_at, mode))
        tally(_full_trial(chip, watch, start, cut_at))
    most_left = 0
    for rounds_before in range(ROUNDS_BEFORE):
        for reserve in (True, False):
            leave = 0  # free blocks, up to the first that lets the round commit
            while True:
                ended = tally("%s: %s" % ("reserve" if reserve else "no reserve", _fill_trial(
                    chip, watch, rounds_before, leave, reserve)))
                if ended.endswith("committed"):
                    break
                assert leave < BLOCKS, ("the round never commits", ended, outcomes)
                leave += 1
            most_left = max(most_left, leave)
    trials = sum(outcomes.values())
    print("secrecy on a failing flash, %s mount %r: %d trials (the hitting round's %d flash "
          "operations cut %s or out of room; the flash filled before it, after 0-%d rounds, "
          "to 0-%d free blocks, with the store's reserve and with none), %d lines and display "
          "texts searched, no live value, salt or record key in any; %.1f s"
          % (BOARD, MOUNT_KEYWORDS, trials, ops, "/".join(MODES), ROUNDS_BEFORE - 1, most_left,
             watch.checked, time.ticks_diff(time.ticks_ms(), started) / 1000))
    print("  outcomes: %s" % ", ".join("%s %d" % (k, outcomes[k]) for k in sorted(outcomes)))
    # Every kind of ending happened: a dropped hit redrawn, a hit kept, a
    # round refused by the reserve, and with none a commit failing on ENOSPC
    # both before and after the hit's records landed (the space running out
    # at each of the round's operations reaches both on either mount).
    kinds = ["cut exposed", "cut hit", "reserve: refused", "reserve: committed",
             "no reserve: failed secret", "no reserve: failed exposed"]
    for kind in kinds:
        assert outcomes.get(kind), (kind, outcomes)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 -- the run's one line of failure
        print("FAIL secrecy_flash_script (%s): %s %s" % (BOARD, type(error).__name__, error))
        sys.print_exception(error)
        sys.exit(1)
