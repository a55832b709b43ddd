"""trec_eval's preference judgments (``-R prefs``): ``query  judgment_group  subgroup  document  level``.

Five fields a line, the last a real number: no other kind takes such a line, so the Data dock
names the file for what it is instead of refusing it as unknown. No workspace evaluates against
preferences yet; ``evalgui-cli trec_eval -R prefs`` does (the kind's warning says so in plain words).
"""

from __future__ import annotations

from evalgui.core.inputs import Claim, FileHead, InputKind

# Plain words: the window shows no command-line flags (the README names the command).
NOT_IN_WINDOW = ("no workspace of the window evaluates preference judgments yet: the command line's trec_eval "
                 "evaluates them")


def sniff(head: FileHead) -> Claim:
    if head.format != "trec" or len(head.tokens) != 5:
        return Claim(0.0)
    if head.tokens[1].upper() == b"Q0":         # a run that lost its tag column, not judgments
        return Claim(0.0)
    try:
        float(head.tokens[4])
    except ValueError:
        return Claim(0.0)
    return Claim(0.8, "five fields a line: query, judgment group, subgroup, document, preference level "
                      "(trec_eval's prefs judgments)")


def read(path, **_):
    from evalgui.core.formats.trec_judgments import read_trec_prefs

    return read_trec_prefs(path)


def summary(prefs) -> dict:
    return {"queries": len(set(prefs.query.tolist())),
            "judgment groups": len(set(zip(prefs.query.tolist(), prefs.group.tolist()))),
            "judged": len(prefs)}


KIND = InputKind(
    name="preference judgments", label="Preference judgments", patterns=("*.prefs", "*.txt", "*.gz"),
    expected="trec_eval prefs 'query judgment-group subgroup doc level'",
    sniff=sniff, read=read, summary=summary, headline=("queries", "judgment groups", "judged"),
    warnings=lambda data, summary: [NOT_IN_WINDOW])
