# Moved to uthctl.wire.mqtt (the wire the bridge and the floor share); kept
# so that scripts importing uthctl.floor.mqtt go on working.
from ..wire.mqtt import (  # noqa: F401
    ACCOUNT_REFUSED,
    ACK_WAIT_S,
    KEEPALIVE_S,
    BrokerDown,
    Client,
    WireConfigError,
    parse_broker,
    read_credentials,
    write_credentials,
)
