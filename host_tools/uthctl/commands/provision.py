# uthctl provision --port PORT --key-file F: gives the board the newest record
# key in the table's key file (docs/host-link.md, "Record keys"), in service
# mode (the key switch held). The board keeps it on its flash, signs every
# later log record with it and answers with the key's id alone, which must
# be the file's: the key itself never comes back, and is never printed.
import json

from table.controller import SERVICE

from ..analysis import record_auth
from ..errors import Refusal, UthctlError, expecting
from .boardquery import add_board_arguments, ask, open_link


def add_parser(sub):
    parser = sub.add_parser("provision", help="give the board its record key from the "
                            "table's key file (service mode)")
    parser.add_argument("--key-file", required=True, metavar="F",
                        help="the table's key file (mode 600; uthctl floor add-table writes "
                             "it): its newest key is given")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl provision: give the board its record key from the table's key file (service mode)."""
    kid, key = _newest_key(args.key_file)
    with open_link(args) as link:
        reply = provision(link, kid, key)
    if args.json:
        print(json.dumps({"key_id": reply["key_id"], "seq": reply["seq"]}))
    else:
        print("record key  %s given (log record %d); every later record is signed with it"
              % (reply["key_id"], reply["seq"]))
    return 0


def _newest_key(path):
    try:
        return record_auth.newest_key(path)
    except IndexError:
        raise UthctlError("key file %s holds no key" % path) from None
    except record_auth.KeyFileError as error:
        raise UthctlError(str(error)) from None


def provision(link, kid, key):
    # The board's reply once it holds the key named kid; Refusal when it will not.
    status = ask(link, "status")
    if status["state"] != SERVICE:
        raise Refusal("not given: a record key is given in service mode (hold the key "
                      "switch; the table is %s)" % status["state"])
    reply = ask(link, "provision", key=key)
    if reply.get("key_id") != kid:
        raise UthctlError("the board names the key it took %r, not the key file's %s: it is "
                          "not this table's firmware, or the link is not to be trusted"
                          % (reply.get("key_id"), kid))
    return reply
