# The audit's summary across tables: each side wager's meters added up over
# the tables that play it, and its hold beside its par sheet's house edge.
from fractions import Fraction

from uthctl.analysis import par
from uthctl.floor.audit.floor_audit import floor_holds


def table_meters(wagers, wagered, paid):
    return {"settings": {"bad_beat_mode": "two_way"},
            "side_wagers": {"wagers": {"trips/A": {"rounds": wagers, "wagers": wagers,
                                                   "wagered": wagered, "paid": paid,
                                                   "limited": 0}}}}


def test_holds_add_every_tables_meters():
    found = floor_holds([table_meters(100, 50_000, 40_000), table_meters(300, 150_000, 170_000),
                         {"settings": {}}])
    assert len(found) == 1
    trips = found[0]
    assert (trips["wager"], trips["wagers"], trips["wagered"], trips["paid"]) == (
        "trips/A", 400, 200_000, 210_000)
    assert trips["hold"] == (200_000 - 210_000) / 200_000  # the players won 5% over the floor
    assert trips["house_edge"] == float(Fraction(par.par_sheet("trips", "A")["house_edge"]))
    assert trips["low"] < trips["house_edge"] < trips["high"]


def test_no_side_wager_settled_anywhere_gives_no_hold():
    assert floor_holds([{}, {"side_wagers": {"wagers": {}}}]) == []
