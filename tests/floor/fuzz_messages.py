# Messages a table's account could publish, made from real ones by a seeded
# random source: bits flipped, values swapped for other types, integers past
# 64 bits, nesting past the floor's bound, NUL and lone surrogates, long
# strings, other tables named, fields dropped, records hashed again after a
# change (their chain right, their authenticator not), and random bytes.
import json

from mystery import chain

# Values a field might be swapped for: every JSON type, and the edges of
# each column the floor writes (schema.py).
ODD_VALUES = [None, True, False, 0, -1, 1.5, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1,
              10**30, "", "x", "e" * 33, "\x00", "a\x00b", "\ud800", "\u00e9\u2603",
              [], {}, [[1, [2]]], {"a": {"b": None}}, "0" * 64, "f" * 65]


class Fuzzer:
    def __init__(self, rng):
        self.rng = rng

    def mutate(self, payload):
        # One mutated message from a real one (bytes in, bytes out).
        how = self.rng.choice(self.MUTATIONS)
        return how(self, payload)

    # ---- on the bytes ----

    def flip_bits(self, payload):
        data = bytearray(payload)
        for _ in range(self.rng.randint(1, 4)):
            at = self.rng.randrange(len(data))
            data[at] ^= 1 << self.rng.randrange(8)
        return bytes(data)

    def random_bytes(self, _payload):
        return self.rng.randbytes(self.rng.choice((0, 1, 7, 300, 5000)))

    def cut(self, payload):
        return payload[:self.rng.randrange(len(payload))]

    def raw_nul(self, payload):
        at = self.rng.randrange(len(payload))
        return payload[:at] + b"\x00" + payload[at:]

    def deep_brackets(self, _payload):
        depth = self.rng.choice((31, 33, 1_000, 60_000, 100_000))
        return self.rng.choice((b"[", b'{"a":')) * depth

    def huge_digits(self, payload):
        return payload.replace(b"1", b"1" + b"9" * self.rng.choice((20, 400, 5000)), 1)

    # ---- on the JSON ----

    def swap_value(self, payload):
        message = json.loads(payload)
        holder, key = self._somewhere(message)
        holder[key] = self._odd()
        return _dumps(message)

    def drop_field(self, payload):
        message = json.loads(payload)
        holder, key = self._somewhere(message)
        if isinstance(holder, dict):
            del holder[key]
        else:
            holder.pop(key)
        return _dumps(message)

    def nest_value(self, payload):
        message = json.loads(payload)
        holder, key = self._somewhere(message)
        for _ in range(self.rng.choice((5, 30, 40))):
            holder[key] = [holder[key]]
        return _dumps(message)

    def long_string(self, payload):
        message = json.loads(payload)
        holder, key = self._somewhere(message)
        holder[key] = self.rng.choice("ab\x00\u00e9") * self.rng.choice((40, 2_000, 70_000))
        return _dumps(message)

    def other_table(self, payload):
        message = json.loads(payload)
        message["table"] = self.rng.choice(("4", "33", "", None, 3, ["3"], "3\x00"))
        return _dumps(message)

    def not_an_object(self, payload):
        return _dumps(self.rng.choice(([json.loads(payload)], "3", 3, None, [])))

    def rehashed(self, payload):
        # A record changed, then given its right hash: only its authenticator
        # (or the lack of one) can tell it from the board's.
        message = json.loads(payload)
        record = message.get("record")
        if not isinstance(record, dict):
            return self.swap_value(payload)
        key = self.rng.choice([k for k in record if k not in ("hash", "auth", "prev", "seq")])
        record[key] = self._odd()
        if self.rng.random() < 0.5:
            record.pop("auth", None)
        record["hash"] = chain.record_hash(record)
        return _dumps(message)

    def _somewhere(self, value):
        # A (container, key) found by walking down at random.
        holder, key = None, None
        while isinstance(value, (dict, list)) and value and (holder is None or
                                                             self.rng.random() < 0.6):
            holder = value
            key = self.rng.choice(list(value)) if isinstance(value, dict) else \
                self.rng.randrange(len(value))
            value = value[key]
        return holder, key

    def _odd(self):
        return self.rng.choice(ODD_VALUES)

    MUTATIONS = (flip_bits, random_bytes, cut, raw_nul, deep_brackets, huge_digits,
                 swap_value, swap_value, swap_value, drop_field, nest_value, long_string,
                 other_table, not_an_object, rehashed, rehashed)


def _dumps(value):
    # ensure_ascii: a lone surrogate goes out as \ud800, as JSON allows.
    return json.dumps(value).encode()
