"""``python -m rules …`` run in this process: the command's own ``main`` with the standard
streams swapped for byte buffers, read and written as a shell would (UTF-8), without starting an
interpreter per call. tests/unit/test_cli.py runs the command once in a real interpreter."""

import contextlib
import io
import sys
from dataclasses import dataclass
from unittest import mock

from rules.cli import main


@dataclass(frozen=True)
class Finished:
    """What a shell sees of one run: the exit status and both outputs."""

    returncode: int
    stdout: str
    stderr: str


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


def run_rules(*args: str, stdin: str = "") -> Finished:
    stdout, stderr = _stream(), _stream()
    with (
        mock.patch.object(sys, "stdin", _stream(stdin.encode("utf-8"))),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        returncode = main(list(args))
    return Finished(returncode, _text(stdout), _text(stderr))
