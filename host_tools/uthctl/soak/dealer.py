# A dealer's hands on the table through its rig, as a soak plays it: chips on
# random seats, LOCK, the round's events read from the host link as they
# come, the chips taken off, and a hit validated with the key, the payment
# methods taken in turn. Every event goes to the host's record (record.py);
# the board's meters are read and reconciled with it after every hit.
import itertools
import time

from mystery.meter import PAYMENTS
from table.controller import SERVICE

from ..links import logexport
from ..links.rig import lit
from . import rounds

EVENT_WAIT = 10.0  # seconds for any one event or state; a board that takes longer is stuck


class SoakError(RuntimeError):
    pass


class Dealer:
    def __init__(self, link, rig, record, rng, poll=0.001, stretch=1.0):
        self.link = link
        self.rig = rig
        self.record = record
        self.rng = rng
        self.poll = poll  # seconds between looks at the rig's lights
        self.wait = EVENT_WAIT * stretch
        self.payments = itertools.cycle(PAYMENTS)
        self.rounds = 0
        self.seats = None  # the seats the board wires, read from its rig at the first deal
        self.sums = None  # a SideWagerSums once the table settles rounds (settle_rounds)

    # ---- events ----

    def events_until(self, name):
        # Every event up to the first called `name` goes to the record, in order.
        while self.link.events:
            event = self.link.events.pop(0)
            self.record.take(event)
            if event.get("ev") == name:
                return event
        deadline = time.monotonic() + self.wait
        while True:
            message = self.link.read_message(max(0.0, deadline - time.monotonic()))
            if message is None:
                raise SoakError("no %r event from the board within %.0f s" % (name, self.wait))
            if "ev" in message:
                self.record.take(message)
                if message["ev"] == name:
                    return message

    def drain(self):
        # The events a command's reply came after.
        while self.link.events:
            self.record.take(self.link.events.pop(0))

    def reconcile(self, when):
        meters = logexport.read_meters(self.link)
        self.drain()
        return self.record.reconcile(meters, when), meters

    def command(self, cmd, **fields):
        reply = self.link.command(cmd, timeout=self.wait, **fields)
        self.drain()
        if not reply.get("ok"):
            raise SoakError("the board refused %s: %s" % (cmd, reply.get("error")))
        return reply

    # ---- pins ----

    def set(self, pin, level):
        if not self.rig.set(pin, level).get("applied"):
            raise SoakError("the rig's %s %d was not applied: no controller reads the pins"
                            % (pin, level))

    def lights(self, done, what):
        deadline = time.monotonic() + self.wait
        while True:
            state = self.rig.state()
            if done(state):
                return state
            if time.monotonic() > deadline:
                raise SoakError("timed out waiting for %s; lights %s, jackpot %s" % (
                    what, state["bet_lights"], state["jackpot_lights"]))
            time.sleep(self.poll)

    # ---- the table ----

    def configure(self, name, settle=False):
        # A new board: the key held, the configuration chosen (and with
        # settle, the paytables and payout limit its rounds are settled by),
        # the key released.
        self.set("key", 1)
        deadline = time.monotonic() + self.wait
        while self.command("status")["state"] != SERVICE:
            if time.monotonic() > deadline:
                raise SoakError("the table did not enter service mode")
            time.sleep(self.poll)
        self.command("config", mystery=name)  # its config and reset events come before it
        if settle:
            self.command("set", name="paytables", value=rounds.PAYTABLES)
            self.command("set", name="max_payout_cents", value=rounds.LIMIT_CENTS)
            self.sums = rounds.SideWagerSums()
        self.set("key", 0)
        if self.record.events.get("reset", 0) < 1:
            raise SoakError("the board configured %s but sent no reset" % name)

    def play(self):
        # One round; True when it hit.
        if self.seats is None:
            self.seats = tuple(range(1, len(self.rig.state()["bet_lights"]) + 1))
        seats = sorted(self.rng.sample(self.seats, self.rng.randint(1, len(self.seats))))
        self.record.placed(seats)
        for seat in seats:
            self.set("bet%d" % seat, 1)
        self.set("lock", 1)
        self.events_until("locked")
        self.set("lock", 0)  # held only until the round locked: far short of its 2 s
        # The bet lights show the seats locked in, one contribution event each.
        for _ in lit(self.rig.state()["bet_lights"]):
            self.events_until("contribution")
        self.record.round_done()
        for seat in seats:
            self.set("bet%d" % seat, 0)
        state = self.lights(_round_over, "the round to end")
        self.rounds += 1
        hit = any(state["jackpot_lights"])
        if hit:
            self.validate()
            self.lights(_round_over, "betting after the hit")
        if self.sums is not None:  # the hand's side wagers, once the Mystery's part is done
            self.settle_round(seats)
        return hit

    def settle_round(self, seats):
        # The round's cards and side wagers to the board, its answer to the host's.
        data = rounds.deal(self.rng, seats, "soak-%d" % self.rounds)
        if not any(seat["wagers"] for seat in data["seats"]):
            return
        reply = self.command("round", **data)
        want = rounds.expected(data)
        if reply.get("seats") != want:
            self.record.differ("round %s settled as %s, by the host %s"
                               % (data["round"], reply.get("seats"), want))
            return
        self.sums.add(data, reply["seats"])

    def validate(self):
        # The hit, the meters with it pending, the key turned to pay it.
        hit = self.events_until("hit")
        self.reconcile("hit pending, cycle %s" % hit.get("cycle"))
        payment = next(self.payments)
        self.command("payment", method=payment)
        self.record.chose(payment)
        self.set("key", 1)
        self.events_until("reset")
        self.set("key", 0)
        self.reconcile("after cycle %s's hit was paid and the meter reset" % hit.get("cycle"))


def _round_over(state):
    # Betting again (every bet light out with the chips gone), or a hit pending.
    return any(state["jackpot_lights"]) or not any(state["bet_lights"])
