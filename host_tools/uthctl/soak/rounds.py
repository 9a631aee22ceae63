# The cards of a soak's rounds: after each round the dealer sends the board
# its cards and side wagers as a dealer terminal would (the `round` command),
# for the seats that played, and the host settles the same round itself as
# `uthctl settle` does, with the paytables and limit the soak set on the
# table. An answer that differs, and side wager meters that are not the sums
# of the answers, are differences.
from uth.cards import RANKS, SUITS
from uth.paytables import SETTLED_WAGERS
from uth.settle import settle

# Set on a new table in service mode when the soak configures it.
PAYTABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
LIMIT_CENTS = 50_000  # a $500 limit per wager (653a.12(h)): now and then a win is cut
STAKES = (0, 100, 500, 2500)  # cents; 0: the wager not made
FOLD_CHANCE = 0.2
DECK = [rank + suit for rank in RANKS for suit in SUITS]


def deal(rng, seats, label):
    # One round's cards and side wagers for these seats (7 community and
    # dealer cards, then two a seat), as JSON for the `round` command.
    cards = rng.sample(DECK, 7 + 2 * len(seats))
    played = []
    for n, seat in enumerate(seats):
        stakes = {wager: rng.choice(STAKES) for wager in SETTLED_WAGERS}
        played.append({"seat": seat, "cards": cards[7 + 2 * n:9 + 2 * n],
                       "folded": rng.random() < FOLD_CHANCE,
                       "wagers": {wager: cents for wager, cents in stakes.items() if cents}})
    return {"round": label, "dealer": cards[:2], "board": cards[2:7], "seats": played}


def expected(data):
    # The host's settlement of the same round, by the rules set on the table.
    return settle(dict(data, paytables=PAYTABLES, max_payout_cents=LIMIT_CENTS))["seats"]


class SideWagerSums:
    # The board's answers summed as its side wager meters count them: per
    # wager and paytable, the wagers, the amount wagered and what wins paid back.
    def __init__(self):
        self.settled = 0
        self.rows = {}

    def add(self, data, answered):
        self.settled += 1
        for seat, answer in zip(data["seats"], answered, strict=True):
            for wager, stake in seat["wagers"].items():
                row = self.rows.setdefault("%s/%s" % (wager, PAYTABLES[wager]), [0, 0, 0])
                net = answer["results"][wager]["net"]
                row[0] += 1
                row[1] += stake
                row[2] += stake + net if net > 0 else 0

    def differences(self, meters, since):
        # The board's side wager meters against the sums, counting from
        # `since` (the meters before the soak, for a board that settled before).
        side = meters.get("side_wagers") or {"settled": 0, "wagers": {}}
        found = []
        if side["settled"] - since.get("settled", 0) != self.settled:
            found.append("the board counts %d settlements in the soak, the host %d"
                         % (side["settled"] - since.get("settled", 0), self.settled))
        before = since.get("wagers", {})
        for key in sorted(set(side["wagers"]) | set(self.rows)):
            row = side["wagers"].get(key, {})
            was = before.get(key, {})
            theirs = [row.get(name, 0) - was.get(name, 0)
                      for name in ("wagers", "wagered", "paid")]
            mine = self.rows.get(key, [0, 0, 0])
            if theirs != mine:
                found.append("side wager meters %s: the board's wagers, wagered, paid %s,"
                             " the host's %s" % (key, theirs, mine))
        return found
