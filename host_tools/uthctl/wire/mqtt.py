# The floor's MQTT clients (paho-mqtt 2.x, docs/floor-design.md "Libraries, and
# why"): a broker URL, an account read from a credentials file (never the
# command line), and paho's own network thread, which reconnects by itself.
import ipaddress
import json
import os
import stat
import threading
from urllib.parse import urlparse

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from ..errors import InputError
from ..private_file import write_private

ACK_WAIT_S = 5.0  # the longest a publish waits for the broker's PUBACK
KEEPALIVE_S = 5  # a dead link (a killed broker) found within about 1.5 x this


class BrokerDown(OSError):
    pass


class WireConfigError(InputError):
    # A broker URL or a credentials file that cannot be used.
    pass


# CONNACK's "bad user name or password" and "not authorized" (MQTT 3.1.1's
# 4 and 5, as paho 2 gives them in MQTT 5's numbers).
ACCOUNT_REFUSED = (134, 135)
SCHEMES = {"mqtt": (1883, False), "mqtts": (8883, True)}  # default port, TLS


def parse_broker(url):
    # (host, port, tls) of mqtt://HOST:PORT or, with TLS, mqtts://HOST:PORT.
    parsed = urlparse(url)
    if parsed.scheme not in SCHEMES or not parsed.hostname:
        raise WireConfigError("--broker %s: give mqtt://HOST:PORT (loopback) or mqtts://HOST:PORT"
                              % url)
    if parsed.username or parsed.password:
        raise WireConfigError("--broker %s: no account in the URL; give --credentials FILE" % url)
    port, tls = SCHEMES[parsed.scheme]
    if not tls and not _loopback(parsed.hostname):
        raise WireConfigError("--broker %s: plain MQTT would send the account's password in the "
                              "clear; off loopback give mqtts://" % url)
    return parsed.hostname, parsed.port or port, tls


def _loopback(host):
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_credentials(path):
    # {"username": ..., "password": ...} from a file only its owner reads.
    try:
        mode = os.stat(path).st_mode
        with open(path) as stream:
            account = json.load(stream)
    except OSError as error:
        raise WireConfigError("--credentials %s: %s" % (path, error.strerror or error)) from None
    except ValueError:
        raise WireConfigError("--credentials %s is not JSON" % path) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise WireConfigError("--credentials %s can be read by others: chmod 600 it" % path)
    if not (isinstance(account, dict) and isinstance(account.get("username"), str)
            and isinstance(account.get("password"), str)):
        raise WireConfigError("--credentials %s: needs \"username\" and \"password\"" % path)
    return account["username"], account["password"]


def write_credentials(path, username, password):
    # For its owner alone, whole or not at all.
    write_private(path, json.dumps({"username": username, "password": password}))


class Client:
    # One account's connection; `connected` is set while the broker has us,
    # `subscribed` once it has also acknowledged (SUBACK) every subscription
    # made at that connection, so a message published after it reaches us;
    # on_up is called then, not before.
    # Its client id is its user name: both brokers bind the two (Mosquitto's
    # use_username_as_clientid, amqtt_guard), so no account takes another's id.
    # manual_ack: on_message(topic, payload, receipt) and no PUBACK until
    # ack(receipt) (paho's own sends it as on_message returns).
    def __init__(self, broker, account, will=None, on_message=None, subscriptions=(),
                 clean=True, cafile=None, manual_ack=False):
        self.host, self.port, tls = parse_broker(broker)
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self.refused = None  # the broker's reason when it refused the account
        self.subscriptions = subscriptions
        self._subscribing = None  # the SUBSCRIBE's message id, until its SUBACK
        self.paho = paho.Client(CallbackAPIVersion.VERSION2, client_id=account[0],
                                clean_session=clean, protocol=paho.MQTTv311)
        if tls:  # the broker's certificate checked against cafile (else the system's CAs)
            self.paho.tls_set(ca_certs=cafile)
        self.paho.username_pw_set(*account)
        self.paho.reconnect_delay_set(0.2, 2)
        if will is not None:
            topic, payload = will
            self.paho.will_set(topic, payload, qos=1, retain=True)
        self.paho.on_connect = self._on_connect
        self.paho.on_disconnect = self._on_disconnect
        self.paho.on_subscribe = self._on_subscribe
        self.on_up = None  # called (from paho's thread) at each connection, once subscribed
        self.on_refused = None  # called (from paho's thread) when the account is refused
        if on_message is not None and manual_ack:
            self.paho.manual_ack_set(True)
            self.paho.on_message = lambda _client, _data, message: on_message(
                message.topic, message.payload, (message.mid, message.qos))
        elif on_message is not None:
            self.paho.on_message = lambda _client, _data, message: on_message(
                message.topic, message.payload)

    def ack(self, receipt):
        # The PUBACK of a message taken with manual_ack (nothing for QoS 0);
        # one the connection it came on has lost is sent again by the broker.
        self.paho.ack(*receipt)

    def start(self):
        # connect_async: a broker that is down now is tried again and again.
        self.paho.connect_async(self.host, self.port, keepalive=KEEPALIVE_S)
        self.paho.loop_start()
        return self

    def stop(self):
        self.paho.disconnect()
        self.paho.loop_stop()

    def _on_connect(self, _client, _data, _flags, reason, _properties):
        if reason.is_failure:
            self.refused = str(reason)
            if reason.value in ACCOUNT_REFUSED and self.on_refused is not None:
                self.on_refused()
            return
        self.refused = None
        self.connected.set()
        if not self.subscriptions:
            self._up()
            return
        # One SUBSCRIBE for them all, so one SUBACK says they all hold.
        _, self._subscribing = self.paho.subscribe([(name, 1) for name in self.subscriptions])

    def _on_subscribe(self, _client, _data, mid, _reasons, _properties):
        # (Mosquitto grants in its SUBACK even what its ACL then keeps from
        # us, so the reasons say nothing the ACL's tests do not.)
        if mid == self._subscribing:
            self._subscribing = None
            self._up()

    def _up(self):
        self.subscribed.set()
        if self.on_up is not None:
            self.on_up()

    def _on_disconnect(self, _client, _data, _flags, _reason, _properties):
        self.connected.clear()
        self.subscribed.clear()

    def publish(self, topic, payload, retain=False):
        # Returns once the broker has acknowledged it (QoS 1); BrokerDown otherwise.
        if not self.connected.is_set():
            raise BrokerDown("not connected to the broker %s:%d" % (self.host, self.port))
        info = self.paho.publish(topic, payload, qos=1, retain=retain)
        try:
            info.wait_for_publish(ACK_WAIT_S)
        except (RuntimeError, ValueError) as error:
            raise BrokerDown("the broker took no message: %s" % error) from None
        if not info.is_published():
            raise BrokerDown("no acknowledgement from the broker within %.0f s" % ACK_WAIT_S)
