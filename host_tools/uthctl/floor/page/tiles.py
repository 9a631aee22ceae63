# What the floor page shows of each table, from its row in the database and
# the running sums of its day (today.py), with no query of its own: its real
# state and since when (an offline table is offline, whatever its board last
# said), the meter against its configuration's must-hit-by maximum, the
# pending hit, the last hit and who validated it, the day's rounds,
# contributions and hits, the qualifying wagers and what they wagered, today
# and on the board's meters, the side wagers' hold against par today, the rule
# sections its configuration rests on with their dates, and its standing
# alerts. Each tile is built on its own: what a table sent is any JSON at
# all, and a tile that cannot be built shows that table as unreadable,
# never the page as an error.
import json

from mystery import configs
from mystery.meter import PENDING_AWARD, PENDING_SEAT
from mystery.money import decimal
from table.controller import FAULT
from table.controller import HIT_PENDING as PENDING

from ...analysis import hold

OFFLINE = "offline"  # the floor's word: the board's own states come from `table`


def tile_or_why(row, alerts, day, last_hit, activity, now):
    try:
        built = tile(row, alerts, day, last_hit, activity, now)
        json.dumps(built, allow_nan=False)  # the page's JSON readers take every tile
        return built
    except Exception as error:  # noqa: BLE001 -- this table's alone; the others are shown
        return {"table": row["table_id"],
                "unreadable": "%s: %s" % (type(error).__name__, error)}


def tile(row, alerts, day, last_hit, activity, now):
    # row: the table's row of `tables`; alerts: its standing ones; day: its
    # today.TableDay; last_hit: its today.LastHit; activity: its
    # today.Activity; now: the view's time.
    meters = _object(row["meters"])
    board = _object(row["board_status"])
    pending = _pending(meters.get("pending"), last_hit)
    state, since = _state(row, board, pending)
    return {
        "table": row["table_id"],
        "link": row["status"] or "unknown", "link_since": row["status_at"],
        "state": state, "since": since, "board_state": board.get("state"),
        "fault": board.get("fault"),
        "display": _dollars(meters.get("display_cents")),
        "meter": _meter(meters),
        "config": meters.get("config"),
        "pending": pending,
        "last_hit": _last_hit(last_hit, pending),
        "last_round": activity.last_round,
        "rounds_hour": activity.in_last_hour(now),
        "today": {"rounds": day.rounds, "contributed": "$" + decimal(day.contributed),
                  "hits": day.hits, "qualifying_wagers": day.qualifying_wagers,
                  "wagered": "$" + decimal(day.wagered),
                  "seats": [{"seat": seat, "rounds": rounds, "contributed": "$" + decimal(micros),
                             "hits": hits} for seat, (rounds, micros, hits)
                            in sorted(day.seats.items(), key=_seat_order)]},
        "wagers": _wagers(meters),
        "holds": _holds(day.side, meters),
        "expired": _rules(board).get("expired"),
        "rules": _sections(_rules(board)),
        "rules_clock": _rules(board).get("clock"),
        "records": row["last_seq"],
        # Records held by their chain alone: no signed record has joined.
        "unsigned": row["last_seq"] is not None and row["key_id"] is None,
        "internal": row["internal"],
        # The board's random number generator: "not_instantiated" until a
        # technician seeds it (docs/mystery.md, "The generator"); None: not said.
        "generator": board.get("drbg") if isinstance(board.get("drbg"), str) else None,
        "alerts": [{"id": a["id"], "kind": a["kind"], "text": a["text"],
                    "raised_at": a["raised_at"], "back_at": a.get("back_at")}
                   for a in alerts],
    }


def _seat_order(item):
    # Seats by number (seat 10 after seat 2); a seat a record named oddly, last.
    seat = item[0]
    return (0, seat, "") if type(seat) is int else (1, 0, str(seat))


def _state(row, board, pending):
    # (state, since when): the link first (an offline table's board says
    # nothing now), then a fault, then the board's own state.
    if row["status"] == OFFLINE:
        return OFFLINE, row["status_at"]
    named = board.get("state")
    if board.get("fault") or named == FAULT:
        return FAULT, row["state_at"] or row["status_at"]
    if pending is not None and pending["since"] is not None:
        return PENDING, pending["since"]
    if isinstance(named, str):
        return named, row["state_at"] or row["status_at"]
    return row["status"] or "unknown", row["status_at"]


def _meter(meters):
    # The meter over its cycle, for the bar: from its configuration's reset
    # (the minimum every cycle starts from, 653b.1(c): where the hit may
    # first come) to its must-hit-by maximum.
    micros = meters.get("meter")
    if type(micros) is not int and type(meters.get("display_cents")) is int:
        micros = meters["display_cents"] * 10_000
    try:
        config = configs.get(meters.get("config"))
    except (ValueError, TypeError):
        config = None
    if type(micros) is not int:
        return None
    if config is None:
        return {"micros": micros, "shown": "$" + decimal(micros), "maximum": None}
    reset, maximum = config.minimum, config.maximum
    return {"micros": micros, "shown": "$" + decimal(micros),
            "reset": reset, "reset_shown": "$" + decimal(reset),
            "maximum": maximum, "maximum_shown": "$" + decimal(maximum),
            # The bar's length in thousandths of the way from the reset to
            # the maximum (a meter past it, full; one below the reset, empty).
            "per_mille": max(0, min(1000, 1000 * (micros - reset) // (maximum - reset)))}


def _wagers(meters):
    # The board's meters of qualifying wagers and what they wagered, with
    # what they contributed; None from a board that does not give them.
    count, wagered = meters.get("qualifying_wagers"), meters.get("wagered")
    if type(count) is not int or type(wagered) is not int:
        return None
    contributed = meters.get("contributed")
    return {"qualifying_wagers": count, "wagered": "$" + decimal(wagered),
            "contributed": "$" + decimal(contributed) if type(contributed) is int else None}


def _pending(pending, last_hit):
    # The meters' pending hit, [seat, award in micro-dollars, ...], or None;
    # since: when the floor took its hit record.
    if not isinstance(pending, list) or len(pending) <= PENDING_AWARD:
        return None
    award = pending[PENDING_AWARD]
    hit = last_hit.hit
    since = hit["at"] if hit is not None and hit["seat"] == pending[PENDING_SEAT] and (
        last_hit.validated is None) else None
    return {"seat": pending[PENDING_SEAT],
            "award": "$" + decimal(award) if type(award) is int else None, "since": since}


def _last_hit(last_hit, pending):
    # The newest hit validated (a pending one is shown as pending instead).
    if last_hit.hit is None or last_hit.validated is None:
        return None
    hit = last_hit.hit
    return {"seat": hit["seat"],
            "award": "$" + decimal(hit["award"]) if type(hit["award"]) is int else None,
            "at": hit["at"], "employee": last_hit.validated["employee"],
            "slip": last_hit.validated["slip"], "validated_at": last_hit.validated["at"]}


def _holds(side, meters):
    # Each side wager's hold today against its par sheet (analysis/hold.py).
    rows = {key: {"wagers": w, "wagered": wagered, "paid": paid}
            for key, (w, wagered, paid) in side.items()}
    settings = meters.get("settings")
    found = hold.holds({"side_wagers": {"wagers": rows},
                        "settings": settings if isinstance(settings, dict) else {}})
    return [{"wager": h["wager"], "wagers": h["wagers"], "hold": h["hold"],
             "house_edge": h["house_edge"], "low": h["low"], "high": h["high"],
             "outside": h["outside"]} for h in found]


def _object(text):
    # A JSON object the floor stored, or {} for none.
    value = json.loads(text) if text else {}
    return value if isinstance(value, dict) else {}


def _rules(board):
    # The board's status "rules": {"sections": [[section, effective, expires]],
    # "expired": [...] or None when its clock cannot tell, "clock", ...}.
    rules = board.get("rules")
    return rules if isinstance(rules, dict) else {}


def _sections(rules):
    # Each section with its dates, and whether the board's clock says it is past them.
    expired = rules.get("expired")
    sections = rules.get("sections")
    shown = []
    for row in sections if isinstance(sections, list) else []:
        if not (isinstance(row, list) and len(row) == 3):
            continue
        section, effective, expires = row
        shown.append({"section": section, "effective": effective, "expires": expires,
                      "expired": section in expired if isinstance(expired, list) else None})
    return shown


def _dollars(cents):
    return None if type(cents) is not int else "$%d.%02d" % divmod(cents, 100)
