# uthctl floor: every table's messages from the broker (uth/#) into the
# database, one at a time on one thread (the one writer), and the floor's
# read-only requests back to the tables (a `log` after a gap, `meters` at
# start so each table's head is compared at once). Nothing one message does
# ends the loop: the intake turns a failure into that message's refusal,
# and step() says anything else that fails and goes on to the next.
import json
import logging
import queue

from .. import event_log
from . import topics
from .intake import Intake
from .mqtt import BrokerDown, Client
from .table_keys import TableKeys


class Floor:
    def __init__(self, broker, account, casino, store, cafile=None, keys=None):
        # keys: the folder of the tables' key files (DIR/keys), or None.
        self.casino = casino
        self.store = store
        self.log = event_log.logger("floor")
        self.inbox = queue.Queue()
        self.intake = Intake(store, casino, log=self.note,
                             keys=TableKeys(keys) if keys is not None else None)
        # A persistent session: what comes while the floor is down waits at the broker.
        self.client = Client(broker, account,
                             on_message=lambda topic, payload: self.inbox.put((topic, payload)),
                             subscriptions=("%s/#" % topics.ROOT,), clean=False,
                             cafile=cafile)
        self.client.on_up = lambda: self.inbox.put(None)

    def run(self, stop=None):
        self.client.start()
        self.note("floor for casino %s on %s:%d" % (self.casino, self.client.host,
                                                    self.client.port))
        try:
            while stop is None or not stop.is_set():
                self.step()
        finally:
            self.client.stop()
            self.store.close()

    def step(self):
        try:
            item = self.inbox.get(timeout=0.2)
        except queue.Empty:
            return
        try:
            self.handle(item)
            self.send_requests()
        except Exception as error:  # noqa: BLE001 -- the database gone, a bug: said, and on
            self.note("internal error on %s: %s: %s" % (
                "a reconnection" if item is None else "a message", type(error).__name__, error),
                logging.ERROR)

    def handle(self, item):
        if item is None:  # (re)connected: every known table's head, now
            for table in self.store.table_ids():
                self.intake.requests.append((table, {"cmd": "meters"}))
        else:
            self.intake.take(*item)

    def send_requests(self):
        requests, self.intake.requests = self.intake.requests, []
        for table, request in requests:
            try:
                self.client.publish(topics.topic(self.casino, table, topics.COMMAND),
                                    json.dumps(request))
            except BrokerDown as error:
                self.note("request %s to table %s not sent: %s" % (request, table, error),
                          logging.WARNING)

    def note(self, words, level=logging.INFO):
        # One event, one line (event_log): the logger uthctl.floor.
        self.log.log(level, words)
