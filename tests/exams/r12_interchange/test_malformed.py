"""Issue 34: damaged files are reported (FormatError → 400), never crash a parser (→ 500): every
fixture cut short at many points and with bytes replaced, deterministically."""
import random
from pathlib import Path

import pytest

from exams.questions.formats import parse
from exams.questions.formats.common import FormatError
from exams.questions.rules import validate_items

from .test_qti import package

FIX = Path(__file__).parent / "fixtures"
CASES = {"moodle_xml": (FIX / "moodle_quiz.xml").read_bytes(), "gift": (FIX / "bank.gift").read_bytes(),
         "aiken": (FIX / "bank.aiken").read_bytes(), "qti3": (FIX / "qti_package" / "items" / "text-entry.xml").read_bytes()}
SPECIAL = b"<>&;{}~=#:\\%\"'/\n\x00\xff]"


def _variants(data: bytes, rnd: random.Random):
    for _ in range(60):
        yield data[:rnd.randrange(len(data))]
    for _ in range(120):
        b = bytearray(data)
        for _ in range(rnd.randint(1, 6)):
            b[rnd.randrange(len(b))] = SPECIAL[rnd.randrange(len(SPECIAL))]
        yield bytes(b)


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_damaged_files_are_reported_not_crashed(fmt):
    rnd = random.Random(34)
    reported = 0
    for data in _variants(CASES[fmt], rnd):
        try:
            parsed = parse(fmt, data)
        except FormatError:
            reported += 1
            continue
        validate_items(parsed.items)
    assert reported > 0  # the damage is seen, not only survived


def test_damaged_packages_are_reported_not_crashed():
    rnd = random.Random(34)
    data = package()
    for variant in _variants(data, rnd):
        try:
            parsed = parse("qti3", variant)
        except FormatError:
            continue
        validate_items(parsed.items)


def test_deeply_nested_markup_is_reported():
    deep = b"<span>" * 50_000 + b"x" + b"</span>" * 50_000
    item = (FIX / "qti_package" / "items" / "essay.xml").read_bytes().replace(
        b"Explain osmosis in your own words.", deep)
    parsed = parse("qti3", item)
    assert parsed.items == [] and parsed.errors[0]["error"] == "the item's markup is nested too deeply"
