"""The translations are complete, compiled and current: every text of the sources has a
translation in Turkish, Finnish and Albanian (nothing fuzzy or empty), with the language's plural
rule in the header, and each committed .mo file holds exactly its .po file's catalog."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.i18n.catalogs import (
    DOMAINS,
    LANGUAGES,
    ROOT,
    header,
    mo_catalog,
    po_catalog,
    po_path,
    read_po,
)

CASES = [(language, domain) for language in LANGUAGES for domain in DOMAINS]

#: The plural rule of each language (CLDR's, as gettext writes it): one form for 1, another for
#: everything else; Turkish writes its noun in the singular after any number ("5 kart").
PLURAL_FORMS = {
    "tr": "nplurals=2; plural=(n != 1);",
    "fi": "nplurals=2; plural=(n != 1);",
    "sq": "nplurals=2; plural=(n != 1);",
}


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_every_entry_is_translated_and_none_is_fuzzy(language: str, domain: str) -> None:
    entries = read_po(po_path(language, domain))
    assert len(entries) > 50
    untranslated = [e.msgid for e in entries[1:] if not all(e.strings.values()) or not e.strings]
    fuzzy = [e.msgid for e in entries if e.fuzzy]
    assert untranslated == []
    assert fuzzy == []


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_the_header_names_the_language_and_its_plural_rule(language: str, domain: str) -> None:
    fields = header(read_po(po_path(language, domain)))
    assert fields["Language"] == language
    assert fields["Plural-Forms"] == PLURAL_FORMS[language]
    assert fields["Content-Type"] == "text/plain; charset=UTF-8"


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_each_placeholder_is_kept_in_the_translation(language: str, domain: str) -> None:
    import re

    placeholder = re.compile(r"%\(\w+\)[sd]")
    for entry in read_po(po_path(language, domain))[1:]:
        wanted = sorted(set(placeholder.findall(entry.plural or entry.msgid)))
        for index, text in entry.strings.items():
            got = sorted(set(placeholder.findall(text)))
            # (a singular form may say "the last action" for a count of 1)
            if entry.plural is not None and index == 0:
                assert set(got) <= set(wanted), (entry.msgid, text)
            else:
                assert got == wanted, (entry.msgid, text)


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_the_committed_mo_file_matches_its_po_file(language: str, domain: str) -> None:
    po = po_path(language, domain)
    mo = po.with_suffix(".mo")
    assert mo.is_file(), f"{mo.relative_to(ROOT)} is missing: make compilemessages"
    expected = po_catalog(read_po(po))
    actual = mo_catalog(mo)
    actual.pop("", None)  # the header
    expected.pop("", None)
    assert actual == expected, f"{mo.relative_to(ROOT)} is stale: make compilemessages"


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext's msgfmt is not installed")
@pytest.mark.parametrize(("language", "domain"), CASES)
def test_msgfmt_compiles_each_po_file_to_the_committed_catalog(
    language: str, domain: str, tmp_path: Path
) -> None:
    po = po_path(language, domain)
    out = tmp_path / "out.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(out), str(po)], check=True)
    assert mo_catalog(out) == mo_catalog(po.with_suffix(".mo"))


#: What makemessages reads: the project's sources (not its tests, tools or installed packages).
SOURCES = (
    "canfield_site", "core", "games", "leaderboard", "social", "groups", "ratings", "leagues",
    "frontend", "manage.py", "locale",
)  # fmt: skip


def test_makemessages_finds_no_text_without_a_translation(tmp_path: Path) -> None:
    """makemessages over a copy of the sources and catalogs (it writes the catalogs beside the
    sources it reads): every entry it writes is translated, so a new text in a template, a module
    or a script fails here until it is translated."""
    if shutil.which("xgettext") is None:
        pytest.fail("gettext's xgettext is missing (apt-get install gettext)")
    copy = tmp_path / "site"
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            copy.mkdir(exist_ok=True)
            shutil.copy2(source, copy / name)
    for domain in DOMAINS:
        subprocess.run(
            [sys.executable, "manage.py", "makemessages", "-a", "-d", domain],
            cwd=copy,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "canfield_site.settings"},
            check=True,
            capture_output=True,
        )
    problems = []
    for language in LANGUAGES:
        for domain in DOMAINS:
            for entry in read_po(copy / "locale" / language / "LC_MESSAGES" / f"{domain}.po")[1:]:
                if entry.fuzzy or not entry.strings or not all(entry.strings.values()):
                    problems.append((language, domain, entry.msgid))
    assert problems == []
