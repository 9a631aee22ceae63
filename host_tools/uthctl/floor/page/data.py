# The floor as the page shows it, built in a few queries whatever the
# number of tables or viewers: the tables' rows, the alerts standing and
# the last acknowledged, and the records past those read before (today.py's
# running sums). One builder serves every viewer (broadcast.py).
import threading
import time

from mystery.money import decimal

from .tiles import tile_or_why
from .today import Today

HISTORY = 50  # acknowledged alerts the page lists


class PageData:
    def __init__(self, store, clock=time.time, zone=None):
        self.store = store
        self.clock = clock
        self.today = Today(store, zone)
        self.lock = threading.Lock()  # one build at a time: Today is running state

    def build(self):
        # {"at", "tiles", "totals", "standing", "history"}.
        with self.lock:
            now = self.clock()
            rows = self.store.all_tables()
            standing, history = self.store.alerts_shown(HISTORY)
            standing = outages_over(standing, rows)
            self.today.catch_up({row["table_id"]: row["last_seq"] for row in rows}, now)
            tiles = [tile_or_why(row, [a for a in standing if a["table_id"] == row["table_id"]],
                                 self.today.days[row["table_id"]],
                                 self.today.last_hits[row["table_id"]],
                                 self.today.activity[row["table_id"]], now) for row in rows]
            return {"at": now, "tiles": tiles, "totals": totals(tiles, standing),
                    "standing": standing, "history": history}


def outages_over(standing, rows):
    # The standing alerts, each as a dict; an `offline` one of a table whose
    # bridge has said online since gains back_at: the outage is over, and
    # says so until it is acknowledged.
    back = {row["table_id"]: row["status_at"] for row in rows if row["status"] == "online"}
    shown = []
    for alert in standing:
        alert = dict(alert)
        at = back.get(alert["table_id"])
        if alert["kind"] == "offline" and at is not None and at >= alert["raised_at"]:
            alert["back_at"] = at
        shown.append(alert)
    return shown


def totals(tiles, standing):
    # The floor's liability (every meter added up), tables online and
    # offline, hits pending, alerts standing.
    readable = [t for t in tiles if "unreadable" not in t]
    liability = sum(t["meter"]["micros"] for t in readable if t["meter"])
    return {"liability": liability, "liability_shown": "$" + decimal(liability),
            "online": sum(t["link"] == "online" for t in readable),
            "offline": sum(t["link"] != "online" for t in readable),
            "unreadable": len(tiles) - len(readable),
            "pending": sum(t["pending"] is not None for t in readable),
            "alerts": len(standing)}


def tiles(store):
    # Every table's tile now, from nothing kept before (a script's or a
    # test's look; the page keeps its running sums in a PageData).
    return PageData(store).build()["tiles"]
