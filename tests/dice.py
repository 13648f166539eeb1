"""Dice for tests: a random source whose dice show the faces a test scripts."""

import random
from collections.abc import Iterable


class Scripted(random.Random):
    """A random source whose dice show the given faces, in order; a face the die cannot show
    fails the test, since the script then no longer matches the throws the code makes."""

    def __init__(self, faces: Iterable[int]):
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b, f"a die from {a} to {b} cannot show {face}"
        return face
