# Off loopback the broker listens with TLS only: a TLS listener beside the
# loopback one, its certificate from a throwaway CA the test makes with
# openssl; a client that trusts that CA gets through, a client that does not
# (or speaks plain MQTT to it) is refused, and plain MQTT to anything but
# loopback is refused by the clients themselves.
import shutil
import subprocess
import time

import pytest
import servers
from test_broker_security import Listener, account

from uthctl.floor.mqtt import Client

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")


def openssl(*argv, cwd):
    subprocess.run(["openssl", *argv], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def certificates(tmp_path):
    folder = tmp_path / "ca"
    folder.mkdir()
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=throwaway floor CA", "-keyout", "ca.key", "-out", "ca.crt", cwd=folder)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
            "server.key", "-out", "server.csr", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt",
            cwd=folder)
    return folder


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


@pytest.mark.parametrize("how", ["untrusted certificate", "plain MQTT"])
def test_a_client_without_tls_or_the_ca_is_refused(tls_broker, floor_dir, how):
    _, tls_url, plain_url = tls_broker
    url = tls_url if how == "untrusted certificate" else plain_url
    client = Client(url, account(floor_dir, "table-3")).start()  # system CAs only
    try:
        time.sleep(2.0)
        assert not client.connected.is_set()
    finally:
        client.stop()
