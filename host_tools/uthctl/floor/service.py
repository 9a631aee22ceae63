# uthctl floor: every table's messages from the broker (uth/#) into the
# database on one thread (the one writer), those waiting taken in one
# transaction (intake_batch.py) and acknowledged to the broker only once it
# has committed (a manual PUBACK each), and the floor's
# read-only requests back to the tables (a `log` after a gap, `meters` at
# start so each table's head is compared at once). Nothing one message does
# ends the loop: the intake turns a failure into that message's refusal,
# and step() says anything else that fails and goes on to the next.
import json
import logging
import queue

from .. import event_log
from ..wire import topics
from ..wire.mqtt import BrokerDown, Client
from .intake import Intake
from .intake_batch import gather, take_batch
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
                             on_message=lambda *message: self.inbox.put(message),
                             subscriptions=("%s/#" % topics.ROOT,), clean=False,
                             cafile=cafile, manual_ack=True)
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
        first = self._next(0.2)
        if first is None:
            return
        # A reconnection ends a batch: the messages before it are taken first.
        batch = first if first[0] is None else gather(first, self._next_message)
        try:
            self.handle(batch)
            self.send_requests()
        except Exception as error:  # noqa: BLE001 -- the database gone, a bug: said, and on
            self.note("internal error on %s: %s: %s" % (
                "a reconnection" if batch[0] is None else "a batch", type(error).__name__,
                error), logging.ERROR)

    def _next(self, timeout):
        # (None,) for a (re)connection, else (topic, payload, receipt); None: nothing came.
        try:
            item = self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        return (None,) if item is None else item

    def _next_message(self, timeout):
        item = self._next(timeout)
        if item is not None and item[0] is None:
            with self.inbox.mutex:  # the reconnection put back first, for after this batch
                self.inbox.queue.appendleft(None)
            return None
        return item

    def handle(self, batch):
        if batch[0] is None:  # (re)connected: every known table's head, now
            for table in self.store.table_ids():
                self.intake.requests.append((table, {"cmd": "meters"}))
            return
        take_batch(self.intake, [item[:2] for item in batch])
        # Committed, whole or one by one: only now does the broker hear it has them.
        for item in batch:
            if item[2:]:  # (a message put in by hand has no receipt)
                self.client.ack(item[2])

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
