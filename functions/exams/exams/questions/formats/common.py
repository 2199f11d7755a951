"""What every interchange format shares: the parse result, safe XML and zip reading, text helpers."""
from __future__ import annotations

import io
import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element, TreeBuilder

MAX_XML_BYTES = 10_000_000  # uncompressed, any one XML document
MAX_ZIP_MEMBERS = 2000
MAX_ZIP_TOTAL = 20_000_000  # uncompressed, all members together


class FormatError(ValueError):
    """The file as a whole cannot be read (reported at ``line``)."""

    def __init__(self, message: str, line: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line


class Unexportable(ValueError):
    """Questions that the format cannot carry: ``problems`` is ``[{question_id, error}]``."""

    def __init__(self, problems: list[dict]):
        super().__init__(f"{len(problems)} question(s) cannot be written in this format")
        self.problems = problems


@dataclass
class Item:
    """One question of an uploaded file: where it is (``line``, ``ref``: its name or identifier)
    and its fields in the shape ``rules.normalise_question`` takes."""

    line: int
    ref: str
    fields: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


@dataclass
class Parsed:
    items: list[Item] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)  # [{line, item, error}]

    def error(self, line: int, ref: str, message: str) -> None:
        self.errors.append({"line": line, "item": ref, "error": message})


# ------------------------------------------------------------------ text
def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FormatError("The file is not valid UTF-8 text") from None


_TAG = re.compile(r"<[^>]+>")
#: Characters XML 1.0 forbids: dropped from what the XML exports write (they are invisible).
XML_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(s: str) -> str:
    """``s`` as XML character data."""
    from xml.sax.saxutils import escape

    return escape(XML_FORBIDDEN.sub("", s))


def plain(html_text: str) -> str:
    """Text of an HTML fragment, for names and messages only (never stored)."""
    import html

    return " ".join(html.unescape(_TAG.sub(" ", html_text)).split())


def options_of(texts: list[str]) -> dict[str, str | None]:
    """``option_a`` … ``option_d`` from up to four texts."""
    letters = "abcd"
    return {f"option_{letters[i]}": (texts[i] if i < len(texts) else None) for i in range(4)}


LETTERS = "ABCD"


def option_pairs(q: dict) -> list[tuple[str, bool]]:
    """The question's options in order, each with whether it is a correct answer (``mcq``,
    ``multi_select``): an empty option between two others is left out."""
    right = correct_letters(q)
    return [(q[f"option_{x.lower()}"], x in right) for x in LETTERS if q.get(f"option_{x.lower()}")]


def correct_letters(q: dict) -> set[str]:
    if q["question_type"] == "multi_select":
        return set(q.get("correct_answers") or [])
    return {q["correct_answer"]} if q.get("correct_answer") else set()


def number(v: float) -> str:
    return str(int(v)) if float(v) == int(v) else repr(float(v))


# ------------------------------------------------------------------ XML
class _LineBuilder(TreeBuilder):
    """Records the line where each element starts (``lines[id(element)]``)."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: Any = None
        self.lines: dict[int, int] = {}

    def start(self, tag: Any, attrs: Any) -> Element:
        el = super().start(tag, attrs)
        self.lines[id(el)] = self.parser.parser.CurrentLineNumber
        return el


def parse_xml(data: bytes) -> tuple[Element, dict[int, int]]:
    """An XML document parsed without DTDs, entities or external references (defusedxml), with
    the start line of each element."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import DefusedXMLParser, ParseError

    if len(data) > MAX_XML_BYTES:
        raise FormatError(f"The XML document exceeds {MAX_XML_BYTES} bytes")
    builder = _LineBuilder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=True)
    builder.parser = parser
    try:
        parser.feed(data)
        root = parser.close()
    except DefusedXmlException:
        raise FormatError("The XML document declares a DTD or entities, which are refused") from None
    except ParseError as exc:
        raise FormatError(f"The file is not well-formed XML: {exc}", line=getattr(exc, "position", (1, 0))[0]) from None
    return root, builder.lines


def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


# ------------------------------------------------------------------ zip
def read_zip(data: bytes) -> dict[str, bytes]:
    """Members of a zip archive by normalised path. Refused: more than ``MAX_ZIP_MEMBERS`` members,
    more than ``MAX_ZIP_TOTAL`` bytes uncompressed (counted while reading, not trusted from the
    directory), absolute or ``..`` paths (zip slip), encrypted members."""
    import zlib

    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, zlib.error):
        raise FormatError("The file is not a valid zip archive") from None
    infos = zf.infolist()
    if len(infos) > MAX_ZIP_MEMBERS:
        raise FormatError(f"The archive has more than {MAX_ZIP_MEMBERS} members")
    out: dict[str, bytes] = {}
    total = 0
    for info in infos:
        name = info.filename.replace("\\", "/")
        norm = posixpath.normpath(name)
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or norm == ".." or norm.startswith("../"):
            raise FormatError(f"The archive member path {name!r} leaves the package")
        if info.is_dir():
            continue
        if info.flag_bits & 0x1:
            raise FormatError(f"The archive member {name!r} is encrypted")
        if total + info.file_size > MAX_ZIP_TOTAL:
            raise FormatError(f"The archive expands to more than {MAX_ZIP_TOTAL} bytes")
        try:
            with zf.open(info) as fh:
                chunk = fh.read(MAX_ZIP_TOTAL - total + 1)
        except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError, ValueError, zlib.error) as exc:
            raise FormatError(f"The archive member {name!r} cannot be read: {exc}") from None
        total += len(chunk)
        if total > MAX_ZIP_TOTAL:
            raise FormatError(f"The archive expands to more than {MAX_ZIP_TOTAL} bytes")
        out[norm] = chunk
    return out
