# The rules, the round and the helpers the `round` command's tests share
# (test_round_command.py, test_round_line.py): two modules, so that each runs
# in a board-sized heap of its own on the unix port.
import json

from table_rig import Rig

TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}

# Dealer Qs Ks on 9s Ts Js 9c 9d: the dealer makes a king-high straight flush.
ROUND = {"round": "r-1", "dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
         "seats": [
             {"seat": 1, "cards": ["9h", "2c"],
              "wagers": {"trips": 500, "bad_beat": 500, "play_the_board": 500,
                         "ultimate_pairs": 500}},
             {"seat": 3, "cards": ["Ah", "Ad"], "wagers": {"trips": 500, "ultimate_pairs": 1000}},
             {"seat": 5, "cards": ["7c", "2d"], "folded": True,
              "wagers": {"trips": 200, "bad_beat": 200}}]}

# Seat 1: four nines, Trips E 30 to 1 ($150); they lose to the straight flush,
# Bad Beat C 500 to 1 ($2,500); the board's three nines, Play the Board A 7 to 1
# ($35); 9-2 offsuit, no Ultimate Pairs line (-$5). Seat 3: nines full of aces,
# Trips E 7 to 1 ($35); AA, Ultimate Pairs F 30 to 1 on $10 ($300). Seat 5,
# folded: three nines, Trips 3 to 1 on $2 ($6), and losing with them, Bad Beat
# 9 to 1 on $2 ($18): a folded hand stays in action by default.
EXPECTED = {
    1: {"trips": ("four_of_a_kind", 30, 15000), "bad_beat": ("four_of_a_kind", 500, 250000),
        "play_the_board": ("three_of_a_kind", 7, 3500), "ultimate_pairs": (None, None, -500)},
    3: {"trips": ("full_house", 7, 3500), "ultimate_pairs": ("aa", 30, 30000)},
    5: {"trips": ("three_of_a_kind", 3, 600), "bad_beat": ("three_of_a_kind", 9, 1800)},
}


def set_rules(rig, **values):
    # The rules set on the table in service mode, as a floorperson sets them.
    rig.key.level = 1
    rig.run(100)
    for name, value in values.items():
        reply = rig.command(cmd="set", name=name, value=value)[-1]
        assert reply["ok"], reply
    rig.key.level = 0
    rig.run(100)


def ready(root, reserve=True, **rules):
    # reserve: a round's line made at start, as app.build makes it on a board
    # (while the heap is whole: made at the first round instead, it may find
    # no 4 KB piece in a board-sized heap that earlier tests left in pieces).
    rig = Rig(root)
    if reserve:
        rig.link.reserve_round_line()
    rig.configure("A1")
    set_rules(rig, paytables=TABLES, **rules)
    return rig


def round_reply(rig, data):
    command = {"cmd": "round", "id": 7}
    command.update(data)
    return rig.command(**command)[-1]


def results(reply):
    return {seat["seat"]: {wager: (r["category"], r["odds"], r["net"])
                           for wager, r in seat["results"].items()}
            for seat in reply["seats"]}


def log_records(rig):
    return [r for r in rig.table.bonus.log_since(0)]



def changed(round_data, path, value):
    data = json.loads(json.dumps(round_data))
    place = data
    for key in path[:-1]:
        place = place[key]
    if value is GONE:
        del place[path[-1]]
    else:
        place[path[-1]] = value
    return data


GONE = object()
