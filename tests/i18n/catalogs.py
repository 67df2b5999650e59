"""Reading the project's .po catalogs (locale/<lang>/LC_MESSAGES/<domain>.po) without gettext's
tools: entries with their context, plural and translations, and the catalog Python's gettext
module builds from the matching .mo file."""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
LANGUAGES = ("tr", "fi", "sq")
DOMAINS = ("django", "djangojs")

_LINE = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) (".*")$')


@dataclass
class Entry:
    msgid: str = ""
    context: str | None = None
    plural: str | None = None
    strings: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False

    @property
    def key(self) -> str:
        return self.msgid if self.context is None else f"{self.context}\x04{self.msgid}"


def po_path(language: str, domain: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def read_po(path: Path) -> list[Entry]:
    """Every entry of a .po file, the header (msgid "") first; obsolete (#~) ones left out."""
    entries: list[Entry] = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8").strip()):
        entry = Entry()
        current: tuple[str, int] | None = None
        seen = False
        for line in block.splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                entry.fuzzy = True
            if line.startswith("#"):
                continue
            match = _LINE.match(line)
            if match is not None:
                name, index, text = match.groups()
                value = ast.literal_eval(text)
                seen = True
                if name == "msgctxt":
                    entry.context, current = value, ("ctx", 0)
                elif name == "msgid":
                    entry.msgid, current = value, ("id", 0)
                elif name == "msgid_plural":
                    entry.plural, current = value, ("plural", 0)
                else:
                    current = ("str", int(index or 0))
                    entry.strings[current[1]] = value
            elif line.startswith('"') and current is not None:
                value = ast.literal_eval(line)
                kind, index = current
                if kind == "ctx":
                    entry.context = (entry.context or "") + value
                elif kind == "id":
                    entry.msgid += value
                elif kind == "plural":
                    entry.plural = (entry.plural or "") + value
                else:
                    entry.strings[index] += value
        if seen:
            entries.append(entry)
    return entries


def header(entries: list[Entry]) -> dict[str, str]:
    first = entries[0]
    assert first.msgid == "", "the header comes first"
    fields = {}
    for line in first.strings[0].splitlines():
        name, _, value = line.partition(":")
        fields[name.strip()] = value.strip()
    return fields


def po_catalog(entries: list[Entry]) -> dict[object, str]:
    """The catalog gettext.GNUTranslations would hold for these entries (translated ones)."""
    catalog: dict[object, str] = {}
    for entry in entries:
        if entry.fuzzy and entry.msgid:
            continue
        if entry.plural is None:
            if entry.strings.get(0):
                catalog[entry.key] = entry.strings[0]
        elif all(entry.strings.values()):
            for index, text in entry.strings.items():
                catalog[(entry.key, index)] = text
    return catalog


def mo_catalog(path: Path) -> dict[object, str]:
    with path.open("rb") as handle:
        translations = gettext.GNUTranslations(handle)
    catalog: dict[object, str] = translations._catalog  # type: ignore[attr-defined]
    return catalog


def english_msgids() -> set[str]:
    """Every English text of the catalogs (msgid and msgid_plural), of every domain."""
    found: set[str] = set()
    for domain in DOMAINS:
        for entry in read_po(po_path("tr", domain))[1:]:
            found.add(entry.msgid)
            if entry.plural:
                found.add(entry.plural)
    return found
