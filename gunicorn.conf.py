"""Gunicorn's settings for this app (`make serve` passes this file; gunicorn also reads it by
itself when started in this folder). Anything here can still be overridden on the command line
or in GUNICORN_CMD_ARGS.

Sync workers: the PDF time budget is a timer signal, which reaches a sync worker's request (its
main thread) and no thread of a threaded one. How many: ffa_site.workers.web_concurrency
(WEB_CONCURRENCY, else from the CPUs and memory of the machine).
"""

from ffa_site.workers import WORKER_TIMEOUT_SECONDS, web_concurrency

worker_class = "sync"
workers = web_concurrency()
timeout = WORKER_TIMEOUT_SECONDS
