# A round settled on the board, as a dealer terminal or a card-reading shoe
# sends it (the JSON of `uthctl settle`): settled with the paytables, rules
# and payout limits configured on the table, never with ones the round names,
# and recorded in the log as one compact record. Lists, not objects, in the
# record: its hash is computed the fast way (chain.canonical).
from json import dumps

from uth.cards import names_text
from uth.paytables import SETTLED_WAGERS
from uth.round import limits, parse_round
from uth.settle import settle_parsed

from .chain_text import no_escapes
from .refusal import Refused

_LABEL_MAX = 40  # the caller's round id, kept in the log record: characters or digits
_LABEL_BOUND = 10 ** _LABEL_MAX


def _same(given, in_force, what):
    # A round may name the table's rules (as `uthctl settle` needs them),
    # but only as they are: the board never settles by other ones.
    if given is not None and given != in_force:
        raise Refused("the round's %s %s are not the table's %s" % (what, _text(given),
                                                                    _text(in_force)))


def _text(value):
    return repr(value).replace("'", '"')


def _letters(given):
    if not isinstance(given, dict):
        raise Refused("paytables must be an object")
    return {wager: letter.upper() if isinstance(letter, str) else letter
            for wager, letter in given.items()}


def on_the_table(data, rules):
    # The round to settle: `data` as the host sent it (the command's own
    # "cmd" and "id" left out), with the table's rules in force. rules:
    # {"paytables": {wager: letter}, "settings": {...}, "max_payout_cents": {...},
    # "max_stake_cents": cents}.
    if not isinstance(data, dict):
        raise Refused("a round is an object")
    label = data.get("round")
    if not (label is None or (type(label) is int and -_LABEL_BOUND < label < _LABEL_BOUND) or
            (isinstance(label, str) and len(label) <= _LABEL_MAX)):
        raise Refused("round must be a number of at most %d digits or a text of at most %d "
                      "characters" % (_LABEL_MAX, _LABEL_MAX))
    if "paytables" in data:
        given = _letters(data["paytables"])
        _known(given, SETTLED_WAGERS, "unknown wager %r in paytables")
        _same(given, {w: rules["paytables"].get(w) for w in given}, "paytables")
    if "settings" in data:
        given = data["settings"]
        if not isinstance(given, dict):
            raise Refused("settings must be an object")
        _known(given, rules["settings"], "unknown key %r in settings")
        _same(given, {name: rules["settings"].get(name) for name in given}, "settings")
    if data.get("max_payout_cents") is not None:
        _same(limits(data["max_payout_cents"]), limits(rules["max_payout_cents"]),
              "payout limits")
    if "max_stake_cents" in data:
        _same(data["max_stake_cents"], rules["max_stake_cents"], "stake limits")
    round_data = dict(data)
    for name in rules:
        round_data[name] = rules[name]
    return round_data


def _known(given, names, message):
    # Every name a round gives must be one the table has, whatever its value:
    # a null one is not the table's rule left out, it is a name no table knows.
    for name in given:
        if name not in names:
            raise Refused(message % (name,))


def settle(data, rules):
    # (parsed round, result); Refused, with the reason, for a round that
    # cannot be settled, and nothing has changed. The round's parser names
    # a fault of its input with ValueError: that is the host's input, refused.
    try:
        round_ = parse_round(on_the_table(data, rules))
    except ValueError as error:
        raise Refused(str(error)) from None
    return round_, settle_parsed(round_)


def _names(codes):
    return names_text(codes)


# Each wager's place in SETTLED_WAGERS: a look-up, not a search of the tuple.
_PLACE = {SETTLED_WAGERS[i]: i for i in range(len(SETTLED_WAGERS))}


def record(round_, result, locked_round):
    # The log's settlement record, compact (a round is committed to flash
    # with it: its size is wear): the dealer's cards then the board's as one
    # text; per side wager in paytables.SETTLED_WAGERS' order the paytable's
    # letter (None: not offered) and the payout limit (None: none); each seat
    # as [seat, its two cards, folded, stakes, nets], stakes and nets in
    # cents in the same order (0 for a wager not made). The categories and
    # odds are the cards' to give: a log check settles the round again.
    order = SETTLED_WAGERS
    seats = []
    for i in range(len(round_.seats)):  # one result a seat, in its order
        seat, results = round_.seats[i], result["seats"][i]["results"]
        stakes = [0] * len(order)
        nets = [0] * len(order)
        for wager, stake in seat.wagers:
            at = _PLACE[wager]
            stakes[at] = stake
            nets[at] = results[wager]["net"]
        seats.append([seat.number, _names(seat.cards), seat.folded, stakes, nets])
    tables = round_.tables
    # The dealer's cards then the board's are the dealer's hand: one text made, not three.
    event = {"ev": "settled", "locked_round": locked_round,
             "cards": _names(round_.dealer_hand),
             "paytables": [tables[w].letter if w in tables else None for w in order],
             "rules": [round_.settings["bad_beat_mode"], round_.settings["bad_beat_on_fold"]],
             "limits": [round_.limits.get(w) for w in order], "seats": seats}
    if round_.label is not None:
        event["label"] = round_.label
        if type(round_.label) is str and not no_escapes(dumps(round_.label)):
            # Its hash's text is written field by field (chain_fields.py):
            # loaded here, where no memory for it refuses the round rather
            # than failing the commit.
            from . import chain_fields  # noqa: F401
    return event
