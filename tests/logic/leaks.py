# Whether something the board sends shows a live hit value: searched for the
# value in micro-dollars and in cents and for its salt, everywhere but in the
# amounts the display already shows and, for the value, in hex digests.

# Amounts the display already shows: the meter may equal the hit value
# without being in excess of it, and then it is public by definition.
SHOWN = ("meter", "display_cents", "contributed", "seeded", "paid")
# Hex digests: any five digits turn up in them by chance, so only the salt is
# searched there (a SHA-256 or an HMAC cannot carry the value in the clear).
DIGESTS = ("prev", "hash", "commitment", "log_hash", "revealed", "auth")  # auth: an HMAC


def leaks(value, secrets, salt, hidden=()):
    # value: a message (dict, list, text, number); secrets: the hit value as
    # the numbers to look for; salt: its salt in hex; hidden: hex texts that
    # must be nowhere, digests included (the generator's state, in pieces).
    if isinstance(value, dict):
        return any(_in(v, (salt,) + tuple(hidden)) if k in DIGESTS
                   else leaks(v, secrets, salt, hidden)
                   for k, v in value.items() if k not in SHOWN) \
            or any(_in(v, hidden) for k, v in value.items() if k in SHOWN)
    if isinstance(value, (list, tuple)):
        return any(leaks(v, secrets, salt, hidden) for v in value)
    if isinstance(value, str):
        return salt in value or _in(value, hidden) or any(str(secret) in value
                                                          for secret in secrets)
    return value in secrets


def _in(value, texts):
    return isinstance(value, str) and any(text in value for text in texts)


def secrets_of(value):
    return (value, value // 10_000)
