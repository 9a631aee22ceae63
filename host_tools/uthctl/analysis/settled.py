# A settlement record of the board's log ("settled", firmware/mystery/
# settlement.py): the round it holds, settled again here by uth.settle with
# the rules the record names, must give the results the record states. Also
# the sums the audit sets against the board's side-wager meters.
from uth.paytables import SETTLED_WAGERS
from uth.round import STAKE_CEILING_CENTS
from uth.settle import settle


def _list(value):
    return isinstance(value, list)


def _text(value):
    return isinstance(value, str)


# The fields a settlement record needs (logread.KIND_FIELDS).
FIELDS = {
    "cards": (_text, "the dealer's two cards then the board's five, as one text"),
    "paytables": (_list, "each side wager's paytable letter or null"),
    "rules": (_list, "the Bad Beat rules, [mode, on_fold]"),
    "limits": (_list, "each side wager's payout limit in cents or null"),
    "seats": (_list, "each seat's [seat, cards, folded, stakes, nets]"),
}


def _split(text):
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def round_of(record):
    # The round as `uthctl settle` reads it, from the record's own fields.
    # The record does not name the table's stake limit in force: any stake a
    # table may allow settles again, and one above every table's is a problem.
    seats = []
    for number, cards, folded, stakes, _ in record["seats"]:
        seats.append({"seat": number, "cards": _split(cards), "folded": folded,
                      "wagers": dict(zip(SETTLED_WAGERS, stakes, strict=True))})
    mode, on_fold = record["rules"]
    cards = _split(record["cards"])
    limits = dict(zip(SETTLED_WAGERS, record["limits"], strict=True))
    return {"paytables": {w: letter for w, letter in zip(SETTLED_WAGERS, record["paytables"],
                                                         strict=True) if letter is not None},
            "settings": {"bad_beat_mode": mode, "bad_beat_on_fold": on_fold},
            "max_payout_cents": limits, "dealer": cards[:2], "board": cards[2:],
            "seats": seats, "max_stake_cents": STAKE_CEILING_CENTS}


def results(record):
    # The round settled again: settle's answer.
    return settle(round_of(record))


def problem(record):
    # Why the record's results are not its round's, or None.
    seq = record.get("seq")
    try:
        result = results(record)
        for (number, _, _, stakes, nets), seat in zip(record["seats"], result["seats"],
                                                      strict=True):
            for wager, stake, net in zip(SETTLED_WAGERS, stakes, nets, strict=True):
                mine = seat["results"].get(wager)
                if (mine["net"] if mine else 0) != net or (stake == 0) != (mine is None):
                    return ("record %r: seat %r's %s is recorded as %s; its cards settle as %s"
                            % (seq, number, wager, net, mine))
    except (ValueError, TypeError, KeyError) as error:
        return "record %r: not a settlement that settles: %s" % (seq, error)
    return None


def totals(records):
    # Per "wager/letter", from the settlement records: [wagers, wagered, paid]
    # in cents, paid being a win's stake and win.
    sums = {}
    for record in records:
        letters = record["paytables"]
        for _, _, _, stakes, nets in record["seats"]:
            for at, wager in enumerate(SETTLED_WAGERS):
                if stakes[at]:
                    row = sums.setdefault("%s/%s" % (wager, letters[at]), [0, 0, 0])
                    row[0] += 1
                    row[1] += stakes[at]
                    row[2] += stakes[at] + nets[at] if nets[at] > 0 else 0
    return sums
