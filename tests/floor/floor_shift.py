# A floor in mid-shift for the page's tests, written into the database as
# the floor would hold it, every time set (NOON, noon in the floor's zone,
# Eastern time, and seconds after it), so what the page must say is known
# beforehand:
#   table 1: betting since NOON+50; rounds today, a hit of $180.00 to seat 2
#            validated by employee E1042 with slip JS-77, a settled round;
#   table 2: a pending hit of $187.34 to seat 4 since NOON+40;
#   table 3: offline since NOON+100 (its board last said betting), and an
#            `offline` alert standing; an older `gap` alert of table 1's was
#            acknowledged by sam at NOON+30.
import datetime
import html.parser
import json

from sqlalchemy import update

from mystery import chain
from uthctl.floor import schema

ZONE = "America/New_York"  # the floor's zone: Eastern Standard Time in December
EST = datetime.timedelta(hours=-5)  # UTC-5: daylight time ends in November (15 U.S.C. 260a)
NOON = datetime.datetime(2026, 12, 3, 12, 0, 0, tzinfo=datetime.timezone(EST)).timestamp()
NOW = NOON + 3600 + 5  # the page's clock: an hour and 5 s on
TRIPS_A_EDGE = 301629 / 33446140  # the par sheet of trips paytable A (653a.12(c))
RULES = {"clock": "set", "sections": [["653b.1", "2025-09-04", "2027-09-04"]],
         "expired": []}


def when(offset):
    # How the page must write NOON + offset: the date in full, in the floor's
    # zone with its abbreviation (computed from the offset, not from tzdata).
    moment = datetime.datetime.fromtimestamp(NOON + offset, datetime.timezone.utc) + EST
    return moment.strftime("%Y-%m-%d %H:%M:%S") + " EST"


def _settled(seats):
    # A settlement of trips (paytable A) alone: seats [(seat, stake, net)].
    return {"ev": "settled", "cards": "AsKs2c3d4h5s6d", "paytables": ["A", None, None, None],
            "rules": ["two_way", "void"], "limits": [None] * 4,
            "seats": [[seat, "QhQd", False, [stake, 0, 0, 0], [net, 0, 0, 0]]
                      for seat, stake, net in seats]}


TABLE_1 = [
    {"ev": "config", "name": "A1"},
    {"ev": "reset", "cycle": 1, "config": "A1", "meter": 100_000_000, "commitment": "0" * 64},
    {"ev": "round", "round": 1, "contributions": [[1, 500, 100_000], [2, 500, 100_000]],
     "meter": 179_900_000},
    {"ev": "hit", "seat": 2, "award": 180_000_000, "cycle": 1, "round": 1, "time": None,
     "hit_value": 179_000_000, "salt": "s" * 32, "commitment": "0" * 64},
    {"ev": "validated", "seat": 2, "award": 180_000_000, "cycle": 1, "employee": "E1042",
     "slip": "JS-77"},
    {"ev": "paid", "seat": 2, "award": 180_000_000, "cycle": 1, "payment": "jackpot_slip"},
    {"ev": "reset", "cycle": 2, "config": "A1", "meter": 100_000_000, "commitment": "1" * 64},
    {"ev": "round", "round": 2, "contributions": [[3, 1000, 2_000_000]], "meter": 150_000_000},
    # Trips: 3 wagers, $15.00 wagered; one wins $10.00 on $5.00 ($15.00 paid).
    _settled([(1, 500, -500), (2, 500, 1000), (3, 500, -500)]),
]
TABLE_2 = [
    {"ev": "config", "name": "A1"},
    {"ev": "reset", "cycle": 1, "config": "A1", "meter": 100_000_000, "commitment": "2" * 64},
    {"ev": "round", "round": 1, "contributions": [[4, 500, 87_340_000]], "meter": 187_340_000},
    {"ev": "hit", "seat": 4, "award": 187_340_000, "cycle": 1, "round": 1, "time": None,
     "hit_value": 187_000_000, "salt": "t" * 32, "commitment": "2" * 64},
]


def _meters(meter, display_cents, pending=None):
    return json.dumps({"config": "A1", "meter": meter, "display_cents": display_cents,
                       "pending": pending, "settings": {}})


def _board(state):
    return json.dumps({"state": state, "fault": None, "rules": RULES})


def _append(store, table, events, first_at):
    prev = chain.GENESIS
    for seq, event in enumerate(events, start=1):
        record = chain.link(dict(event), seq, prev)
        store.append("riverside", table, record)
        prev = record["hash"]
    with store.engine.begin() as db:  # the times the floor took them
        for seq in range(1, len(events) + 1):
            db.execute(update(schema.records).where(
                schema.records.c.table_id == table, schema.records.c.seq == seq).values(
                received_at=first_at + seq))


def make_shift(store):
    _append(store, "1", TABLE_1, NOON)
    _append(store, "2", TABLE_2, NOON + 36)  # its hit, record 4, at NOON + 40
    _append(store, "3", TABLE_1[:2], NOON - 86_400)  # yesterday's
    store.set_table("riverside", "1", status="online", status_at=NOON,
                    meters=_meters(150_000_000, 15000), board_status=_board("betting"))
    store.set_table("riverside", "2", status="online", status_at=NOON,
                    meters=_meters(187_340_000, 18734, [4, 187_340_000, 1, 1, None]),
                    board_status=_board("hit_pending"))
    store.set_table("riverside", "3", status="online", status_at=NOON,
                    meters=_meters(100_000_000, 10000), board_status=_board("betting"))
    store.set_table("riverside", "1", state_at=NOON + 50)
    store.set_table("riverside", "2", state_at=NOON + 40)
    store.set_table("riverside", "3", state_at=NOON, status="offline", status_at=NOON + 100)
    store.raise_alert("1", "gap", "records 4-6 missing: asked the table again")
    store.acknowledge(store.alerts("1")[0]["id"], "sam")
    store.raise_alert("3", "offline", "the table's bridge went offline")
    with store.engine.begin() as db:
        db.execute(update(schema.alerts).where(schema.alerts.c.table_id == "1").values(
            raised_at=NOON + 10, acked_at=NOON + 30))
        db.execute(update(schema.alerts).where(schema.alerts.c.table_id == "3").values(
            raised_at=NOON + 100))


class _Texts(html.parser.HTMLParser):
    # The text inside each element with an id, and the ids' classes.
    VOID = {"meta", "link", "input", "br", "img", "hr"}

    def __init__(self):
        super().__init__()
        self.open, self.texts, self.classes, self.attrs = [], {}, {}, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.texts.setdefault(attrs["id"], [])
            self.classes[attrs["id"]] = (attrs.get("class") or "").split()
            self.attrs[attrs["id"]] = attrs
        if tag not in self.VOID:
            self.open.append(attrs.get("id"))

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.open:
            self.open.pop()

    def handle_data(self, data):
        for name in self.open:
            if name is not None:
                self.texts[name].append(data)


def texts(page):
    # {id: its text, spaces made one} and {id: its classes} of an HTML page.
    parser = _Texts()
    parser.feed(page)
    return ({name: " ".join(" ".join(parts).split()) for name, parts in parser.texts.items()},
            parser.classes)
