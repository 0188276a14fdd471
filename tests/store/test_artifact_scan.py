"""The whole artifacts file, read once and then only its appends: gaps and bad lines."""

from __future__ import annotations

import json

from supervisor.store import fsio
from supervisor.store.artifact_scan import ArtifactScan
from supervisor.store.tether_dir import init


def test_a_scan_reads_only_appends_and_still_sees_every_gap(tmp_path):
    tether = init(tmp_path).tether
    scan = ArtifactScan(tether)
    for index in (0, 1, 2, 3, 5):
        fsio.append_jsonl(tether.artifacts, {"index": index})
    first = scan.look()
    assert [(g.after, g.found, g.line) for g in first.gaps] == [(3, 5, 5)]
    offset = scan._offset
    with open(tether.artifacts, "ab") as handle:  # an append cut short: no newline yet
        handle.write(b'{"index": 6, "ta')
    torn = scan.look()
    assert [(b.line_number, b.reason) for b in torn.bad_lines] == [
        (6, "torn last line (a write was cut short)")
    ]
    assert scan._offset == offset  # the unfinished line waits for its end
    with open(tether.artifacts, "ab") as handle:
        handle.write(b'sk": "x"}\n' + json.dumps({"index": 9}).encode() + b"\n")
    later = scan.look()
    assert later.bad_lines == []
    assert [(g.after, g.found, g.line) for g in later.gaps] == [(3, 5, 5), (6, 9, 7)]
    tether.artifacts.write_text('{"index": 0}\nnot json\n{"index": 1}\n')  # rewritten: again
    again = scan.look()
    assert again.gaps == [] and [(b.line_number, b.reason[:14]) for b in again.bad_lines] == [
        (2, "not valid JSON")
    ]


def test_readers_going_backwards_name_the_real_line(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [json.dumps({"n": i}) for i in range(5000)]
    lines[4000] = '{"n": 4000, "cut'
    path.write_text("\n".join(lines) + "\n" + '{"n": "torn')
    problems: list[fsio.BadLine] = []
    assert len(list(fsio.iter_jsonl_reversed(path, problems, chunk=4096))) == 4999
    assert [(p.line_number, p.reason[:14]) for p in problems] == [
        (5001, "torn last line"),
        (4001, "not valid JSON"),
    ]
    _, tail_problems = fsio.tail_jsonl(path, 3)
    assert [p.line_number for p in tail_problems] == [5001]
