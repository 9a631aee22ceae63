# The fast pass of the host link's JSON check compiled by MicroPython's viper
# emitter: jsonscan_plain's scan() (whose header says what it answers and
# how), step for step, over the line's bytes in place. One function, as
# viper-to-viper calls box their arguments; it allocates nothing. The tests
# hold it to its twin on random and adversarial lines
# (tests/logic/test_jsonscan.py). Its heap and its time on a Pico are in
# docs/benchmarks.md, "The round's time".
#
# As uth/eval_viper's, the viper code is compiled on the board when this
# module loads, not by mpy-cross: viper in a .mpy is tied to one CPU
# (-march), while this way one build serves every board whose firmware has
# the native emitter (where it has not, jsoncheck's walk serves alone).
# jsoncheck loads it at the first line long enough to need it.
import micropython

_SOURCE = """
_MAX_DEPTH = const(16)  # jsoncheck.MAX_DEPTH
_SPACE = const(1)  # jsoncheck's byte classes, as constants viper compiles in
_DIGIT = const(2)
_PLAIN = const(4)
_ESCAPE = const(8)
_VALUE = const(0)  # the states, as jsonscan_plain's
_KEY = const(1)
_COLON = const(2)
_AFTER = const(3)
_OPENED = const(4)


@micropython.viper
def scan(data, classes) -> int:
    buf = ptr8(data)
    end = int(len(data))
    kind = ptr8(classes)
    at = 0
    state = 0
    stack = 0
    depth = 0
    floats = 0
    while True:
        while at < end and kind[buf[at]] & _SPACE:
            at += 1
        if at >= end:
            if state == _AFTER and depth == 0:
                return floats
            return -1
        c = buf[at]
        at += 1
        if state == _AFTER:
            if depth == 0:
                return -1
            if c == 0x2C:
                state = stack & 1
            elif c == 0x5D + (stack & 1) * 0x20:
                stack = stack >> 1
                depth -= 1
            else:
                return -1
        elif state == _COLON:
            if c != 0x3A:
                return -1
            state = _VALUE
        elif state == _OPENED and c == 0x5D + (stack & 1) * 0x20:
            stack = stack >> 1
            depth -= 1
            state = _AFTER
        elif c == 0x22:
            while True:
                if at >= end:
                    return -1
                c = buf[at]
                at += 1
                if kind[c] & _PLAIN:
                    continue
                if c == 0x22:
                    break
                if c != 0x5C or at >= end or not (kind[buf[at]] & _ESCAPE):
                    return -1
                at += 1
            if state == _KEY or (state == _OPENED and stack & 1):
                state = _COLON
            else:
                state = _AFTER
        elif state == _KEY or (state == _OPENED and stack & 1):
            return -1
        elif c == 0x5B or c == 0x7B:
            depth += 1
            if depth > _MAX_DEPTH:
                return -1
            stack = (stack << 1) | (c >> 5 & 1)
            state = _OPENED
        elif c == 0x74 or c == 0x6E:
            if at + 2 >= end:
                return -1
            word = (buf[at] << 16) | (buf[at + 1] << 8) | buf[at + 2]
            if (c == 0x74 and word != 0x727565) or (c == 0x6E and word != 0x756C6C):
                return -1
            at += 3
            state = _AFTER
        elif c == 0x66:
            if at + 3 >= end or buf[at] != 0x61:
                return -1
            if ((buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]) != 0x6C7365:
                return -1
            at += 4
            state = _AFTER
        else:
            if c == 0x2D:
                if at >= end:
                    return -1
                c = buf[at]
                at += 1
            if c == 0x30:
                pass
            elif kind[c] & _DIGIT:
                while at < end and kind[buf[at]] & _DIGIT:
                    at += 1
            else:
                return -1
            if at < end and buf[at] == 0x2E:
                floats = 1
                at += 1
                if at >= end or not (kind[buf[at]] & _DIGIT):
                    return -1
                while at < end and kind[buf[at]] & _DIGIT:
                    at += 1
            if at < end and (buf[at] | 0x20) == 0x65:
                floats = 1
                at += 1
                if at < end and (buf[at] == 0x2B or buf[at] == 0x2D):
                    at += 1
                if at >= end or not (kind[buf[at]] & _DIGIT):
                    return -1
                while at < end and kind[buf[at]] & _DIGIT:
                    at += 1
            state = _AFTER
"""

_namespace = {"micropython": micropython, "const": micropython.const}
exec(_SOURCE, _namespace)
scan = _namespace["scan"]
# The source is no longer needed, and kept it would hold its text's heap for good.
del _namespace, _SOURCE
