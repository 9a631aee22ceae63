# Where a Pico image ends, read from its own binary info (table/flash_image.py),
# on a flash laid out here from the pico-sdk's binary_info definitions: a
# header (0x7188ebf2, the entry table's start and end, the copy table,
# 0xe71aa390) after the vector table, pointing at entries of which one is
# ID_AND_INT (type 5), tag "RP", id BINARY_END (0x68f465de).
import struct

from table.flash_image import FLASH_START, image_length


def flash_with(entries, header_at=0x1D4, entry_from=0x1800, entry_size=16, content_to=0x2345):
    # The binary's bytes (0xA5 here, the rest erased) up to content_to, as a UF2 programs them.
    image = bytearray(b"\xff" * 0x3000)
    image[:content_to] = b"\xa5" * content_to
    table = 0x1000
    for number, (kind, tag, ident, value) in enumerate(entries):
        entry = entry_from + entry_size * number
        struct.pack_into("<HHIi", image, entry, kind, tag, ident, value)
        struct.pack_into("<I", image, table + 4 * number, FLASH_START + entry)
    struct.pack_into("<5I", image, header_at, 0x7188EBF2, FLASH_START + table,
                     FLASH_START + table + 4 * len(entries), 0, 0xE71AA390)
    return image


def reader(image):
    # As machine.mem32: whole words at aligned addresses only.
    def word(address):
        if address % 4:
            raise ValueError("address %x is not aligned to 4 bytes" % address)
        return struct.unpack_from("<I", image, address - FLASH_START)[0]
    return word


def test_the_image_ends_at_its_binary_end_rounded_up_to_a_page():
    image = flash_with([(5, 0x5052, 0x12345678, 7),  # another RP entry
                        (5, 0x4D50, 0x68F465DE, FLASH_START + 0x100),  # another tag
                        (5, 0x5052, 0x68F465DE, FLASH_START + 0x2345)])
    assert image_length(reader(image)) == 0x2400
    exact = flash_with([(5, 0x5052, 0x68F465DE, FLASH_START + 0x2300)])
    assert image_length(reader(exact)) == 0x2300


def test_a_last_page_never_programmed_is_not_the_images():
    # The binary end 4 bytes of alignment past the binary's last byte, at a
    # page's start: the UF2 file has no page there, and the flash is erased.
    padded = flash_with([(5, 0x5052, 0x68F465DE, FLASH_START + 0x2304)], content_to=0x2300)
    assert image_length(reader(padded)) == 0x2300
    programmed = flash_with([(5, 0x5052, 0x68F465DE, FLASH_START + 0x2304)], content_to=0x2304)
    assert image_length(reader(programmed)) == 0x2400


def test_no_header_or_no_binary_end_is_none():
    assert image_length(reader(bytearray(b"\xff" * 0x3000))) is None
    image = flash_with([(5, 0x5052, 0x12345678, 7)])
    assert image_length(reader(image)) is None
    late = flash_with([(5, 0x5052, 0x68F465DE, FLASH_START + 0x2345)], header_at=0x204)
    assert image_length(reader(late)) is None  # past the first 512 bytes: not a header


def test_entries_at_any_byte_are_read_from_the_aligned_words_around_them():
    # The SDK packs its entries: the official image's pin names (ID_AND_STRING,
    # tag "MP") lie 12 bytes apart from an odd address; a binary end among them
    # lies unaligned too. Each of the three misalignments, and the aligned one.
    for start in (0x1803, 0x1802, 0x1801, 0x1800):
        image = flash_with([(6, 0x504D, 0x4A99D719, FLASH_START + 0x10),
                            (6, 0x504D, 0x4A99D719, FLASH_START + 0x20),
                            (5, 0x5052, 0x68F465DE, FLASH_START + 0x2345)],
                           entry_from=start, entry_size=12)
        assert image_length(reader(image)) == 0x2400, hex(start)
