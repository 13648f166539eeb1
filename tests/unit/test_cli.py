"""``python -m rules check``: JSON on stdout, exit 0/1/2, one clear line for malformed input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .builders import document
from .command import Finished, run_rules

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str = "") -> Finished:
    return run_rules("check", *args, stdin=stdin)


def write(tmp_path: Path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_the_command_runs_in_its_own_interpreter_and_exits_with_the_verdict(tmp_path):
    # The one run through `python -m rules` itself; the other tests call its main() in-process.
    result = subprocess.run(
        [sys.executable, "-m", "rules", "check", write(tmp_path, "ok.json", document())],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["valid"] is True


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    # Far more than a pipe holds, so the command is still writing when `head` goes away.
    files = [write(tmp_path, f"doc{i}.json", document()) for i in range(150)]
    command = subprocess.Popen(
        [sys.executable, "-m", "rules", "check", *files],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert command.stdout is not None
    assert command.stderr is not None
    command.stdout.read(10)
    command.stdout.close()
    errors = command.stderr.read().decode()
    assert (command.wait(timeout=60), errors) == (141, "")


def test_a_valid_document_prints_its_report_and_exits_zero(tmp_path):
    result = run(write(tmp_path, "ok.json", document()))
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert report["upp"] == "777-777-777"
    assert report["valid"] is True


def test_a_document_with_errors_exits_one(tmp_path):
    result = run(write(tmp_path, "bad.json", document(rank=9)))
    assert result.returncode == 1
    assert json.loads(result.stdout)["problems"][0]["code"] == "rank_out_of_range"


def test_several_files_give_a_json_array(tmp_path):
    result = run(write(tmp_path, "a.json", document()), write(tmp_path, "b.json", document(rank=9)))
    assert result.returncode == 1
    assert [r["valid"] for r in json.loads(result.stdout)] == [True, False]


def test_malformed_input_names_file_and_path_in_one_line_without_a_traceback(tmp_path):
    path = write(tmp_path, "typo.json", document(attributes={"DEX": "Q7"}))
    result = run(path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip().count("\n") == 0
    assert result.stderr.startswith(f"{path}: attributes.DEX: expected a level")
    assert "Traceback" not in result.stderr


def test_a_file_name_with_a_line_break_still_makes_one_line(tmp_path):
    path = write(tmp_path, "two\nlines.json", document(rank="high"))
    result = run(path)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert result.stderr.startswith(path.replace("\n", "\\n") + ": rank: expected a whole number")


def test_invalid_json_and_missing_files_are_malformed_too(tmp_path):
    broken = run(write(tmp_path, "broken.json", "{nope"))
    assert broken.returncode == 2
    assert "is not valid JSON (line 1, column 2" in broken.stderr
    missing = run(str(tmp_path / "absent.json"))
    assert missing.returncode == 2
    assert "cannot be read" in missing.stderr


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(document(attributes={"STR": "²"})),
        json.dumps(document(attributes={"STR": "①"})),
        json.dumps(document(name="\ud800")),
        json.dumps(document(psionics={"strength": 2, "talents": []})),
        json.dumps(document(equipment=[{"item": "Dagger", "quantity": 1}])).replace(
            '"quantity": 1', '"quantity": 1' + "0" * 400
        ),
        json.dumps(document()).replace('"STR": 7', '"STR": ' + "7" * 5000),
        json.dumps(document()).replace('"STR": 7', '"STR": ' + "7" * 4300),
        json.dumps(document(psionics={"strength": 10**4299})),
    ],
)
def test_hostile_documents_are_one_malformed_line_and_exit_two(text):
    result = run("-", stdin=text)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("<stdin>: ")
    assert result.stderr.strip().count("\n") == 0
    assert "Traceback" not in result.stderr


def test_a_malformed_file_among_several_is_reported_in_the_array_even_with_odd_text(tmp_path):
    # An unknown field whose name and value are lone surrogates, written as JSON escapes.
    text = json.dumps(document(nmae="\ud800")).replace("nmae", "\\udc80")
    odd = write(tmp_path, "odd.json", text)
    result = run(write(tmp_path, "ok.json", document()), odd)
    assert result.returncode == 2
    assert [sorted(entry) for entry in json.loads(result.stdout)][1] == ["file", "malformed"]
    assert "Traceback" not in result.stderr


def test_reads_stdin_and_prints_text_or_a_stat_block():
    text = run("-", "--text", stdin=json.dumps(document(name="Kim")))
    assert text.returncode == 0
    assert "Kim: valid" in text.stdout
    assert "DEF 3 INI 3 MOV 6 TGH 3 LIF 21 WND 6" in text.stdout
    block = run("-", "--stat-block", stdin=json.dumps(document(name="Kim", homeworld="Regina")))
    lines = block.stdout.splitlines()
    assert lines[0] == "Kim, 0 terms no service"
    assert lines[1].startswith("Age 30  777-777-777  Cr0  DEF 3")
    assert "Area Knowledge (Regina)-3" in lines[2]


def test_a_file_windows_notepad_saved_with_a_byte_order_mark_is_checked(tmp_path):
    path = tmp_path / "notepad.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(document()).encode())
    result = run(str(path))
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["upp"] == "777-777-777"
