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


def run_rules(*args: str, stdin: str = "") -> Finished:
    written = {"stdout": io.BytesIO(), "stderr": io.BytesIO()}
    streams = {name: io.TextIOWrapper(data, encoding="utf-8") for name, data in written.items()}
    standard_input = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    with (
        mock.patch.object(sys, "stdin", standard_input),
        contextlib.redirect_stdout(streams["stdout"]),
        contextlib.redirect_stderr(streams["stderr"]),
    ):
        returncode = main(list(args))
    for stream in streams.values():
        stream.flush()
    stdout, stderr = (data.getvalue().decode("utf-8") for data in written.values())
    return Finished(returncode, stdout, stderr)
