# The fast pass of the host link's JSON check compiled by MicroPython's viper
# emitter: jsonscan_plain's scan() (whose header says what it answers), step
# for step, over the line's bytes in place. One function, as viper-to-viper
# calls box their arguments; it allocates nothing. The tests hold it to its
# twin on random and adversarial lines (tests/logic/test_jsonscan.py).
import micropython
from micropython import const

_MAX_DEPTH = const(16)  # jsoncheck.MAX_DEPTH


@micropython.viper
def scan(data) -> int:
    buf = ptr8(data)  # noqa: F821 (a viper built-in)
    end = int(len(data))
    at = 0
    stack = 0
    depth = 0
    floats = 0
    key = 0
    while True:
        while at < end and (buf[at] == 0x20 or buf[at] == 0x0A or buf[at] == 0x0D
                            or buf[at] == 0x09):
            at += 1
        if at >= end:
            return -1
        c = buf[at]
        if key and c != 0x22:
            return -1
        if c == 0x22:
            at += 1
            while True:
                if at >= end:
                    return -1
                c = buf[at]
                if c == 0x22:
                    break
                if c == 0x5C:
                    at += 1
                    if at >= end:
                        return -1
                    c = buf[at]
                    if not (c == 0x22 or c == 0x5C or c == 0x2F or c == 0x62 or c == 0x66
                            or c == 0x6E or c == 0x72 or c == 0x74):
                        return -1
                elif c < 0x20 or c >= 0x80:
                    return -1
                at += 1
            at += 1
            if key:
                while at < end and (buf[at] == 0x20 or buf[at] == 0x0A or buf[at] == 0x0D
                                    or buf[at] == 0x09):
                    at += 1
                if at >= end or buf[at] != 0x3A:
                    return -1
                at += 1
                key = 0
                continue
        elif c == 0x5B or c == 0x7B:
            depth += 1
            if depth > _MAX_DEPTH:
                return -1
            stack = stack << 1
            if c == 0x7B:
                stack = stack | 1
            at += 1
            while at < end and (buf[at] == 0x20 or buf[at] == 0x0A or buf[at] == 0x0D
                                or buf[at] == 0x09):
                at += 1
            if at >= end:
                return -1
            c = buf[at]
            if stack & 1:
                if c != 0x7D:
                    key = 1
                    continue
            elif c != 0x5D:
                continue
        elif c == 0x2D or (c >= 0x30 and c <= 0x39):
            if c == 0x2D:
                at += 1
                if at >= end:
                    return -1
                c = buf[at]
            if c == 0x30:
                at += 1
            elif c >= 0x31 and c <= 0x39:
                while at < end and buf[at] >= 0x30 and buf[at] <= 0x39:
                    at += 1
            else:
                return -1
            if at < end and buf[at] == 0x2E:
                floats = 1
                at += 1
                if at >= end or buf[at] < 0x30 or buf[at] > 0x39:
                    return -1
                while at < end and buf[at] >= 0x30 and buf[at] <= 0x39:
                    at += 1
            if at < end and (buf[at] == 0x65 or buf[at] == 0x45):
                floats = 1
                at += 1
                if at < end and (buf[at] == 0x2B or buf[at] == 0x2D):
                    at += 1
                if at >= end or buf[at] < 0x30 or buf[at] > 0x39:
                    return -1
                while at < end and buf[at] >= 0x30 and buf[at] <= 0x39:
                    at += 1
        elif c == 0x74:
            if (at + 3 >= end or buf[at + 1] != 0x72 or buf[at + 2] != 0x75
                    or buf[at + 3] != 0x65):
                return -1
            at += 4
        elif c == 0x66:
            if (at + 4 >= end or buf[at + 1] != 0x61 or buf[at + 2] != 0x6C
                    or buf[at + 3] != 0x73 or buf[at + 4] != 0x65):
                return -1
            at += 5
        elif c == 0x6E:
            if (at + 3 >= end or buf[at + 1] != 0x75 or buf[at + 2] != 0x6C
                    or buf[at + 3] != 0x6C):
                return -1
            at += 4
        else:
            return -1
        while True:
            while at < end and (buf[at] == 0x20 or buf[at] == 0x0A or buf[at] == 0x0D
                                or buf[at] == 0x09):
                at += 1
            if depth == 0:
                if at == end:
                    return floats
                return -1
            if at >= end:
                return -1
            c = buf[at]
            if c == 0x2C:
                break
            if stack & 1:
                if c != 0x7D:
                    return -1
            elif c != 0x5D:
                return -1
            stack = stack >> 1
            depth -= 1
            at += 1
        at += 1
        key = stack & 1
