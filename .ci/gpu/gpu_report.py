"""pytest plugin (ours): one JSON line per test outcome, written by the xdist controller
only and flushed at once, so a run stopped by its time limit still leaves what it did."""

import json
import os

_fh = None


def _write(rec):
    global _fh
    path = os.environ.get("GPU_REPORT_FILE")
    if not path or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if _fh is None:
        _fh = open(path, "a", buffering=1)
    _fh.write(json.dumps(rec) + "\n")


def _msg(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message.replace("\n", " ")[:300]
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:300]
    return str(report.longrepr).strip().splitlines()[-1][:300] if report.longrepr else ""


def pytest_collectreport(report):
    if report.failed:
        _write({"id": report.nodeid, "w": "collect", "o": "error", "m": _msg(report)})


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        rec = {"id": report.nodeid, "w": report.when, "o": report.outcome}
        if report.outcome != "passed":
            rec["m"] = _msg(report)
        _write(rec)


def pytest_unconfigure(config):
    global _fh
    if _fh is not None:
        _fh.close()
        _fh = None
