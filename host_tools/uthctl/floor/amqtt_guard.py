# Two guards on amqtt 0.12.1 (the newest release; pinned in pyproject.toml),
# applied by embedded.py before its broker starts; docs/floor-setup.md "The
# embedded broker" says why each is needed.
#
# 1. Each account is only itself. amqtt looks a CONNECT's client id up, and
#    with a clean session deletes that id's session and subscriptions, or
#    takes its live connection over, before it checks the password. So any
#    client, even one with a wrong password, could knock the floor off by
#    using its id. Here the CONNECT is refused (NOT_AUTHORIZED) unless its
#    client id is its user name and the password plugins accept it, before
#    amqtt touches any session: Mosquitto's use_username_as_clientid.
# 2. Churn. amqtt walks its subscriptions and retained messages with an
#    await inside the loop, so a client that subscribes or leaves meanwhile
#    makes the walk raise "dictionary changed size during iteration" and the
#    message being sent is lost to the subscribers not yet reached. Here
#    both are dicts whose walks go over a copy taken when the walk starts.
import asyncio

import amqtt
import amqtt.broker
from amqtt.errors import MQTTError
from amqtt.mqtt.connack import NOT_AUTHORIZED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler


class AccountBoundHandler(BrokerProtocolHandler):
    @classmethod
    async def init_from_connect(cls, reader, writer, plugins_manager, loop=None):
        handler, session = await super().init_from_connect(reader, writer, plugins_manager,
                                                           loop)
        if session.client_id != session.username or not await _accepted(plugins_manager,
                                                                         session):
            await ConnackPacket.build(0, NOT_AUTHORIZED).to_stream(writer)
            await writer.close()
            raise MQTTError("refused client id %r for user %r: not its own, or a wrong "
                            "password" % (session.client_id, session.username))
        return handler, session


async def _accepted(plugins_manager, session):
    # As amqtt's Broker._authenticate decides: every plugin that answers says
    # yes. In a thread of its own: an Argon2 check takes a core for a good
    # part of a second, and on the broker's loop it held up every client.
    answers = await asyncio.to_thread(asyncio.run,
                                      plugins_manager.map_plugin_auth(session=session))
    said = [answer for answer in (answers or {}).values() if answer is not None]
    return bool(said) and all(said)


async def _checked_at_connect(session, _listener):
    # amqtt's own check, after the session work: every CONNECT has passed
    # AccountBoundHandler's (the password's hash once) or was refused there.
    return session.username is not None and session.client_id == session.username


class WalkedOnACopy(dict):
    # Iteration sees the entries as they were when it began; an entry's list
    # (a filter's subscribers) is copied too, as amqtt pops from it in place.
    def __iter__(self):
        return iter(list(dict.keys(self)))

    def keys(self):
        return list(dict.keys(self))

    def values(self):
        return [_copied(value) for value in dict.values(self)]

    def items(self):
        return [(key, _copied(value)) for key, value in dict.items(self)]


def _copied(value):
    return list(value) if isinstance(value, list) else value


GUARDED_VERSION = "0.12.1"  # the release whose code the guards were written against


def apply(broker):
    # The handler class is looked up by amqtt.broker at each connection.
    if amqtt.__version__ != GUARDED_VERSION:
        raise OSError("amqtt %s: the embedded broker's guards are for amqtt %s only (make "
                      "setup installs it); or use Mosquitto" % (amqtt.__version__,
                                                                GUARDED_VERSION))
    amqtt.broker.BrokerProtocolHandler = AccountBoundHandler
    broker._authenticate = _checked_at_connect
    broker._subscriptions = WalkedOnACopy(broker._subscriptions)
    broker._retained_messages = WalkedOnACopy(broker._retained_messages)
    return broker
