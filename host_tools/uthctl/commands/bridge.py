# uthctl bridge --port PORT --broker mqtt://HOST:PORT --table ID
#   --casino NAME --credentials FILE [--state FILE] [--every S]:
# the table's board onto the floor's broker (uthctl/bridge/table_bridge.py). Ctrl-C ends it.
# What it does goes to stderr, one timestamped line an event (event_log.py).
from .. import event_log
from ..bridge.table_bridge import Bridge
from ..errors import expecting
from ..links import ports
from ..wire import topics
from ..wire.mqtt import parse_broker, read_credentials
from .meters import seconds


def add_parser(sub):
    parser = sub.add_parser("bridge", help="publish the table's log records and meters to the "
                            "floor's MQTT broker (docs/floor.md)")
    ports.add_port(parser)
    parser.add_argument("--broker", required=True, metavar="mqtt://HOST:PORT")
    parser.add_argument("--table", required=True, metavar="ID")
    parser.add_argument("--casino", required=True, metavar="NAME")
    parser.add_argument("--credentials", required=True, metavar="FILE",
                        help="the table's account, as `uthctl floor add-table` wrote it")
    parser.add_argument("--cafile", metavar="FILE",
                        help="with mqtts://: the CA that signed the broker's certificate")
    parser.add_argument("--state", metavar="FILE",
                        help="where the last published record is kept "
                             "(default bridge-TABLE.json)")
    parser.add_argument("--every", type=seconds, default=60.0, metavar="S",
                        help="seconds between meters snapshots (default 60)")
    parser.add_argument("--timeout", type=seconds, default=5.0, metavar="S",
                        help="seconds to wait for a reply from the board")
    return parser


@expecting(OSError)
def run(args):
    """uthctl bridge: publish the table's log records and meters to the floor's broker."""
    table = topics.check_name(args.table)
    topics.check_name(args.casino, "casino")
    parse_broker(args.broker)  # before the account is read: a URL holding one is refused
    bridge = Bridge(args.port, args.broker, read_credentials(args.credentials), args.casino,
                    table, args.state or "bridge-%s.json" % table, every=args.every,
                    timeout=args.timeout, cafile=args.cafile)
    with event_log.to_stderr():
        try:
            bridge.run()
        except KeyboardInterrupt:
            pass
    return 0
