# The heap soak's board side (`make soak-heap`, bench/soak_heap.py runs it): the
# controller driven in-process on the 32-bit unix port at one board's heap, on
# littlefs over a RAM flash as that board mounts it, its pins faked. Random
# rounds as `uthctl soak` plays them: chips on 1-7 seats, LOCK, the hits
# validated and paid, a settled round after each (cards and side wagers dealt
# at random), a setting changed in service mode now and then, the log
# exported every 50 rounds. Every 1,000 rounds it prints the free heap after
# a collection and micropython.mem_info(1) (whose "max free sz" the host
# reads). Any fault or failed allocation stops it with status 1.
#   MICROPYPATH=.frozen:<sim build>/firmware:tests/logic micropython -X heapsize=H \
#       bench/soak_heap_board.py pico|esp32 ROUNDS SEED FOLDER
import gc
import json
import os
import random
import sys

import micropython

from ramflash import BOARD_MOUNTS, FileChip, RamFlash
from table import app
from table.heap import HeapWatch
from table_rig import Rig

MOUNT = "/flash"
SEATS = 7
BLOCKS = 352  # the Pico's littlefs region, 1,408 KiB (the ESP32's is larger)
SAMPLE_EVERY = 1000
EXPORT_EVERY = 50
SETTING_EVERY = 500
PAYTABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
LIMITS = (None, 50_000, 100_000)  # max_payout_cents, changed in service mode
STAKES = (0, 100, 500, 2500)
WAGERS = ("trips", "bad_beat", "play_the_board", "ultimate_pairs")
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
PAYMENTS = ("table_inventory", "jackpot_slip")


class Soak:
    def __init__(self, folder, mount):
        self.said = []
        self.restarts = 0
        self.memory_events = 0
        self.settled = 0
        self.refused = 0
        self.hits = 0
        self.exports = 0
        self.seq = 0
        self.folder = folder
        self.serial = self  # what app's turns ask of a board: service(), serial.read_available()
        self.pending = b""
        self.rig = None
        self.start()

    def service(self):
        pass

    def hear(self, text):
        # One line from the controller; an exported record is read and let go,
        # as the host's soak joins it to a file.
        if '"record": {' in text and '"reply": "log"' in text:
            self.seq = max(self.seq, json.loads(text)["record"]["seq"] + 1)
        else:
            self.said.append(text)

    def start(self):
        # A board's boot: the controller built anew on what the flash holds.
        self.rig = None
        gc.collect()
        self.rig = Rig(self.folder, os.urandom, seats=SEATS)
        self.rig.link.write = self.hear
        self.rig.display.history = _Forgotten()  # a board's display keeps no history
        self.rig.table.emit = self.rig.link.send
        self.rig.link.heap = HeapWatch(self.rig.link.send, self.restart)
        self.settle = self.rig.link.heap.no_settlement is None

    def restart(self):
        self.restarts += 1
        self.start()

    def run(self, ms):
        rig = self.rig
        for _ in range(ms // 5):
            rig.now += 5
            app.table_turn(rig.table, rig.link, self, rig.now)
            if self.rig is not rig:  # restarted
                return
        self.check()

    def check(self):
        for text in self.said:
            if '"ev": "memory"' in text or "no memory" in text:
                self.memory_events += 1
                print("MEMORY", text)
            elif '"ev": "fault"' in text:
                print("FAULT", text)
                sys.exit(1)
        del self.said[:]
        if self.rig.table.state == "fault":
            print("FAULT", self.rig.table.bonus.fault or self.rig.table.board_fault)
            sys.exit(1)

    def command(self, **command):
        # Sent as the host sends it, read by the link's own turns (app.link_turn).
        del self.said[:]
        self.pending = json.dumps(command).encode() + b"\n"
        while self.pending or self.rig.link.busy():
            app.link_turn(self.rig.link, self, self.rig.now)
        replies = [json.loads(text) for text in self.said if '"reply"' in text or
                   '"ok": false' in text]
        self.check()
        return replies[-1] if replies else None

    def read_available(self):
        data, self.pending = self.pending, b""
        return data

    def service_mode(self, **settings):
        self.rig.key.level = 1
        self.run(100)
        for name, value in settings.items():
            reply = self.command(cmd="set", name=name, value=value)
            assert reply["ok"], reply
        self.rig.key.level = 0
        self.run(100)

    def configure(self):
        self.rig.key.level = 1
        self.run(100)
        assert self.command(cmd="config", mystery="A1")["ok"]
        self.rig.key.level = 0
        self.run(100)
        if self.settle:
            self.service_mode(paytables=PAYTABLES)

    def play(self, number):
        seats = _sample(list(range(1, SEATS + 1)), random.randint(1, SEATS))
        for seat in seats:
            self.rig.chips[seat - 1].level = 1
        self.run(50)
        self.rig.lock.level = 1
        self.run(100)
        self.rig.lock.level = 0
        self.run(100)
        for seat in seats:
            self.rig.chips[seat - 1].level = 0
        self.run(300)
        if self.rig.table.state == "hit_pending":
            self.hits += 1
            self.command(cmd="validation", employee="%d" % random.randint(1000, 9999),
                         slip="JS-%d" % number)
            self.command(cmd="payment", method=PAYMENTS[number % 2])
            self.rig.key.level = 1
            self.run(100)
            self.rig.key.level = 0
            self.run(300)
        if self.settle:
            reply = self.command(**_deal(seats, "heap-%d" % number))
            if reply is None or not reply.get("ok"):
                print("ROUND", reply)
                sys.exit(1)
            self.settled += 1
        else:
            self.refused += 1
        if number % EXPORT_EVERY == 0:
            self.export()
        if number % SETTING_EVERY == 0:
            self.service_mode(max_payout_cents=LIMITS[(number // SETTING_EVERY) % len(LIMITS)])

    def export(self):
        # The log since the last export, as the host's soak takes it.
        reply = self.command(cmd="log", since=self.seq)
        if reply is None or not reply.get("ok"):
            print("EXPORT", reply)
            sys.exit(1)
        self.exports += 1


class _Forgotten:
    def append(self, item):
        pass


def _sample(items, k):
    # random.sample, which MicroPython's random has not: a partial shuffle.
    for i in range(k):
        j = random.randint(i, len(items) - 1)
        items[i], items[j] = items[j], items[i]
    return sorted(items[:k])


def _deal(seats, label):
    cards = _sample(list(DECK), 7 + 2 * len(seats))
    played = []
    for n, seat in enumerate(seats):
        wagers = {}
        for wager in WAGERS:
            stake = STAKES[random.randint(0, len(STAKES) - 1)]
            if stake:
                wagers[wager] = stake
        if not wagers:
            wagers["trips"] = 100
        played.append({"seat": seat, "cards": cards[7 + 2 * n:9 + 2 * n],
                       "folded": random.randint(0, 4) == 0, "wagers": wagers})
    return {"cmd": "round", "round": label, "dealer": cards[:2], "board": cards[2:7],
            "seats": played}


def sample(soak, number):
    gc.collect()
    print("SAMPLE %d %d %d" % (number, gc.mem_free(), soak.rig.link.heap.least or 0))
    micropython.mem_info(1)
    print("END")


def main(board, rounds, seed, folder):
    random.seed(seed)
    chip = FileChip(folder + "/chip.bin", BLOCKS)
    os.VfsLfs2.mkfs(RamFlash(chip), **BOARD_MOUNTS[board])
    os.mount(os.VfsLfs2(RamFlash(chip), **BOARD_MOUNTS[board]), MOUNT)
    try:
        os.mkdir(MOUNT + "/meter")
        soak = Soak(MOUNT + "/meter", board)
        soak.configure()
        sample(soak, 0)
        for number in range(1, rounds + 1):
            soak.play(number)
            if number % SAMPLE_EVERY == 0:
                sample(soak, number)
        print("DONE " + json.dumps({
            "rounds": rounds, "hits": soak.hits, "settled": soak.settled,
            "refused_settlement": soak.refused, "exports": soak.exports,
            "restarts": soak.restarts, "memory_events": soak.memory_events,
            "settlement": soak.rig.link.heap.no_settlement}))
    finally:
        os.umount(MOUNT)
        chip.close()
    return 1 if soak.memory_events or soak.restarts else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
