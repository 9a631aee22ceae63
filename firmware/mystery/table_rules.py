# The table's settlement rules as settings (settings.py): the paytable in
# force for each side wager, the Bad Beat rules of rules.md, and the payout
# limitation of 653a.12(h). Each validator takes the value asked for and the
# Mystery configuration (unused here) and gives the value to keep, or raises
# Refused with the reason.
from uth import paytables
from uth.round import DEFAULT_SETTINGS, limits

from .meter import Refused

BAD_BEAT_MODES = ("two_way", "player_loses")
BAD_BEAT_ON_FOLD = ("action", "lose")


def _paytables(value, config):
    # {wager: letter}: the side wagers the table offers, each by the paytable
    # its Rules Submission chose; a wager left out is not offered.
    if not isinstance(value, dict):
        raise Refused("paytables must be an object {wager: letter}, e.g. "
                      "{\"trips\": \"E\", \"ultimate_pairs\": \"F\"}")
    kept = {}
    for wager in value:
        if wager not in paytables.SETTLED_WAGERS:
            raise Refused("paytables: unknown side wager %r (known: %s)"
                          % (wager, ", ".join(paytables.SETTLED_WAGERS)))
        try:
            kept[wager] = paytables.get(wager, value[wager]).letter
        except ValueError as error:
            raise Refused("paytables: %s" % error) from None
    return kept


def _max_payout(value, config):
    # 653a.12(h): the most one wager wins in a round, in whole cents: one
    # figure for every side wager, {wager: cents} for each, or null for none.
    try:
        limits(value)
    except ValueError as error:
        raise Refused(str(error)) from None
    return value


def _choice(name, choices):
    def check(value, config):
        if value not in choices:
            raise Refused("%s must be one of %s" % (name, ", ".join(choices)))
        return value
    return check


# name -> (default, validator, what it is), as settings.py keeps them.
SETTINGS = {
    "paytables": ({}, _paytables,
                  "the paytable in force for each side wager settled on the board, "
                  "{wager: letter}; a wager left out is not offered"),
    "max_payout_cents": (None, _max_payout,
                         "653a.12(h): the most one wager wins in a round, in cents: one "
                         "figure for all, {wager: cents}, or null for no limit"),
    "bad_beat_mode": (DEFAULT_SETTINGS["bad_beat_mode"],
                      _choice("bad_beat_mode", BAD_BEAT_MODES),
                      "Bad Beat pays on the strictly losing hand (two_way) or only the "
                      "player's (player_loses)"),
    "bad_beat_on_fold": (DEFAULT_SETTINGS["bad_beat_on_fold"],
                         _choice("bad_beat_on_fold", BAD_BEAT_ON_FOLD),
                         "a folded hand's Bad Beat wager stays in action or loses"),
}


def in_force(setting):
    # The rules a round is settled by; setting(name) gives a setting's value.
    return {"paytables": setting("paytables"),
            "settings": {"bad_beat_mode": setting("bad_beat_mode"),
                         "bad_beat_on_fold": setting("bad_beat_on_fold")},
            "max_payout_cents": setting("max_payout_cents")}
