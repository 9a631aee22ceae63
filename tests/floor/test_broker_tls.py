# Off loopback the broker listens with TLS only: a TLS listener beside the
# loopback one, its certificate from a throwaway CA the test makes with
# openssl; a client that trusts that CA gets through, a client that does not
# (or speaks plain MQTT to it) is refused, and plain MQTT to anything but
# loopback is refused by the clients themselves.
import os
import shutil
import socket
import ssl
import subprocess
import threading

import pytest
import servers
from test_broker_security import Listener, account

from uthctl.floor import broker_user
from uthctl.wire.mqtt import Client

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")


def openssl(*argv, cwd):
    subprocess.run(["openssl", *argv], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def certificates(reachable):
    folder = reachable / "ca"  # where the broker's user reaches its key
    folder.mkdir()
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=throwaway floor CA", "-keyout", "ca.key", "-out", "ca.crt", cwd=folder)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
            "server.key", "-out", "server.csr", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt",
            cwd=folder)
    share_with_broker(folder / "server.key")  # as README's TLS steps have it
    return folder


def share_with_broker(path):
    # The key for its owner and the broker's group alone (chgrp mosquitto,
    # chmod 640), where the broker runs as a user of its own.
    user = broker_user.default_user(path.parent)
    group = broker_user.group_for(user)
    if group is not None:
        os.chown(path, -1, group)
        os.chmod(path, 0o640)


@pytest.fixture
def tls_broker(floor_dir, certificates, tmp_path, need_mosquitto):
    floor_dir.add_table("3")
    port, tls_port = servers.free_port(), servers.free_port()
    config = floor_dir.broker_config(port, tls={
        "port": tls_port, "bind": "127.0.0.1", "cafile": certificates / "ca.crt",
        "certfile": certificates / "server.crt", "keyfile": certificates / "server.key"})
    server = servers.Mosquitto(config, port, tmp_path / "mosquitto.log").start()
    yield server, "mqtts://127.0.0.1:%d" % tls_port, "mqtt://127.0.0.1:%d" % tls_port
    server.kill()


def test_a_client_that_trusts_the_ca_publishes_over_tls(tls_broker, floor_dir, certificates):
    broker, tls_url, _ = tls_broker
    listener = Listener(broker, floor_dir)  # on the loopback listener
    three = Client(tls_url, account(floor_dir, "table-3"),
                   cafile=str(certificates / "ca.crt")).start()
    try:
        assert three.connected.wait(10.0)
        three.publish("uth/riverside/3/status", b'{"table": "3", "status": "online"}')
        assert listener.wait_for("uth/riverside/3/status")
    finally:
        three.stop()
        listener.client.stop()


# MQTT 3.1.1's CONNECT for client id "t", clean session, keepalive 60 s.
PLAIN_CONNECT = b"\x10\x0d\x00\x04MQTT\x04\x02\x00\x3c\x00\x01t"
TLS_ALERT = 0x15  # a TLS record of the alert protocol
HANG_S = 60.0  # bounds a hang only: each refusal comes at once


def tls_address(url):
    host, port = url.rsplit("/", 1)[1].split(":")
    return host, int(port)


def test_a_client_without_the_ca_is_refused_by_its_own_tls_check(tls_broker, floor_dir):
    # The floor's client with the system's CAs only: its TLS check refuses the
    # broker's certificate, and paho says the connection failed (not merely
    # "not yet connected"). The same check made here by hand names the cause.
    _, tls_url, _ = tls_broker
    with socket.create_connection(tls_address(tls_url), timeout=HANG_S) as sock:
        with pytest.raises(ssl.SSLCertVerificationError, match="certificate verify failed"):
            ssl.create_default_context().wrap_socket(sock, server_hostname="127.0.0.1")
    failed = threading.Event()
    client = Client(tls_url, account(floor_dir, "table-3"))
    client.paho.on_connect_fail = lambda _client, _data: failed.set()
    client.start()
    try:
        assert failed.wait(HANG_S), "no failed connection seen"
        assert not client.connected.is_set()
    finally:
        client.stop()


def test_plain_mqtt_to_the_tls_listener_is_refused(tls_broker):
    # A CONNECT in the clear to the TLS port: the broker's TLS layer refuses
    # it (at most a TLS alert, then the connection closed or reset), never a
    # CONNACK (0x20). The loopback listener, plain, answers the same bytes
    # with a CONNACK: the probe can tell the two apart.
    broker, _, plain_url = tls_broker
    answer = exchange(tls_address(plain_url))
    assert answer in (b"", b"reset") or answer[0] == TLS_ALERT, answer
    assert exchange(("127.0.0.1", broker.port))[0] == 0x20


def exchange(address):
    # What the listener at address answers PLAIN_CONNECT with, until it closes
    # the connection ("reset" if it resets it with nothing said) or a CONNACK's
    # four bytes have come.
    with socket.create_connection(address, timeout=HANG_S) as sock:
        sock.sendall(PLAIN_CONNECT)
        answer = b""
        try:
            while len(answer) < 4 and (chunk := sock.recv(4096)):
                answer += chunk
        except ConnectionResetError:
            return answer or b"reset"
    return answer
