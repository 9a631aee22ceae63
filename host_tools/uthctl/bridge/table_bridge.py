# uthctl bridge: one table's board onto the floor's broker. The facts it
# publishes are the board's own log records, taken with `log` after the
# last one the broker acknowledged (anchor_state), so a lost broker, a
# restarted bridge or a restarted board loses nothing: each only delays the
# next export. Live events that are no record (started, fault, refused, ...)
# are published as they come, and lost while the broker is away. From the
# floor it takes only `status`, `meters`, `log` and `head` (the audit's: the
# board's own log head, authenticated by its record key over the asker's
# nonce, published on the event topic as {"table", "head": the board's reply,
# "asked": the nonce}); and `collected`, the floor's confirmation that it
# stored the board's log up to a record, authenticated with the record key,
# which the bridge passes on and the board checks (floor/collected.py); and
# `clock`, the floor's clock set for a board whose clock is unset, signed
# with the record key over the board's start record, passed on the same way.
import json
import logging
import queue
import re
import time

from .. import event_log
from ..errors import BoardRefusal
from ..links import logexport, ports
from ..links.board_link import Link, LinkError
from ..wire import topics
from ..wire.mqtt import BrokerDown, Client
from . import anchor_state

READ_ONLY = ("status", "meters", "log", "head")
# What the floor may ask: the read-only requests, and its confirmation and
# clock set, which change nothing the board does not check with its own key.
FLOOR_ASKS = READ_ONLY + ("collected", "clock")
RETRY_S = 0.5
NOT_AUTHORISED = ("not authorised: table %s's account is not in the broker's password file "
                  "(reload the broker after add-table)")
NONCE = re.compile(r"^[0-9a-f]{16,64}$")  # what the bridge passes on to its board


class Bridge:
    """One table's bridge: its board's log records and events onto the floor's broker."""
    def __init__(self, port, broker, account, casino, table, state_path, every=60.0,
                 timeout=5.0, cafile=None):
        self.port, self.casino, self.table = port, casino, table
        self.state_path = state_path
        self.every = every
        self.timeout = timeout
        self.log = event_log.logger("bridge", table)
        self.anchor = anchor_state.load(state_path, table)
        self.commands = queue.Queue()
        self.link = None
        self.sync_due = True  # an export from the anchor before live events
        self.status_due = True  # the retained `online`, at each connection
        self.said_down = False  # whether this outage of the broker was noted
        self.next_meters = 0.0
        offline = json.dumps({"table": table, "status": "offline"})
        self.client = Client(broker, account,
                             will=(self.topic(topics.STATUS), offline),
                             on_message=self._command,
                             subscriptions=(self.topic(topics.COMMAND),), cafile=cafile)
        self.client.on_up = self._broker_up
        self.client.on_refused = self._account_refused
        self.said_refused = False  # whether this refusal of the account was noted

    def topic(self, kind):
        return topics.topic(self.casino, self.table, kind)

    # ---- the loop ----

    def run(self, stop=None):
        self.client.start()
        try:
            while stop is None or not stop.is_set():
                try:
                    self.step()
                except BrokerDown as error:
                    if not self.said_down:  # once an outage, not once an event
                        self.note("broker: %s; live events are lost until it is back, the "
                                  "board's log is exported again then" % error, logging.WARNING)
                        self.said_down = True
                    self.sync_due = True
                    self.client.connected.wait(RETRY_S)
                except (LinkError, OSError) as error:
                    self.lost_board(error)
                except BoardRefusal as error:  # this answer, not the link: ask again
                    self.note("board: %s; asking again in %.1f s" % (error, RETRY_S),
                              logging.WARNING)
                    self.sync_due = True
                    time.sleep(RETRY_S)
        finally:
            self.close()

    def close(self):
        # A clean disconnect sends no last will: the bridge says `offline` itself.
        if self.link is not None:
            self.link.close()
            self.link = None
        try:
            self.send(topics.STATUS, {"status": "offline", "time": time.time()}, retain=True)
        except BrokerDown:
            pass  # the broker is away, and so is its retained `online` for us
        self.client.stop()

    def step(self):
        if self.link is None:
            self.open_board()
        if self.sync_due and self.client.connected.is_set():
            self.sync()
        self.answer_commands()
        while self.link.events:
            self.live(self.link.events.pop(0))
        message = self.link.read_message(0.2)
        if message is not None and "ev" in message:
            self.live(message)
        if time.monotonic() >= self.next_meters and self.client.connected.is_set():
            self.publish_meters()

    def open_board(self):
        self.link = Link(ports.resolve(self.port), timeout=self.timeout, exclusive=True)
        self.link.wait_ready(self.timeout * 4)
        self.sync_due = True
        self.note("board on %s answers" % self.port)

    def lost_board(self, error):
        self.note("board: %s; trying again every %.1f s" % (error, RETRY_S), logging.WARNING)
        if self.link is not None:
            self.link.close()
            self.link = None
        time.sleep(RETRY_S)

    def _broker_up(self):
        self.sync_due = True  # what was published while it was away may be lost
        self.status_due = True
        self.said_down = False
        self.said_refused = False

    def _account_refused(self):
        # paho tries again every 2 s; the broker's answer is said once.
        if not self.said_refused:
            self.said_refused = True
            self.note(NOT_AUTHORISED % self.table, logging.ERROR)

    # ---- what it publishes ----

    def live(self, event):
        # A record's event starts an export (the record comes from the log,
        # as committed); any other event goes out as it came.
        if "seq" in event:
            self.sync_due = True
        elif event.get("ev") == "started":
            self.sync_due = self.status_due = True
            self.send(topics.EVENT, {"event": event})
        else:
            self.send(topics.EVENT, {"event": event})

    def sync(self):
        # The board's records after the anchor, each acknowledged before the
        # anchor moves past it; then its meters.
        try:
            records, meters = logexport.export(self.link, self.anchor)
        except logexport.JoinError as error:
            self.note("the board's log does not join on to record %d: %s; publishing the "
                      "log it keeps" % (self.anchor[0], error), logging.WARNING)
            records, meters = logexport.export(self.link, None)
            if not records:
                self.anchor = logexport.head_of(meters)
        for record in records:
            self.send_record(record)
            self.anchor = record["seq"], record["hash"]
            anchor_state.save(self.state_path, self.table, self.anchor)
        self.sync_due = False
        self.send_meters(meters)

    def send_record(self, record):
        # The record alone: where the table's log starts is the board's word,
        # its signed head, which the floor asks for itself (floor/log_start.py).
        self.send(topics.EVENT, {"record": record})

    def publish_meters(self):
        self.send_meters(logexport.read_meters(self.link))

    def send_meters(self, meters):
        self.send(topics.METERS, {"meters": meters, "time": time.time()})
        self.next_meters = time.monotonic() + self.every
        if meters.get("log_seq", 0) != (self.anchor or (0,))[0]:
            self.sync_due = True

    def send(self, kind, body, retain=False):
        message = dict(body, table=self.table)
        self.client.publish(self.topic(kind), json.dumps(message), retain=retain)

    def publish_status(self):
        reply = self.link.command("status")
        self.send(topics.STATUS, {"status": "online", "board": reply, "time": time.time()},
                  retain=True)

    # ---- the floor's requests ----

    def _command(self, _topic, payload):
        self.commands.put(payload)  # answered on the bridge's own thread, which has the port

    def answer_commands(self):
        if self.status_due and self.client.connected.is_set():
            self.publish_status()
            self.status_due = False
        while not self.commands.empty():
            self.answer(self.commands.get())

    def answer(self, payload):
        try:
            request = json.loads(payload)
            cmd = request.get("cmd")
        except (ValueError, AttributeError):
            self.note("refused a floor request that is not a JSON object", logging.WARNING)
            return
        if cmd not in FLOOR_ASKS:
            self.note("refused the floor's %r: the floor may ask only %s"
                      % (cmd, ", ".join(FLOOR_ASKS)), logging.WARNING)
            return
        if cmd == "status":
            self.publish_status()
        elif cmd == "meters":
            self.publish_meters()
        elif cmd == "head":
            self.answer_head(request.get("nonce"))
        elif cmd == "collected":
            self.pass_collected(request)
        elif cmd == "clock":
            self.pass_clock(request)
        else:
            self.resend(request.get("since"))

    def answer_head(self, nonce):
        # The board's answer as it gave it: the asker checks it with the key,
        # which the bridge does not hold.
        if not isinstance(nonce, str) or not NONCE.match(nonce):
            self.note("refused a head request without a nonce of 16-64 hex digits",
                      logging.WARNING)
            return
        reply = self.link.command("head", nonce=nonce)
        reply.pop("id", None)
        # "asked": which request a refusal (which carries no nonce) answers.
        self.send(topics.EVENT, {"head": reply, "asked": nonce})

    def pass_collected(self, request):
        # The floor's confirmation, as it sent it: the board checks it. One
        # without an authenticator is never the floor's (an unsigned one is
        # a technician's, with the key switch held, never passed on).
        if not isinstance(request.get("auth"), str):
            self.note("refused a collected request without an authenticator", logging.WARNING)
            return
        reply = self.link.command("collected", seq=request.get("seq"),
                                  auth=request.get("auth"))
        if reply.get("ok"):
            self.note("the board counts its log collected up to record %s (%s not collected)"
                      % (reply.get("collected"), reply.get("uncollected")))
        else:
            self.note("the board refused the floor's confirmation of record %r: %s"
                      % (request.get("seq"), reply.get("error")), logging.WARNING)

    def pass_clock(self, request):
        # The floor's clock set, as it sent it: the board checks it. One
        # without an authenticator would be a set in service mode, which
        # is a technician's at the table, never the floor's.
        if not isinstance(request.get("auth"), str):
            self.note("refused a clock request without an authenticator", logging.WARNING)
            return
        reply = self.link.command("clock", set=request.get("set"), auth=request.get("auth"))
        if reply.get("ok"):
            self.note("the board set its clock from the floor's: %s (was %s)"
                      % (reply.get("datetime"), reply.get("was")))
        else:
            self.note("the board refused the floor's clock set: %s" % reply.get("error"),
                      logging.WARNING)

    def resend(self, since):
        # The records from `since` to the meter's head, as the floor asked.
        if type(since) is not int or since < 0:
            self.note("refused a log request without a record number (since)", logging.WARNING)
            return
        meters = logexport.read_meters(self.link)
        head = logexport.head_of(meters)[0]
        records = logexport.fetch_records(self.link, since) if since <= head else []
        records = [record for record in records if record.get("seq", 0) <= head]
        for record in records:
            self.send_record(record)
        self.note("resent %d records from record %d, as the floor asked" % (len(records), since))
        self.send_meters(meters)

    def note(self, words, level=logging.INFO):
        # One event, one line (event_log): the logger uthctl.bridge.TABLE.
        self.log.log(level, words)
