"""Subtopic (diversity) qrels: TREC Web track judgments 'query subtopic doc grade'.

No sniffer claims them from a file's first line (they look like any qrels): a qrels file
whose (query, doc) pairs repeat under different subtopics turns into this kind as it is
read (see the qrels kind's ``kind_of``). Chosen by hand (Read as), a file is read with its
second column as the subtopic, repeats or not.
"""

from __future__ import annotations

from evalgui.core.inputs import Claim, FileHead, InputKind


def sniff(head: FileHead) -> Claim:
    return Claim(0.0)


def read(path, **_):
    from evalgui.core.subtopics import read_subtopic_qrels

    return read_subtopic_qrels(path)


def summary(qrels) -> dict:
    return qrels.summary()


def warnings(qrels, counts: dict) -> list[str]:
    from evalgui.core.subtopics import MAX_GRADE_WARNING

    out = [MAX_GRADE_WARNING]
    if counts["relevant"] == 0:
        out.append("no document is judged relevant (grade 1 or more)")
    return out


KIND = InputKind(
    name="subtopic qrels", label="Subtopic qrels", patterns=("*.qrels", "*.txt", "*.gz"),
    expected="TREC diversity qrels 'query subtopic doc relevance', a document judged once per subtopic",
    sniff=sniff, read=read, summary=summary, headline=("queries", "subtopics", "judged", "relevant"),
    warnings=warnings, usually_one_per_session=True, acts_as="qrels")
