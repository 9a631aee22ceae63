# The embedded broker for one host with nothing installed: amqtt (pure
# Python, MIT), run in a thread of `uthctl floor --embedded-broker PORT` on
# 127.0.0.1, with the floor folder's accounts (passwd.amqtt, Argon2 hashes)
# and the same topic rules as Mosquitto's ACL; anonymous clients refused;
# each client's id its account's name, and amqtt's churn bug guarded
# (amqtt_guard.py).
import asyncio
import threading
import warnings

START_WAIT_S = 10.0
# amqtt 0.12's ACL plugin reads the subscribe rules only from its "acl" key
# (its configuration has no "subscribe_acl" field), and warns that the key is old.
warnings.filterwarnings("ignore", message="The 'acl' option is deprecated",
                        category=DeprecationWarning)


def broker_config(accounts, port):
    publish, subscribe = accounts.acl()
    return {
        "listeners": {"default": {"type": "tcp", "bind": "127.0.0.1:%d" % port}},
        "plugins": {
            "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": False},
            "amqtt.plugins.authentication.FileAuthPlugin": {
                "password_file": str(accounts.embedded_password_file)},
            "amqtt.plugins.topic_checking.TopicAccessControlListPlugin": {
                "publish_acl": publish, "acl": subscribe},
        },
    }


class EmbeddedBroker:
    def __init__(self, accounts, port):
        self.config = broker_config(accounts, port)
        self.port = port
        self.loop = None
        self.broker = None
        self.thread = None
        self.failed = None

    @property
    def url(self):
        return "mqtt://127.0.0.1:%d" % self.port

    def start(self):
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        if not ready.wait(START_WAIT_S) or self.failed:
            raise OSError("the embedded broker did not start: %s" % (self.failed or "no answer"))
        return self

    def _run(self, ready):
        from amqtt.broker import Broker

        from . import amqtt_guard

        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        try:
            self.broker = amqtt_guard.apply(Broker(self.config, loop=self.loop))
            self.loop.run_until_complete(self.broker.start())
        except Exception as error:  # noqa: BLE001 -- reported by start(), in the caller's thread
            self.failed = "%s: %s" % (type(error).__name__, error)
            ready.set()
            return
        ready.set()
        self.loop.run_forever()

    def stop(self):
        if self.loop is None or self.broker is None:
            return
        future = asyncio.run_coroutine_threadsafe(self.broker.shutdown(), self.loop)
        future.result(START_WAIT_S)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(START_WAIT_S)
