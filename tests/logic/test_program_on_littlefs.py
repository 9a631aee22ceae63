# The program's files as a board holds them, on littlefs with each board's
# mount: the walk takes each file's size from the listing (os.ilistdir gives
# it there), and the digest must still be the one docs/host-link.md
# describes, computed here on its own (test_authenticate_command.expected).
# MicroPython only: littlefs is the unix port's.
import sys

if sys.implementation.name == "micropython":
    import hashlib
    import os

    import tmpdir
    from program_files import FILES, expected, write_files
    from ramflash import BOARD_MOUNTS, FileChip, RamFlash
    from table.program import files_program

    MOUNT = "/program"
    BLOCKS = 32
    # Code beside the build, which is named and not hashed.
    BESIDE = {"boot.py": b"# boot\n", "extra/helper.mpy": b"H" * 5, "notes.txt": b"n"}

    def _digest(program):
        kind, pieces, others = program()
        sha = hashlib.sha256()
        for piece in pieces:
            sha.update(piece)
        return kind, "".join("%02x" % byte for byte in sha.digest()), others

    def _hashed_on(board):
        root = tmpdir.make()
        chip = FileChip(root + "/flash.bin", BLOCKS)
        try:
            os.VfsLfs2.mkfs(RamFlash(chip), **BOARD_MOUNTS[board])
            os.mount(os.VfsLfs2(RamFlash(chip), **BOARD_MOUNTS[board]), MOUNT)
            try:
                files = dict(FILES)
                files.update(BESIDE)
                write_files(MOUNT, files)
                # Sizes from the listing: the board's littlefs gives them.
                listed = {entry[0]: entry for entry in os.ilistdir(MOUNT + "/lib")}
                assert listed["board.mpy"][3] == len(FILES["lib/board.mpy"]), listed
                return _digest(files_program(MOUNT + "/lib", MOUNT + "/main.py"))
            finally:
                os.umount(MOUNT)
        finally:
            chip.file.close()
            tmpdir.remove(root)

    def test_the_build_on_a_picos_littlefs_hashes_as_documented():
        assert _hashed_on("pico") == ("files", expected("", FILES),
                                      ["boot.py", "extra/helper.mpy"])

    def test_the_build_on_an_esp32s_littlefs_hashes_as_documented():
        assert _hashed_on("esp32") == ("files", expected("", FILES),
                                       ["boot.py", "extra/helper.mpy"])
