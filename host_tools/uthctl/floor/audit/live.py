# The audit's questions to the tables, live, through their bridges: `head`
# with a fresh random nonce to every table at once, and, to a table whose
# board is past the database's head, `log` from the record after it. An
# answer counts only when the board's record key authenticates it over our
# nonce (record_auth.head_matches): the database's host cannot make one.
import json
import queue
import secrets
import time

from ...analysis import record_auth
from ...wire import topics
from ...wire.mqtt import BrokerDown, Client
from . import keys as audit_keys

NONCE_BYTES = 16
CONNECT_SHARE = 0.5  # of the wait, at most, spent reaching the broker


class Asking:
    # One table's question and what came back.
    def __init__(self, table, keys, db_seq):
        self.table, self.keys, self.db_seq = table, keys, db_seq
        self.nonce = secrets.token_hex(NONCE_BYTES)
        self.head = None  # (seq, hash) once authenticated
        self.first = None  # the oldest record the board keeps, authenticated with it
        self.why = "no answer from the table's board within the wait"
        self.after = {}  # seq -> record, of the board's records past db_seq

    @property
    def done(self):
        if self.head is None:
            return False
        # Every record from the database's head to the board's (they may come
        # in part before the head's answer, from the bridge's own exports).
        wanted = self.head[0] - self.db_seq
        return wanted <= 0 or sum(1 for seq in self.after if seq <= self.head[0]) == wanted

    def heard(self, message):
        # What a message on the table's event topic adds; True when it
        # authenticates the head (the caller then asks for the records after).
        answer = message.get("head")
        if isinstance(answer, dict) and self.head is None:
            return self._answer(answer, message.get("asked"))
        record = message.get("record")
        if isinstance(record, dict) and type(record.get("seq")) is int \
                and record["seq"] > self.db_seq:
            self.after[record["seq"]] = record
        return False

    def _answer(self, answer, asked):
        if not answer.get("ok") and asked == self.nonce:
            # Said, not proved (a refusal carries no authenticator): only its reason.
            self.why = "the board refused `head`: %s" % answer.get("error", "no reason given")
            return False
        if answer.get("nonce") != self.nonce:
            return False  # another asker's, or an old answer shown again
        key = self.keys.get(answer.get("key_id"))
        if not self.keys:
            self.why = "no usable key file for the table: the board's answer cannot be " \
                "authenticated"
        elif key is None:
            self.why = "the board answered with key %r, which the key file does not hold " \
                "or marks replaced" % answer.get("key_id")
        elif not record_auth.head_matches(key, answer, self.nonce):
            self.why = "the board's answer does not match its key: not the board's own"
        elif type(answer.get("seq")) is not int or not isinstance(answer.get("hash"), str):
            self.why = "the board's answer holds no head"
        else:
            self.head = answer["seq"], answer["hash"]
            self.first = answer["dropped"] + 1
            return True
        return False


def asker(broker, account, casino, keys_dir, wait, cafile=None):
    # ask(records by table) -> {table: Asking}, each table asked from its
    # database's head, its answers held against its key file.
    def ask(records_by_table):
        askings = {name: Asking(name, audit_keys.head_keys(keys_dir, name),
                                records[-1]["seq"] if records else 0)
                   for name, records in records_by_table.items()}
        ask_heads(broker, account, casino, askings, wait, cafile)
        return askings
    return ask


def ask_heads(broker, account, casino, askings, wait, cafile=None):
    # Fills each Asking in place within `wait` seconds; a broker that does
    # not take us leaves each one's reason saying so.
    inbox = queue.Queue()
    client = Client(broker, account,
                    on_message=lambda topic, payload: inbox.put((topic, payload)),
                    subscriptions=(topics.topic(casino, "+", topics.EVENT),), cafile=cafile)
    deadline = time.monotonic() + wait
    client.start()
    try:
        if not client.subscribed.wait(wait * CONNECT_SHARE):
            _all_say(askings, "the audit could not reach the broker %s%s" % (
                broker, ": " + client.refused if client.refused else ""))
            return
        # Asked only once the broker acknowledged the subscription (SUBACK).
        for asking in askings.values():
            _send(client, casino, asking, {"cmd": "head", "nonce": asking.nonce})
        _listen(client, casino, askings, inbox, deadline)
    finally:
        client.stop()


def _all_say(askings, why):
    for asking in askings.values():
        asking.why = why


def _send(client, casino, asking, request):
    try:
        client.publish(topics.topic(casino, asking.table, topics.COMMAND), json.dumps(request))
    except BrokerDown as error:
        asking.why = "the audit's request was not sent: %s" % error


def _listen(client, casino, askings, inbox, deadline):
    while not all(a.done for a in askings.values()):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        try:
            topic, payload = inbox.get(timeout=left)
        except queue.Empty:
            return
        asking, message = _message_for(casino, askings, topic, payload)
        if asking is not None and asking.heard(message) and not asking.done:
            _send(client, casino, asking, {"cmd": "log", "since": asking.db_seq + 1})


def _message_for(casino, askings, topic, payload):
    where = topics.parse(topic)
    if where is None or where[0] != casino or where[1] not in askings:
        return None, None
    try:
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None, None
    if not isinstance(message, dict) or message.get("table") != where[1]:
        return None, None
    return askings[where[1]], message
