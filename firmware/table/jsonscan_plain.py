# The fast pass of the host link's JSON check, in plain Python: the twin of
# jsonscan_viper, which the board runs, and what CPython runs. It answers
# only "surely JSON" or "not sure": scan() gives 1 for a line that is one JSON
# value with a number with a fraction or exponent in it (json.loads makes a
# float of it), 0 for one with none, and -1 for anything else: a line that
# breaks the grammar, and also any \u escape or byte past ASCII, which it
# leaves to jsoncheck's full walk. Every refusal, and its reason, is the full
# walk's, so the fast pass may say -1 wherever it likes but must never pass a
# line the walk would refuse (tests/logic/test_jsonscan.py holds both to it).
#
# One loop, one step a token, in a state: what may come next. The open
# containers are the bits of one int, as in jsoncheck (1: an object); so
# after a comma the state is the innermost container's bit, _KEY or _VALUE,
# and its closing bracket is "]" + 0x20 * that bit ("}"). Bytes are read by
# class, from the table jsoncheck passes in (jsoncheck.classes()).
from micropython import const

_MAX_DEPTH = const(16)  # jsoncheck.MAX_DEPTH
_SPACE = const(1)  # jsoncheck's byte classes
_DIGIT = const(2)
_PLAIN = const(4)
_ESCAPE = const(8)
_VALUE = const(0)  # a value (in an array, after a colon, or the line's own)
_KEY = const(1)  # a member's name, after a comma in an object
_COLON = const(2)
_AFTER = const(3)  # a value ended: a comma, a closing bracket, or the line's end
_OPENED = const(4)  # just after "[" or "{": a closing bracket, or the first item


def scan(data, classes):
    end = len(data)
    at = state = stack = depth = floats = 0
    while True:
        while at < end and classes[data[at]] & _SPACE:
            at += 1
        if at >= end:
            return floats if state == _AFTER and depth == 0 else -1
        c = data[at]
        at += 1
        if state == _AFTER:
            if depth == 0:
                return -1  # text after the value
            if c == 0x2C:  # ,
                state = stack & 1
            elif c == 0x5D + (stack & 1) * 0x20:
                stack >>= 1
                depth -= 1
            else:
                return -1
        elif state == _COLON:
            if c != 0x3A:
                return -1
            state = _VALUE
        elif state == _OPENED and c == 0x5D + (stack & 1) * 0x20:  # empty
            stack >>= 1
            depth -= 1
            state = _AFTER
        elif c == 0x22:  # a string: ASCII, its escapes the simple ones
            while True:
                if at >= end:
                    return -1
                c = data[at]
                at += 1
                if classes[c] & _PLAIN:
                    continue
                if c == 0x22:
                    break
                if c != 0x5C or at >= end or not classes[data[at]] & _ESCAPE:
                    return -1
                at += 1
            state = _COLON if state == _KEY or (state == _OPENED and stack & 1) else _AFTER
        elif state == _KEY or (state == _OPENED and stack & 1):
            return -1  # a member's name is a string
        elif c == 0x5B or c == 0x7B:  # [ {
            depth += 1
            if depth > _MAX_DEPTH:
                return -1
            stack = (stack << 1) | (c >> 5 & 1)
            state = _OPENED
        elif c == 0x74 or c == 0x6E:  # true, null: the three letters after the first
            if at + 2 >= end:
                return -1
            word = (data[at] << 16) | (data[at + 1] << 8) | data[at + 2]
            if (c == 0x74 and word != 0x727565) or (c == 0x6E and word != 0x756C6C):
                return -1
            at += 3
            state = _AFTER
        elif c == 0x66:  # false
            if at + 3 >= end or data[at] != 0x61:
                return -1
            if ((data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3]) != 0x6C7365:
                return -1
            at += 4
            state = _AFTER
        else:  # a number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
            if c == 0x2D:
                if at >= end:
                    return -1
                c = data[at]
                at += 1
            if c == 0x30:
                pass
            elif classes[c] & _DIGIT:
                while at < end and classes[data[at]] & _DIGIT:
                    at += 1
            else:
                return -1
            if at < end and data[at] == 0x2E:  # .
                floats = 1
                at += 1
                if at >= end or not classes[data[at]] & _DIGIT:
                    return -1
                while at < end and classes[data[at]] & _DIGIT:
                    at += 1
            if at < end and (data[at] | 0x20) == 0x65:  # e E
                floats = 1
                at += 1
                if at < end and (data[at] == 0x2B or data[at] == 0x2D):
                    at += 1
                if at >= end or not classes[data[at]] & _DIGIT:
                    return -1
                while at < end and classes[data[at]] & _DIGIT:
                    at += 1
            state = _AFTER
