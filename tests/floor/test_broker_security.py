# No one in where they do not belong, on a real Mosquitto configured by
# `uthctl floor` (accounts.py): anonymous clients are refused, a table
# publishes only under its own topics, passwords are hashed in the broker's
# file and never put on a command line, and a forged record that comes with
# valid credentials is refused by the floor's hash chain.
import json
import threading
import time

import paho.mqtt.client as paho
import pytest
from chains import CASINO, message, records, topic
from paho.mqtt.enums import CallbackAPIVersion

from uthctl.floor.accounts import AUDIT_USER, FLOOR_USER
from uthctl.floor.intake import ACCEPTED, REFUSED, Intake
from uthctl.wire.mqtt import BrokerDown, Client, read_credentials

WAIT_S = 10.0


def account(floor_dir, user):
    return read_credentials(floor_dir.credentials(user))


def connected(broker, who, **options):
    # Connected, and its subscriptions acknowledged by the broker (SUBACK).
    client = Client(broker.url, who, **options).start()
    assert client.subscribed.wait(WAIT_S), "no connection as %s" % who[0]
    return client


class Listener:
    # The floor's account on uth/#: every message that reaches a subscriber.
    def __init__(self, broker, floor_dir):
        self.got = []
        self.arrived = threading.Condition()
        self.client = connected(broker, account(floor_dir, FLOOR_USER), on_message=self._take,
                                subscriptions=("uth/#",))

    def _take(self, name, payload):
        with self.arrived:
            self.got.append((name, payload))
            self.arrived.notify_all()

    def wait_for(self, name):
        with self.arrived:
            assert self.arrived.wait_for(lambda: any(n == name for n, _ in self.got), WAIT_S), \
                "nothing on %s" % name
        return [p for n, p in self.got if n == name]


def test_an_anonymous_client_is_refused(broker):
    refused = threading.Event()
    anonymous = paho.Client(CallbackAPIVersion.VERSION2, client_id="anonymous")
    anonymous.on_connect = lambda c, d, f, reason, p: reason.is_failure and refused.set()
    anonymous.connect("127.0.0.1", broker.port)
    anonymous.loop_start()
    try:
        assert refused.wait(WAIT_S), "the broker let an anonymous client in"
        assert not anonymous.is_connected()
    finally:
        anonymous.loop_stop()


def test_a_wrong_password_is_refused(broker, floor_dir):
    user, _ = account(floor_dir, "table-3")
    refused = threading.Event()  # the broker's answer, however long its hash check takes
    client = Client(broker.url, (user, "not-the-password"))
    client.on_refused = refused.set
    client.start()
    try:
        assert refused.wait(WAIT_S), "no answer to a wrong password"
        assert not client.connected.is_set() and client.refused is not None
        with pytest.raises(BrokerDown):
            client.publish(topic("3"), b"{}")
    finally:
        client.stop()


def test_table_3_publishing_as_table_4_is_refused(broker, floor_dir):
    listener = Listener(broker, floor_dir)
    three = connected(broker, account(floor_dir, "table-3"))
    try:
        record = records(1)[0]
        for kind in ("event", "meters", "status"):
            three.publish(topic("4", kind), message("4", record))
        three.publish(topic("3"), message("3", record))  # its own: arrives, after the rest
        listener.wait_for(topic("3"))
        assert [name for name, _ in listener.got if "/4/" in name] == []
    finally:
        three.stop()
        listener.client.stop()


def test_a_table_reads_only_its_own_command_topic(broker, floor_dir):
    heard = []
    three = connected(broker, account(floor_dir, "table-3"),
                      on_message=lambda name, payload: heard.append(name),
                      subscriptions=(topic("3", "command"), topic("4", "command"), "uth/#"))
    floor = connected(broker, account(floor_dir, FLOOR_USER))
    try:
        floor.publish(topic("4", "command"), b'{"cmd": "meters"}')
        floor.publish(topic("3", "command"), b'{"cmd": "meters"}')
        deadline = time.monotonic() + WAIT_S
        while topic("3", "command") not in heard and time.monotonic() < deadline:
            time.sleep(0.05)
        assert heard == [topic("3", "command")]
    finally:
        three.stop()
        floor.stop()


def test_passwords_are_hashed_in_the_broker_file(floor_dir, need_mosquitto):
    floor_dir.add_table("7")
    _, password = account(floor_dir, "table-7")
    text = floor_dir.password_file.read_text()
    assert password not in text
    line = [row for row in text.splitlines() if row.startswith("table-7:")][0]
    assert line.split(":", 1)[1].startswith("$7$")  # Mosquitto's PBKDF2-SHA512
    assert (floor_dir.credentials("table-7").stat().st_mode & 0o077) == 0


def test_a_forged_record_with_valid_credentials_is_refused_by_the_chain(broker, floor_dir,
                                                                        store):
    listener = Listener(broker, floor_dir)
    three = connected(broker, account(floor_dir, "table-3"))
    try:
        chain = records(3)
        forged = dict(chain[2], value=999_999)  # seq, prev and hash as the real one's
        for record in (chain[0], chain[1], forged):
            three.publish(topic("3"), message("3", record))
        arrived = listener.wait_for(topic("3"))
        while len(arrived) < 3:
            time.sleep(0.05)
            arrived = [p for n, p in listener.got if n == topic("3")]
    finally:
        three.stop()
        listener.client.stop()
    intake = Intake(store, CASINO)
    assert [intake.take(topic("3"), payload) for payload in arrived] == [
        ACCEPTED, ACCEPTED, REFUSED]
    assert store.records("3") == chain[:2]
    assert json.loads(store.refusals()[0]["payload"])["record"]["value"] == 999_999


def test_the_audit_may_ask_the_tables_and_read_their_events_only(broker, floor_dir):
    # Its own account: it cannot speak as a table, nor read what the tables
    # send on meters and status (the floor's), only their events and answers.
    heard = []
    audit = connected(broker, account(floor_dir, AUDIT_USER),
                      on_message=lambda name, payload: heard.append((name, payload)),
                      subscriptions=(topic("+"), "uth/#"))  # what it may, and all
    listener = Listener(broker, floor_dir)
    three = connected(broker, account(floor_dir, "table-3"))
    try:
        audit.publish(topic("3"), message("3", records(1)[0]))  # a record as table 3
        audit.publish(topic("3", "command"), b'{"cmd": "head", "nonce": "00"}')
        assert listener.wait_for(topic("3", "command"))
        assert [name for name, _ in listener.got if name == topic("3")] == []
        deadline = time.monotonic() + WAIT_S
        for kind in ("meters", "status"):
            three.publish(topic("3", kind), b'{"table": "3"}')
        three.publish(topic("3"), b'{"table": "3", "event": {"ev": "last"}}')
        while not any(b"last" in payload for _, payload in heard):
            assert time.monotonic() < deadline, "the audit heard no table event"
            time.sleep(0.05)
        assert {name for name, _ in heard} == {topic("3")}
    finally:
        for client in (audit, listener.client, three):
            client.stop()


def test_a_message_sent_once_the_subscription_is_acknowledged_always_arrives(broker, floor_dir):
    # `subscribed` is set by the broker's SUBACK, not by the connection: a
    # message published the moment it is set reaches the new subscriber,
    # each of 10 times, with no sleep between.
    three = connected(broker, account(floor_dir, "table-3"))
    try:
        for attempt in range(10):
            listener = Listener(broker, floor_dir)
            try:
                three.publish(topic("3"), b'{"table": "3", "event": {"n": %d}}' % attempt)
                assert len(listener.wait_for(topic("3"))) == 1
            finally:
                listener.client.stop()
    finally:
        three.stop()
