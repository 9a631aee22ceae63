# The fast pass of the host link's JSON check, in plain Python: the twin of
# jsonscan_viper, which the board runs, and what CPython runs. It answers
# only "surely JSON" or "not sure": scan() gives 1 for a line that is one JSON
# value with a number with a fraction or exponent in it (json.loads makes a
# float of it), 0 for one with none, and -1 for anything else: a line that
# breaks the grammar, and also any \u escape or byte past ASCII, which it
# leaves to jsoncheck's full walk. Every refusal, and its reason, is the full
# walk's, so the fast pass may say -1 wherever it likes but must never pass a
# line the walk would refuse (tests/logic/test_jsonscan.py holds both to it).
# One flat loop: a key is a string before a ':', and the open containers
# are the bits of one int, as in jsoncheck.
from micropython import const

_MAX_DEPTH = const(16)  # jsoncheck.MAX_DEPTH


def _space(c):
    return c == 0x20 or c == 0x0A or c == 0x0D or c == 0x09


def _digit(c):
    return 0x30 <= c <= 0x39


def scan(data):
    end = len(data)
    at = stack = depth = floats = key = 0
    while True:
        while at < end and _space(data[at]):
            at += 1
        if at >= end:
            return -1
        c = data[at]
        if key and c != 0x22:
            return -1
        if c == 0x22:  # a string: ASCII, its escapes the simple ones
            at += 1
            while True:
                if at >= end:
                    return -1
                c = data[at]
                if c == 0x22:
                    break
                if c == 0x5C:
                    at += 1
                    if at >= end or data[at] not in b'"\\/bfnrt':
                        return -1
                elif c < 0x20 or c >= 0x80:
                    return -1
                at += 1
            at += 1
            if key:  # a member name: its ':' then the value
                while at < end and _space(data[at]):
                    at += 1
                if at >= end or data[at] != 0x3A:
                    return -1
                at += 1
                key = 0
                continue
        elif c == 0x5B or c == 0x7B:
            depth += 1
            if depth > _MAX_DEPTH:
                return -1
            stack = (stack << 1) | (1 if c == 0x7B else 0)
            at += 1
            while at < end and _space(data[at]):
                at += 1
            if at >= end:
                return -1
            if data[at] != (0x7D if stack & 1 else 0x5D):
                key = stack & 1
                continue
            # Empty: closed below.
        elif c == 0x2D or _digit(c):
            if c == 0x2D:
                at += 1
                if at >= end:
                    return -1
                c = data[at]
            if c == 0x30:
                at += 1
            elif _digit(c):
                while at < end and _digit(data[at]):
                    at += 1
            else:
                return -1
            if at < end and data[at] == 0x2E:  # .
                floats = 1
                at += 1
                if at >= end or not _digit(data[at]):
                    return -1
                while at < end and _digit(data[at]):
                    at += 1
            if at < end and (data[at] == 0x65 or data[at] == 0x45):  # e E
                floats = 1
                at += 1
                if at < end and (data[at] == 0x2B or data[at] == 0x2D):
                    at += 1
                if at >= end or not _digit(data[at]):
                    return -1
                while at < end and _digit(data[at]):
                    at += 1
        else:
            word = b"true" if c == 0x74 else b"false" if c == 0x66 else b"null" if c == 0x6E \
                else None
            if word is None or bytes(data[at:at + len(word)]) != word:
                return -1
            at += len(word)
        # After a value: close what it completes; a comma starts the next.
        while True:
            while at < end and _space(data[at]):
                at += 1
            if depth == 0:
                return floats if at == end else -1
            if at >= end:
                return -1
            c = data[at]
            if c == 0x2C:
                break
            if c != (0x7D if stack & 1 else 0x5D):
                return -1
            stack >>= 1
            depth -= 1
            at += 1
        at += 1
        key = stack & 1
