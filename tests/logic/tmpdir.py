# Throwaway folders under /tmp that work on CPython and the unix port alike.
import binascii
import os

from mystery.copies import exists


def make():
    while True:
        path = "/tmp/uth-test-" + binascii.hexlify(os.urandom(6)).decode()
        if not exists(path):
            os.mkdir(path)
            return path


def remove(path):
    # Folders hold only files and folders the tests made.
    for name in os.listdir(path):
        child = path + "/" + name
        if os.stat(child)[0] & 0x4000:
            remove(child)
        else:
            os.remove(child)
    os.rmdir(path)


def within(test):
    # Decorates a test taking a folder: it gets a new one, removed afterwards
    # whatever happens.
    def run():
        root = make()
        try:
            test(root)
        finally:
            remove(root)
    return run
