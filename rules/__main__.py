import os
import sys

from .cli import main

# A reader that stops early (`| head`) closes the pipe: that is no fault of the input, so the
# command leaves quietly with the shell's status for it rather than a traceback.
STOPPED_READING = 141

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = STOPPED_READING
sys.exit(status)
