# A settlement record of the board's log ("settled", firmware/mystery/
# settlement.py): the round it holds, settled again here by uth.settle with
# the rules the record names, must give the results the record states. Also
# the sums the audit sets against the board's side-wager meters.
from uth.settle import settle


def _list(value):
    return isinstance(value, list)


# The fields a settlement record needs (logread.KIND_FIELDS).
FIELDS = {
    "dealer": (_list, "the dealer's two cards"),
    "board": (_list, "the five community cards"),
    "paytables": (_list, "the paytables in force, [[wager, letter], ...]"),
    "rules": (_list, "the Bad Beat rules, [mode, on_fold]"),
    "limits": (_list, "the payout limits, [[wager, cents], ...]"),
    "seats": (_list, "each seat's cards and results"),
}


def round_of(record):
    # The round as `uthctl settle` reads it, from the record's own fields.
    seats = []
    for number, cards, folded, outcomes in record["seats"]:
        seats.append({"seat": number, "cards": cards, "folded": folded,
                      "wagers": {wager: stake for wager, stake, *_ in outcomes}})
    mode, on_fold = record["rules"]
    return {"paytables": dict(record["paytables"]),
            "settings": {"bad_beat_mode": mode, "bad_beat_on_fold": on_fold},
            "max_payout_cents": dict(record["limits"]) or None,
            "dealer": record["dealer"], "board": record["board"], "seats": seats}


def _stated(outcome):
    wager, stake, net, category, odds, unlimited = outcome
    stated = {"category": category, "odds": odds, "net": net}
    if unlimited is not None:
        stated.update(limited=True, unlimited=unlimited)
    return wager, stated


def problem(record):
    # Why the record's results are not its round's, or None.
    seq = record.get("seq")
    try:
        result = settle(round_of(record))
        for (number, _, _, outcomes), seat in zip(record["seats"], result["seats"],
                                                  strict=True):
            for outcome in outcomes:
                wager, stated = _stated(outcome)
                if seat["results"].get(wager) != stated:
                    return ("record %r: seat %r's %s is recorded as %s; its cards settle as %s"
                            % (seq, number, wager, stated, seat["results"].get(wager)))
    except (ValueError, TypeError, KeyError) as error:
        return "record %r: not a settlement that settles: %s" % (seq, error)
    return None


def totals(records):
    # Per "wager/letter", from the settlement records: [wagers, wagered, paid,
    # sum of squared stakes] in cents, paid being a win's stake and win.
    sums = {}
    for record in records:
        letters = dict(record["paytables"])
        for _, _, _, outcomes in record["seats"]:
            for wager, stake, net, *_ in outcomes:
                row = sums.setdefault("%s/%s" % (wager, letters[wager]), [0, 0, 0, 0])
                row[0] += 1
                row[1] += stake
                row[2] += stake + net if net > 0 else 0
                row[3] += stake * stake
    return sums
