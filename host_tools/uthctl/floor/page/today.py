# What the page shows of a table's day and its last hit, kept as running
# sums: each record is added once, as the page's builder reads the records
# past the ones it has read (page_data.py), so building the page costs the
# same on a table's first day and after a year of records. The day is the
# floor's day, in its zone (zone.py): at midnight the sums start again.
# What a table is doing now (its last round, its rounds in the last hour)
# is kept the same way, across midnight.
import collections

from mystery.configs import MICROS_PER_CENT

from ...analysis import settled
from ..zone import day_start


class TableDay:
    def __init__(self):
        self.rounds = 0
        self.contributed = 0  # micro-dollars
        # The progressive wagers that qualified (a contribution each) and
        # what they wagered, micro-dollars (13:69E-1.39A(b)(1)).
        self.qualifying_wagers = 0
        self.wagered = 0
        self.hits = 0
        self.side = {}  # "wager/letter" -> [wagers, wagered cents, paid cents]
        self.seats = {}  # seat -> [rounds it contributed to, micro-dollars, hits]

    def add(self, record):
        kind = record.get("ev")
        if kind == "round":
            self.rounds += 1
            for row in record.get("contributions") or ():
                if isinstance(row, list) and len(row) == 3 and type(row[2]) is int:
                    self.contributed += row[2]
                    self.qualifying_wagers += 1
                    if type(row[1]) is int:
                        self.wagered += row[1] * MICROS_PER_CENT
                    seat = self._seat(row[0])
                    seat[0] += 1
                    seat[1] += row[2]
        elif kind == "hit":
            self.hits += 1
            self._seat(record.get("seat"))[2] += 1
        elif kind == "settled":
            for key, row in settled.totals([record]).items():
                mine = self.side.setdefault(key, [0, 0, 0])
                for at in range(3):
                    mine[at] += row[at]


    def _seat(self, seat):
        return self.seats.setdefault(seat if type(seat) is int else str(seat), [0, 0, 0])


class LastHit:
    # The table's newest hit (seat, award, when the floor took it, the
    # board's clock) and the validation after it (employee, slip, when).
    def __init__(self):
        self.hit = None
        self.validated = None

    def add(self, record, received_at):
        kind = record.get("ev")
        if kind == "hit":
            self.hit = {"seat": record.get("seat"), "award": record.get("award"),
                        "cycle": record.get("cycle"), "at": received_at,
                        "board_time": record.get("time")}
            self.validated = None
        elif kind == "validated" and self.hit is not None and (
                record.get("cycle") == self.hit["cycle"]):
            self.validated = {"employee": record.get("employee"), "slip": record.get("slip"),
                              "at": received_at}


HOUR = 3600


class Activity:
    # When the floor took the table's last round, and the rounds it took in
    # the hour before now: an idle table is told from a busy one.
    def __init__(self):
        self.last_round = None
        self.rounds = collections.deque()  # the times the floor took them

    def add(self, record, received_at):
        if record.get("ev") == "round" and isinstance(received_at, (int, float)):
            self.last_round = max(self.last_round or received_at, received_at)
            self.rounds.append(received_at)

    def in_last_hour(self, now):
        while self.rounds and self.rounds[0] < now - HOUR:
            self.rounds.popleft()
        return sum(at <= now for at in self.rounds)


class Today:
    # Per table: the seq read up to, the day's sums, the last hit.
    def __init__(self, store, zone=None):
        self.store = store
        self.zone = zone  # the floor's ZoneInfo (None: the host's local time)
        self.day = None
        self.read_to = {}  # table -> the last seq added
        self.days = {}  # table -> TableDay
        self.last_hits = {}  # table -> LastHit
        self.activity = {}  # table -> Activity

    def catch_up(self, heads, now):
        # heads: {table: its chain head's seq on the floor}. Reads only the
        # records past what was read; a table seen first reads its day and
        # its newest hit and validation.
        start = day_start(now, self.zone)
        if start != self.day:
            self.day, self.days = start, {}
        for table, head in heads.items():
            if table not in self.read_to:
                self._first_look(table, start, head or 0, now)
            self.days.setdefault(table, TableDay())
        behind = {table: self.read_to[table] for table, head in heads.items()
                  if head is not None and head > self.read_to[table]}
        for table, seq, received_at, record in self.store.records_after(behind):
            self._add(table, seq, received_at, record, start)
        for activity in self.activity.values():
            activity.in_last_hour(now)  # the hour's older rounds let go

    def _first_look(self, table, start, head, now):
        activity = self.activity[table] = Activity()
        for _, received_at, _record in self.store.newest_of(table, ("round",)):
            activity.last_round = received_at
        for _, received_at, record in self.store.records_received_since(
                table, now - HOUR, ("round",)):
            activity.add(record, received_at)
        last_hit = self.last_hits[table] = LastHit()
        newest = self.store.newest_of(table, ("hit", "validated"), limit=2)
        for _, received_at, record in reversed(newest):
            last_hit.add(record, received_at)
        read = newest[0][0] if newest else 0
        day = self.days[table] = TableDay()
        for seq, received_at, record in self.store.records_received_since(table, start):
            day.add(record)
            if seq > read:  # (a hit since the look for the newest)
                last_hit.add(record, received_at)
                read = seq
        self.read_to[table] = max(read, head)

    def _add(self, table, seq, received_at, record, start):
        self.read_to[table] = seq
        self.last_hits[table].add(record, received_at)
        self.activity[table].add(record, received_at)
        if received_at >= start:
            self.days[table].add(record)
