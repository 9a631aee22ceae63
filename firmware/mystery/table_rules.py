# The table's settlement rules as settings (settings.py registers them): the
# paytable in force for each side wager, the Bad Beat rules of rules.md, the
# payout limitation of 653a.12(h) and the stake limit. Each validator takes
# the value asked for and the Mystery configuration (unused here) and gives
# the value to keep, or raises Refused with the reason. The paytables and the round's
# checks are imported by the validators that need them, not at boot.
from .refusal import Refused

BAD_BEAT_MODES = ("two_way", "player_loses")  # uth/round.py's, as rules.md names them
BAD_BEAT_ON_FOLD = ("action", "lose")


def _paytables(value, config):
    # {wager: letter}: the side wagers the table offers, each by the paytable
    # its Rules Submission chose; a wager left out is not offered.
    from uth import paytables

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
    from uth.round import limits

    try:
        limits(value)
    except ValueError as error:
        raise Refused(str(error)) from None
    return value


def _max_stake(value, config):
    # The most one side wager's stake may be: a round over it is refused.
    from uth.round import stake_limit

    try:
        return stake_limit(value)
    except ValueError as error:
        raise Refused(str(error)) from None


def _bad_beat_mode(value, config):
    if value not in BAD_BEAT_MODES:
        raise Refused("bad_beat_mode must be two_way or player_loses")
    return value


def _bad_beat_on_fold(value, config):
    if value not in BAD_BEAT_ON_FOLD:
        raise Refused("bad_beat_on_fold must be action or lose")
    return value


# name -> (default, validator, what it is), as settings.py keeps them. The
# defaults are uth/round.py's DEFAULT_SETTINGS and MAX_STAKE_CENTS (a test
# holds them equal).
SETTINGS = {
    "paytables": ({}, _paytables,
                  "the paytable in force for each side wager settled on the board, "
                  "{wager: letter}; a wager left out is not offered"),
    "max_payout_cents": (None, _max_payout,
                         "653a.12(h): the most one wager wins in a round, in cents: one "
                         "figure for all, {wager: cents}, or null for no limit"),
    "max_stake_cents": (100_000, _max_stake, "the most one side wager's stake may be, cents"),
    "bad_beat_mode": (BAD_BEAT_MODES[0], _bad_beat_mode,
                      "Bad Beat pays on the strictly losing hand (two_way) or only the "
                      "player's (player_loses)"),
    "bad_beat_on_fold": (BAD_BEAT_ON_FOLD[0], _bad_beat_on_fold,
                         "a folded hand's Bad Beat wager stays in action or loses"),
}


def in_force(setting):
    # The rules a round is settled by; setting(name) gives a setting's value.
    return {"paytables": setting("paytables"),
            "settings": {"bad_beat_mode": setting("bad_beat_mode"),
                         "bad_beat_on_fold": setting("bad_beat_on_fold")},
            "max_payout_cents": setting("max_payout_cents"),
            "max_stake_cents": setting("max_stake_cents")}
