# Each side wager's actual hold on the board's meters beside the exact house
# edge of its par sheet, with the 95% interval the par sheet's variance gives
# for that many wagers; a hold outside it is flagged. Also the board's side
# wager meters set against the settlement records of a log kept from its
# first record (they must add up).
import math
from fractions import Fraction

from . import par, settled

Z95 = 1.959963984540054  # the two-sided 95% point of the normal distribution


def net_variance(sheet):
    # The variance of one unit wager's net result (odds on a win, -1 on a
    # loss), exact from the sheet's counts.
    total = sheet["total"]
    mean = second = Fraction(0)
    for line in sheet["lines"]:
        p = Fraction(line["combinations"], total)
        win = Fraction(line["to"], line["per"])
        mean += p * win
        second += p * win * win
    p_lose = Fraction(sheet["losing"]["combinations"], total)
    mean -= p_lose
    second += p_lose
    return second - mean * mean


def _edge(sheet):
    return Fraction(sheet["house_edge"])


def one_hold(key, row, sheet):
    # row: the board's meters for "wager/letter" (wagers, wagered, paid, limited).
    n, wagered, paid = row["wagers"], row["wagered"], row["paid"]
    edge = _edge(sheet)
    spread = Z95 * math.sqrt(net_variance(sheet) / n)
    hold = (wagered - paid) / wagered
    low, high = float(edge) - spread, float(edge) + spread
    return {"wager": key, "wagers": n, "wagered": wagered, "paid": paid, "hold": hold,
            "house_edge": float(edge), "low": low, "high": high,
            "limited": row.get("limited", 0), "outside": not low <= hold <= high}


def holds(meters, sheet_of=None):
    # One entry per wager and paytable the board has meters for, with wagers made.
    sheet_of = sheet_of or _par_sheet(meters)
    found = []
    side = (meters.get("side_wagers") or {}).get("wagers", {})
    for key in sorted(side):
        row = side[key]
        if row["wagers"] and row["wagered"]:
            wager, letter = key.split("/")
            found.append(one_hold(key, row, sheet_of(wager, letter)))
    return found


def _par_sheet(meters):
    # Bad Beat's par depends on the mode the table plays it in.
    mode = (meters.get("settings") or {}).get("bad_beat_mode", "two_way")

    def sheet_of(wager, letter):
        if wager == "bad_beat":
            return par.par_sheet(wager, letter, bad_beat_mode=mode)
        return par.par_sheet(wager, letter)
    return sheet_of


def hold_lines(found):
    if not found:
        return ["no side wager settled on the board"]
    lines = []
    for h in found:
        line = ("%-18s %7d wagers  hold %8.4f%%  house edge %8.4f%%  95%% interval "
                "[%.4f%%, %.4f%%]%s" % (h["wager"], h["wagers"], 100 * h["hold"],
                                        100 * h["house_edge"], 100 * h["low"], 100 * h["high"],
                                        "  OUTSIDE" if h["outside"] else ""))
        if h["limited"]:
            line += " (%d wins cut by the payout limit: the hold runs above par)" % h["limited"]
        lines.append(line)
    return lines


def outside(found):
    return ["side wagers: %s holds %.4f%%, outside the 95%% interval [%.4f%%, %.4f%%] of its "
            "house edge %.4f%%" % (h["wager"], 100 * h["hold"], 100 * h["low"],
                                   100 * h["high"], 100 * h["house_edge"])
            for h in found if h["outside"]]


def meters_against_log(meters, records):
    # With the log kept from record 1: the settlements' sums per wager and
    # paytable equal the board's meters. Gives the differences.
    side = (meters.get("side_wagers") or {}).get("wagers", {})
    sums = settled.totals([r for r in records if r.get("ev") == "settled"])
    problems = []
    for key in sorted(set(side) | set(sums)):
        row = side.get(key, {"wagers": 0, "wagered": 0, "paid": 0})
        mine = sums.get(key, [0, 0, 0])
        if [row["wagers"], row["wagered"], row["paid"]] != mine[:3]:
            problems.append("side wagers: %s meters say %d wagers, %d wagered, %d paid; the "
                            "log's settlements add up to %d, %d, %d (cents)"
                            % (key, row["wagers"], row["wagered"], row["paid"], *mine[:3]))
    return problems
