# Each broker account is only itself (issue 25, point 3), on a real
# Mosquitto configured by `uthctl floor` and on the embedded amqtt broker:
# another account cannot take the floor's client id and knock it off; one
# table's connect/subscribe/leave churn neither breaks the embedded broker
# nor costs another table a record; a new table's account works after
# `add-table` with no hand-made reload; a bridge refused by the broker says
# why, once.
import io
import threading
import time

import paho.mqtt.client as paho
import pytest
from chains import topic
from paho.mqtt.enums import CallbackAPIVersion
from test_broker_security import WAIT_S, Listener, account, connected

from uthctl import event_log
from uthctl.bridge.table_bridge import Bridge
from uthctl.cli import main as uthctl
from uthctl.wire.mqtt import Client

RECORDS = 30


def attempt(broker, who, client_id):
    # One CONNECT with this account and client id; the broker's answer, and
    # whether it still has us a moment later.
    answered = threading.Event()
    attacker = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                           protocol=paho.MQTTv311)
    attacker.username_pw_set(*who)
    attacker.on_connect = lambda _c, _d, _f, _reason, _p: answered.set()
    attacker.connect("127.0.0.1", broker.port)
    attacker.loop_start()
    try:
        assert answered.wait(WAIT_S), "no answer to the CONNECT"
        time.sleep(0.1)
    finally:
        attacker.disconnect()
        attacker.loop_stop()


def publish_records(four, count):
    for index in range(count):
        four.publish(topic("4"), b'{"n": %d}' % index)


def test_another_account_cannot_take_the_floors_client_id(broker, floor_dir):
    listener = Listener(broker, floor_dir)  # the floor's account, as the floor connects
    reconnections = []
    listener.client.on_up = lambda: reconnections.append(time.monotonic())
    floors_id = listener.client.paho._client_id.decode()
    four = connected(broker, account(floor_dir, "table-4"))
    try:
        for _ in range(5):
            attempt(broker, account(floor_dir, "table-3"), floors_id)
            publish_records(four, RECORDS // 5)
        published = [topic("4")] * RECORDS
        deadline = time.monotonic() + WAIT_S
        while len(listener.got) < RECORDS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [name for name, _ in listener.got] == published
        assert reconnections == [] and listener.client.connected.is_set()
    finally:
        four.stop()
        listener.client.stop()


def test_a_wrong_password_with_the_floors_client_id_does_not_touch_its_session(broker,
                                                                               floor_dir):
    listener = Listener(broker, floor_dir)
    floors_id = listener.client.paho._client_id.decode()
    four = connected(broker, account(floor_dir, "table-4"))
    try:
        attempt(broker, (floors_id, "not-the-password"), floors_id)
        publish_records(four, 3)
        assert len(listener.wait_for(topic("4"))) >= 1
        deadline = time.monotonic() + WAIT_S
        while len(listener.got) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(listener.got) == 3 and listener.client.connected.is_set()
    finally:
        four.stop()
        listener.client.stop()


def churn(broker, who, stop, cycles, per_s=3.0):
    # Connect, subscribe, leave, at most per_s times a second, until stop is
    # set; each cycle done is appended to cycles.
    step, started = 1.0 / per_s, time.monotonic()
    while not stop.is_set():
        subscribed = threading.Event()
        client = paho.Client(CallbackAPIVersion.VERSION2, client_id=who[0],
                             protocol=paho.MQTTv311)
        client.username_pw_set(*who)
        client.on_connect = lambda c, _d, _f, _r, _p: c.subscribe(
            [(topic("3", "command"), 1), ("uth/#", 1)])
        client.on_subscribe = lambda *_args, done=subscribed: done.set()
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        subscribed.wait(WAIT_S)
        client.disconnect()
        client.loop_stop()
        cycles.append(time.monotonic())
        stop.wait(max(0.0, started + len(cycles) * step - time.monotonic()))


def test_the_embedded_broker_survives_one_tables_churn(tmp_path, floor_dir):
    from servers import free_port

    from uthctl.floor.embedded import EmbeddedBroker

    for table in ("3", "4"):
        floor_dir.add_table(table)
    broker = EmbeddedBroker(floor_dir, free_port()).start()
    failures = []
    broker.loop.set_exception_handler(lambda _loop, context: failures.append(context))
    listener = Listener(broker, floor_dir)
    four = connected(broker, account(floor_dir, "table-4"))
    stop, cycles, sent = threading.Event(), [], 0
    churner = threading.Thread(target=churn, args=(broker, account(floor_dir, "table-3"),
                                                   stop, cycles))
    churner.start()
    try:
        # Table 4 publishes all through 15 of table 3's cycles (5 s at 3 a
        # second; longer where the password hash is slow).
        deadline = time.monotonic() + 60.0
        while len(cycles) < 15 and time.monotonic() < deadline:
            publish_records(four, 1)
            sent += 1
            time.sleep(0.2)
    finally:
        stop.set()
        churner.join(WAIT_S * 2)
        four.stop()
    try:
        deadline = time.monotonic() + WAIT_S
        while len(listener.got) < sent and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(cycles) >= 15, "table 3's churn stalled"
        assert [name for name, _ in listener.got].count(topic("4")) == sent
        assert [str(context.get("exception")) for context in failures] == []
    finally:
        listener.client.stop()
        broker.stop()


def test_a_new_tables_account_works_after_add_table_without_a_manual_reload(
        tmp_path, floor_dir, need_mosquitto, capsys):
    import servers

    port = servers.free_port()
    config = floor_dir.broker_config(port)
    server = servers.Mosquitto(config, port, tmp_path / "mosquitto.log").start()
    pid_file = floor_dir.pid_file
    try:
        deadline = time.monotonic() + WAIT_S
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert uthctl(["floor", "--dir", str(floor_dir.folder), "add-table", "5"]) == 0
        five = Client(server.url, account(floor_dir, "table-5")).start()
        try:
            assert five.connected.wait(WAIT_S), "table 5 refused: %s" % five.refused
        finally:
            five.stop()
        said = capsys.readouterr().out
        assert "Mosquitto (pid %d) reloaded" % server.process.pid in said
    finally:
        server.kill()


def test_add_table_says_what_to_run_when_no_broker_of_its_own_runs(floor_dir, capsys):
    assert uthctl(["floor", "--dir", str(floor_dir.folder), "add-table", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    pid_file = floor_dir.pid_file
    # No broker of the folder yet (add-table before broker-config, as the README's
    # order has it): the broker started next reads the account; no pid to signal.
    assert len(lines) == 3 and "no Mosquitto of this floor is running (none in %s)" % pid_file \
        in lines[2]
    assert "$(cat" not in lines[2]
    assert lines[1].startswith("table's record key file: %s" % floor_dir.folder)


def test_a_bridge_refused_by_the_broker_says_why_once(broker, floor_dir, tmp_path):
    floor_dir.add_table("5")  # after the broker read its accounts, and not reloaded
    said = io.StringIO()
    bridge = Bridge(str(tmp_path / "no-board"), broker.url, account(floor_dir, "table-5"),
                    "riverside", "5", tmp_path / "bridge-5.json")
    refusals = []
    answered = bridge.client.paho.on_connect

    def counted(client, data, flags, reason, properties):
        if reason.is_failure:
            refusals.append(reason)
        answered(client, data, flags, reason, properties)

    bridge.client.paho.on_connect = counted
    stop = threading.Event()
    running = threading.Thread(target=bridge.run, args=(stop,))
    with event_log.to_stderr(said):
        running.start()
        try:
            deadline = time.monotonic() + 3 * WAIT_S
            while len(refusals) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(refusals) >= 3, "the broker did not refuse table 5 three times"
        finally:
            stop.set()
            running.join(WAIT_S)
    line = (" ERROR uthctl.bridge.5: not authorised: table 5's account is not in the broker's "
            "password file (reload the broker after add-table)")
    assert [text.endswith(line) for text in said.getvalue().splitlines()].count(True) == 1


@pytest.mark.parametrize("words", ["use_username_as_clientid true", "pid_file "])
def test_the_mosquitto_configuration_binds_client_ids_and_keeps_a_pid(floor_dir, words,
                                                                      need_mosquitto):
    assert words in floor_dir.broker_config(1883).read_text()
