"""The client's languages (issue 6): the client keeps no refusal sentence of a
game (each game declares its own, shipped translated in the games' catalogue:
tests/frontend/test_games_catalogue.py), and every catalog is complete,
compiled, and keeps each placeholder of its English text."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

from games.engine import SPECS

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
REASONS_JS = ROOT / "frontend" / "static" / "frontend" / "js" / "reasons.js"
LANGUAGES = ["id", "bg", "tr"]
DOMAINS = ["django", "djangojs"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w+\}")


def test_the_client_keeps_no_refusal_sentence_nor_game_of_its_own():
    codes = {code for spec in SPECS.values() for code in spec.refusals}
    text = REASONS_JS.read_text()
    defined = set(re.findall(r"^\s+(\w+): \(", text, re.MULTILINE))
    assert codes & defined == set(), "refusal sentences the client says instead of the games"
    for spec in SPECS.values():
        assert spec.title not in text and f"{spec.prefix}:" not in text


def po_entries(path: Path) -> list[str]:
    """The msgids of a .po file (the header left out), by a simple read."""
    ids, current, inside = [], None, False
    for line in path.read_text().splitlines():
        if line.startswith("msgid "):
            current, inside = line[6:].strip().strip('"'), True
        elif inside and line.startswith('"'):
            current += line.strip().strip('"')
        else:
            if inside and current:
                ids.append(current)
            inside = False
    return ids


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_each_catalog_is_complete_and_keeps_the_placeholders(language, domain):
    po = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    mo = po.with_suffix(".mo")
    # Compiled (``make messages``): a .mo older than its .po misses its new strings below.
    assert mo.exists(), f"{mo} is not compiled"
    with mo.open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    translated = {}
    for key, text in catalog.items():
        msgid = key[0] if isinstance(key, tuple) else key
        if msgid and "\x04" in msgid:
            msgid = msgid.split("\x04", 1)[1]
        translated.setdefault(msgid, []).append(text)
    ids = po_entries(po)
    assert ids, po
    missing = [i for i in ids if i.replace('\\"', '"').replace("\\n", "\n") not in translated]
    assert not missing, f"{len(missing)} untranslated in {po.name}, e.g. {missing[:3]}"
    for msgid, texts in translated.items():
        if not msgid:
            continue
        for text in texts:
            assert text.strip(), (msgid, language)
            assert set(PLACEHOLDER.findall(text)) <= set(PLACEHOLDER.findall(msgid)) | {"%(n)s"}
            assert set(PLACEHOLDER.findall(msgid)) <= set(PLACEHOLDER.findall(text)) | {
                "%(n)s",
                "%(count)s",
            }, (msgid, text)
