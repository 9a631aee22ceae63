# Where a Pico's firmware image lies in flash, read from the image itself: the
# pico-sdk's binary info, which every image it links carries. Its header sits
# in the image's first 512 bytes (after the boot stage and the vector table);
# it points at a table of entries, one of which is the binary's end
# (__flash_binary_end). The image as programmed is its UF2 file's pages: from
# the start of flash up to that end, rounded up to a 256-byte page. The end
# may lie a few bytes of alignment past the binary's last byte, which the UF2
# file then has no page for: a last page wholly erased (every byte 0xFF; the
# UF2's own last page holds the binary's last bytes) is not the image's.
# The SDK's entries are packed structures that may lie at any byte (the
# official image's own pin names do), while a board reads whole aligned words
# (machine.mem32): a word at any other address is put together from two.
# Nothing here comes from the host.
from micropython import const

FLASH_START = const(0x10000000)
_HEADER_FROM = const(0x100)
_HEADER_TO = const(0x200)
_MARKER_START = const(0x7188EBF2)
_MARKER_END = const(0xE71AA390)
_TYPE_ID_AND_INT = const(5)
_TAG_RP = const(0x5052)  # 'R', 'P'
_ID_BINARY_END = const(0x68F465DE)
_PAGE = const(256)
_ERASED = const(0xFFFFFFFF)


def _at(word, address):
    # The little-endian word at any address, from the aligned words around it.
    shift = (address & 3) * 8
    if not shift:
        return word(address)
    base = address - (address & 3)
    return (word(base) >> shift | word(base + 4) << (32 - shift)) & 0xFFFFFFFF


def _entries(word):
    # The binary info entries' addresses, or () where the image has no header.
    for offset in range(_HEADER_FROM, _HEADER_TO, 4):
        at = FLASH_START + offset
        if word(at) == _MARKER_START and word(at + 16) == _MARKER_END:
            return [word(pointer) for pointer in range(word(at + 4), word(at + 8), 4)]
    return ()


def image_length(word):
    # The image's length in bytes from the start of flash, or None when it has
    # no binary end. word(address) reads the 32-bit word at an aligned address.
    for entry in _entries(word):
        if FLASH_START <= entry < FLASH_START + 0x1000000 and \
                _at(word, entry) == _TAG_RP << 16 | _TYPE_ID_AND_INT \
                and _at(word, entry + 4) == _ID_BINARY_END:
            end = _at(word, entry + 8) - FLASH_START
            length = (end + _PAGE - 1) // _PAGE * _PAGE
            if length and _erased(word, FLASH_START + length - _PAGE):
                length -= _PAGE
            return length
    return None


def _erased(word, page):
    # Every word of the page at `page` reads 0xFFFFFFFF: flash never programmed.
    for address in range(page, page + _PAGE, 4):
        if word(address) != _ERASED:
            return False
    return True
