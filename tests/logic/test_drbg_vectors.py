# The firmware's HMAC_DRBG (mystery/drbg.py) against NIST CAVP's HMAC_DRBG
# SHA-256 vectors as Mbed TLS's test suite carries them (hmac_drbg_sha256.data
# names the source and how each case runs), with and without prediction
# resistance; its HMAC against the runtime's hmac module; and the health
# check's answer, right and wrong.
import binascii
import hashlib
import hmac

from mystery import drbg

DATA = "/".join(__file__.split("/")[:-1] + ["hmac_drbg_sha256.data"])


def _cases():
    with open(DATA) as file:
        for line in file:
            if line.startswith("hmac_drbg_"):
                kind, _, *fields = line.strip().split(":")
                yield kind, [binascii.unhexlify(field.strip('"')) for field in fields]


def _nopr(entropy, personalization, add1, add2, add3, size):
    # Instantiate (32 bytes entropy, 16 nonce), reseed, generate twice.
    generator = drbg.instantiate(entropy[:32], entropy[32:48], personalization)
    generator.reseed(entropy[48:80], add1)
    generator.generate(size, add2)
    return generator.generate(size, add3)


def _pr(entropy, personalization, add1, add2, size):
    # Prediction resistance: each generate reseeds first with its additional input.
    generator = drbg.instantiate(entropy[:32], entropy[32:48], personalization)
    generator.reseed(entropy[48:80], add1)
    generator.generate(size)
    generator.reseed(entropy[80:112], add2)
    return generator.generate(size)


def test_the_generator_gives_nists_vectors_without_prediction_resistance():
    count = 0
    for kind, fields in _cases():
        if kind == "hmac_drbg_nopr":
            count += 1
            assert _nopr(*fields[:5], len(fields[5])) == fields[5], count
    assert count == 20


def test_the_generator_gives_nists_vectors_with_prediction_resistance():
    count = 0
    for kind, fields in _cases():
        if kind == "hmac_drbg_pr":
            count += 1
            assert _pr(*fields[:4], len(fields[4])) == fields[4], count
    assert count == 20


def test_a_wrong_input_misses_the_vector():
    # The comparison can fail: one bit of entropy changed gives other output.
    kind, fields = next(_cases())
    entropy = bytearray(fields[0])
    entropy[0] ^= 1
    assert _nopr(bytes(entropy), *fields[1:5], len(fields[5])) != fields[5]


def test_the_hmac_is_the_hmac_modules():
    for n in range(4):
        key = hashlib.sha256(b"key %d" % n).digest()
        message = b"m" * (n * 40)
        assert drbg.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest()


def test_the_health_check_answers_and_fails_a_broken_hmac():
    assert drbg.health_check()
    real = drbg.hmac_sha256
    drbg.hmac_sha256 = lambda key, message: real(key, message + b"\x00")
    try:
        assert not drbg.health_check()
    finally:
        drbg.hmac_sha256 = real


def test_the_state_round_trips_and_a_damaged_one_is_refused():
    generator = drbg.instantiate(b"e" * 32, b"n" * 16)
    generator.generate(5)
    again = drbg.from_record(generator.to_record())
    assert again.generate(40) == generator.generate(40)
    for bad in (None, [], ["00", "00", 1], [generator.to_record()[0], "zz" * 32, 1],
                generator.to_record()[:2] + [0], generator.to_record()[:2] + ["1"]):
        try:
            drbg.from_record(bad)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (bad,))


def test_a_request_beyond_the_limit_is_refused():
    generator = drbg.instantiate(b"e" * 32, b"n" * 16)
    try:
        generator.generate(drbg.MAX_REQUEST + 1)
    except ValueError:
        return
    raise AssertionError("an over-long request was served")
