# The side wagers' accounting meters, one set per wager and paytable: the
# rounds it was played in, the wagers made, the amount wagered, the amount
# paid back (the stake and its win, for a win; nothing for a loss), the wins
# a payout limit cut, and how many times each of the paytable's lines paid.
# Whole cents throughout. Kept by the store beside the meter record and
# changed only in a settlement's commit (store.py). The paytables are
# imported only where needed: a table that never settles a round keeps
# that piece of its heap.
# Per "wager/letter": [rounds, wagers, wagered, paid, limited, count of each
# line in the paytable's order]. Flat lists keep the stored copy small.
ROUNDS, WAGERS, WAGERED, PAID, LIMITED, LINES = 0, 1, 2, 3, 4, 5


# wager -> letter -> (the meters' key, {line name: its index}), made once for
# each paytable, so counting a wager makes no new string and searches no line
# (new strings are slow on the board: docs/benchmarks.md, "The round's time").
# It is keyed by names, not by the Paytable, because hashing an object looks
# up its class's __hash__ each time.
_about = {}


def _about_table(table):
    letters = _about.get(table.wager)
    if letters is None:
        letters = _about[table.wager] = {}
    about = letters.get(table.letter)
    if about is None:
        lines = {}
        for i in range(len(table.lines)):
            lines[table.lines[i][0]] = i
        about = letters[table.letter] = (table.wager + "/" + table.letter, lines)
    return about


class WagerMeters:
    def __init__(self, meters=None, settled=0):
        self.meters = {} if meters is None else meters
        self.settled = settled  # rounds settled, all wagers together

    def _row(self, table):
        # (its row, its lines' indexes) for the paytable, the row made at its first round.
        key, lines = _about_table(table)
        row = self.meters.get(key)
        if row is None:
            row = [0] * (LINES + len(table.lines))
            self.meters[key] = row
        return row, lines

    def add(self, round_, result):
        # One settled round (its parsed Round and settle's result) counted;
        # returns nothing, changes only these meters.
        played = {}  # wager -> (row, lines, paytable), for those played this round
        for i in range(len(round_.seats)):  # one result a seat, in its order
            seat, results = round_.seats[i], result["seats"][i]["results"]
            for wager, stake in seat.wagers:
                counted = played.get(wager)
                if counted is None:
                    table = round_.tables[wager]
                    row, lines = self._row(table)
                    row[ROUNDS] += 1
                    counted = played[wager] = (row, lines, table)
                row, lines, table = counted
                outcome = results[wager]
                row[WAGERS] += 1
                row[WAGERED] += stake
                net = outcome["net"]
                if net > 0:
                    row[PAID] += stake + net
                    row[LINES + _line_index(lines, table, outcome["category"])] += 1
                if outcome.get("limited"):
                    row[LIMITED] += 1
        self.settled += 1

    def copy(self):
        return WagerMeters({key: list(row) for key, row in self.meters.items()}, self.settled)

    def public(self):
        # As `meters` and the audit show them: named fields, paying lines by name.
        from uth import paytables

        shown = {}
        for key, row in self.meters.items():
            wager, letter = key.split("/")
            names = [line[0] for line in paytables.get(wager, letter).lines]
            shown[key] = {"rounds": row[ROUNDS], "wagers": row[WAGERS],
                          "wagered": row[WAGERED], "paid": row[PAID],
                          "limited": row[LIMITED],
                          "lines": {names[i]: row[LINES + i] for i in range(len(names))
                                    if row[LINES + i]}}
        return shown

    def to_record(self):
        return {"settled": self.settled, "meters": self.meters}


def _line_index(lines, table, line):
    index = lines.get(line)
    if index is None:
        raise ValueError("no line %r in %s %s" % (line, table.wager, table.letter))
    return index


def from_record(record):
    # Raises ValueError for a stored copy that does not add up.
    from uth import paytables

    try:
        settled, meters = record["settled"], record["meters"]
        if type(settled) is not int or settled < 0 or not isinstance(meters, dict):
            raise ValueError
        for key, row in meters.items():
            wager, letter = key.split("/")
            table = paytables.get(wager, letter)
            if not isinstance(row, list) or len(row) != LINES + len(table.lines):
                raise ValueError
            for value in row:
                if type(value) is not int or value < 0:
                    raise ValueError
            if row[ROUNDS] > settled or sum(row[LINES:]) > row[WAGERS]:
                raise ValueError
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ValueError("inconsistent wager meters") from None
    return WagerMeters(meters, settled)
