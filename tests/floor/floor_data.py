# What the floor's tests share beside their fixtures (conftest.py): the
# page's users' passwords and the virtual boards' seeds. (A test imports
# these from here: `conftest` names tests/host's too when the whole suite runs.)
import sys
from pathlib import Path

PASSWORDS = {"vera": "viewer-password", "sam": "supervisor-password"}
A1_CENTS = (100 * 100, 200 * 100)  # A1's minimum and maximum, 653b.1(c)(4)
# A board's status "rules" as the firmware's table/expiry.py makes them by a
# set clock: its configuration's section, 653b.1, with its dates, past them.
RULES = {"date": "2026-12-02", "clock": "set", "sections": [["653b.1", "2021-09-04",
                                                          "2024-09-04"]],
         "expired": ["653b.1"], "warning": None}


def quiet_seeds(count, cents_played):
    # Seeds of the virtual board's TEST-ONLY random source whose first hit
    # value lies beyond the meter after `cents_played`, as the vboard tests'
    # independent computation of the board's draws predicts it.
    sys.path.insert(0, str(Path(__file__).parent.parent / "host"))
    from independent_draws import seeded_draws

    found = [seed for seed in range(1, 10_000)
             if seeded_draws(seed, *A1_CENTS, 1)[0][0] > A1_CENTS[0] + cents_played]
    return found[:count]
