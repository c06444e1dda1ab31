"""The maintained table of competitions a problem file may cite, and what it says about a
`source.reference`: the competition, its source type, the year and the problem number.

A reference is typed by looking its competition up in COMPETITIONS (the name as references spell
it, with aliases), not by keyword rules: "Poland 1996", "Iran 1996", "Korea 1998", "European
Mathematical Cup 2017" and "Czech-Polish-Slovak Junior Match 2014" are olympiads because the table
says so, and "Putnam and Beyond ..., Chapter 2" is a book because that name is in the table too (and
is longer than "Putnam" at the same place). A competition missing from the table is typed `other`
until a row is added here. References that name no competition fall back to `classical` (a named
or folklore inequality) or `other`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INTERNATIONAL = "international-olympiad"
NATIONAL = "national-olympiad"
TST = "team-selection-test"
SHORTLIST = "shortlist"
NATIONAL_COMPETITION = "national-competition"  # national, below olympiad level (AIME)
REGIONAL = "regional-competition"
UNDERGRADUATE = "undergraduate-competition"
BOOK = "book"
JOURNAL = "journal"
QA = "q-and-a"
CLASSICAL = "classical"
OTHER = "other"
NONE = "none"

# The competition types: a reference citing one of them must give a problem number.
COMPETITION_TYPES = frozenset({INTERNATIONAL, NATIONAL, TST, SHORTLIST, NATIONAL_COMPETITION, REGIONAL, UNDERGRADUATE})
OLYMPIAD_TYPES = frozenset({INTERNATIONAL, NATIONAL, TST, SHORTLIST})


@dataclass(frozen=True)
class Competition:
    slug: str  # the family prefix: <slug>-<year>-p<number>
    kind: str  # one of the types above
    names: tuple[str, ...]  # as references spell it; matched as whole words, case-sensitive


# One row per competition (or book, journal, Q&A site). Add a row when a file cites a new one.
COMPETITIONS: tuple[Competition, ...] = (
    Competition("imo", INTERNATIONAL, ("IMO", "International Mathematical Olympiad")),
    Competition("isl", SHORTLIST, ("IMO Shortlist", "ISL", "IMO Short List")),
    Competition("ill", SHORTLIST, ("IMO Longlist", "IMO Long List")),
    Competition("apmo", INTERNATIONAL, ("APMO", "Asian Pacific Mathematical Olympiad", "Asian-Pacific MO")),
    Competition("balkan", INTERNATIONAL, ("Balkan MO", "Balkan Mathematical Olympiad")),
    Competition("jbmo", INTERNATIONAL, ("JBMO", "Junior Balkan MO", "Junior Balkan Mathematical Olympiad")),
    Competition("balkan-sl", SHORTLIST, ("Balkan MO Shortlist",)),
    Competition("jbmo-sl", SHORTLIST, ("JBMO Shortlist", "Junior Balkan MO Shortlist")),
    Competition("egmo", INTERNATIONAL, ("EGMO", "European Girls' Mathematical Olympiad")),
    Competition("memo", INTERNATIONAL, ("MEMO", "Middle European Mathematical Olympiad")),
    Competition("baltic-way", INTERNATIONAL, ("Baltic Way",)),
    Competition("iberoamerican", INTERNATIONAL, ("Iberoamerican", "Iberoamerican Mathematical Olympiad")),
    Competition("tot", INTERNATIONAL, ("Tournament of Towns",)),
    Competition("rmm", INTERNATIONAL, ("RMM", "Romanian Masters", "Romanian Masters of Mathematics")),
    Competition("silk-road", INTERNATIONAL, ("Silk Road",)),
    Competition("zhautykov", INTERNATIONAL, ("International Zhautykov Olympiad",)),
    Competition("emc", INTERNATIONAL, ("European Mathematical Cup",)),
    Competition("cps-junior", INTERNATIONAL, ("Czech-Polish-Slovak Junior Match",)),
    Competition("cps", INTERNATIONAL, ("Czech-Polish-Slovak Match",)),
    Competition("hungary-israel", INTERNATIONAL, ("Hungary-Israel Binational Mathematical Competition",)),
    Competition("rioplatense", INTERNATIONAL, ("Rioplatense Mathematical Olympiad", "Rioplatense")),
    Competition("pamo", INTERNATIONAL, ("Pan African Mathematical Olympiad", "Pan African MO", "PAMO")),
    # Bucharest's invitational olympiad: its senior contest is sat by teams from several countries
    Competition("stars-of-mathematics", INTERNATIONAL, ("Stars of Mathematics",)),
    Competition("usamo", NATIONAL, ("USAMO",)),
    Competition("czech-slovak", NATIONAL, ("Czech and Slovak Olympiad", "Czech and Slovak MO")),
    Competition("canada", NATIONAL, ("Canada MO", "Canadian MO", "Canadian Mathematical Olympiad")),
    Competition("japan", NATIONAL, ("Japan MO", "Japan Mathematical Olympiad")),
    Competition("poland", NATIONAL, ("Poland", "Polish MO", "Polish Mathematical Olympiad")),
    Competition("iran", NATIONAL, ("Iran", "Iran MO", "Iranian Mathematical Olympiad")),
    Competition("korea", NATIONAL, ("Korea", "Korea MO", "Korean Mathematical Olympiad")),
    Competition("vietnam", NATIONAL, ("Vietnam MO", "Vietnam National Olympiad", "Vietnam")),
    Competition("vietnam-tst", TST, ("Vietnam TST", "Vietnamese IMO Team Selection Test")),
    Competition("china", NATIONAL, ("China MO", "Chinese Mathematical Olympiad", "中国数学奥林匹克")),
    Competition("china-league", NATIONAL, ("China Mathematical Competition", "全国高中数学联赛")),
    Competition(
        "cgmo",
        NATIONAL,
        ("China Girls' Mathematical Olympiad", "China Girls Math Olympiad", "China Girls MO", "女子数学奥林匹克"),
    ),
    Competition("china-western", NATIONAL, ("China Western MO", "China Western Mathematical Olympiad")),
    Competition("china-southeast", NATIONAL, ("China Southeast MO", "China Southeastern Mathematical Olympiad")),
    Competition("cuba", NATIONAL, ("Cuba MO", "Cuban Mathematical Olympiad")),
    Competition("austria", NATIONAL, ("Austria MO", "Austrian Mathematical Olympiad")),
    Competition("turkey", NATIONAL, ("Turkey National Mathematical Olympiad", "Turkey MO")),
    Competition("thailand", NATIONAL, ("Thailand Mathematical Olympiad", "Thailand MO")),
    # Sweden's national olympiad (Skolornas matematiktävling), its final round
    Competition("romania-nmo", NATIONAL, ("Romanian National Mathematical Olympiad", "Romanian NMO")),
    Competition("philippine-mo", NATIONAL, ("Philippine Mathematical Olympiad", "Philippine MO")),
    Competition("german-mo", NATIONAL, ("German National Mathematical Olympiad", "Bundesrunde")),
    Competition("india-mo", NATIONAL, ("Indian National Mathematical Olympiad", "INMO")),
    # Norway's national olympiad; its final round is the Abel Competition proper
    Competition("abel", NATIONAL, ("Abel Competition", "Abelkonkurransen")),
    Competition("kyrgyzstan", NATIONAL, ("Kyrgyzstan Republican Mathematical Olympiad",)),
    Competition("kazakhstan", NATIONAL, ("Kazakhstan Republican Mathematical Olympiad",)),
    # the UK's olympiad, first round, sat in November: cited by that year (2025 for the 2025-26 round)
    Competition("uk-bmo1", NATIONAL, ("British Mathematical Olympiad Round 1", "UK BMO Round 1")),
    Competition("lithuania", NATIONAL, ("Lithuanian Mathematical Olympiad",)),
    # Croatia's olympiad (HMO) is its IMO team selection: its problems are numbered over four days
    Competition("croatia-mo", TST, ("Croatian Mathematical Olympiad",)),
    Competition("sweden", NATIONAL, ("Swedish Mathematical Competition", "Swedish MO")),
    # New Zealand's olympiad (NZMO), cited by its round two
    Competition("nzmo", NATIONAL, ("New Zealand Mathematical Olympiad",)),
    Competition("ireland", NATIONAL, ("Irish Mathematical Olympiad", "Irish Math Olympiad", "Irish MO")),
    Competition("china-tst", TST, ("China TST", "China Team Selection Test", "国家集训队")),
    Competition("moldova-tst", TST, ("Moldova Team Selection Test", "Moldova TST")),
    Competition("mongolia-tst", TST, ("Mongolia Team Selection Test", "Mongolia TST")),
    Competition("bulgaria-tst", TST, ("Bulgarian Team Selection Test", "Bulgaria TST")),
    Competition("iran-tst", TST, ("Iran TST",)),
    Competition("usa-tst", TST, ("USA TST",)),
    Competition("malaysia-imonst", TST, ("Malaysia IMO National Selection Test",)),
    Competition("lithuania-tst", TST, ("Lithuanian IMO Team Selection Test",)),
    Competition("estonia-tst", TST, ("Estonian IMO Team Selection Test",)),
    Competition("saudi-tst", TST, ("Saudi Arabia IMO TST", "Saudi Arabia TST")),
    Competition("aime", NATIONAL_COMPETITION, ("AIME",)),
    # Germany's national competition beside its olympiad; cited by year and round
    Competition("bwm", NATIONAL_COMPETITION, ("Bundeswettbewerb Mathematik",)),
    Competition("hmmt-feb", NATIONAL_COMPETITION, ("HMMT February", "Harvard-MIT Mathematics Tournament February")),
    # Carnegie Mellon's contest for high-school students, run like HMMT
    Competition("cmimc", NATIONAL_COMPETITION, ("CMIMC", "Carnegie Mellon Informatics and Mathematics Competition")),
    Competition("bosnia-regional", REGIONAL, ("Bosnia and Herzegovina Regional Olympiad",)),
    Competition("zhejiang", REGIONAL, ("Zhejiang Province High School Mathematics Competition", "浙江省高中数学竞赛")),
    Competition("putnam", UNDERGRADUATE, ("Putnam",)),
    Competition("imc", UNDERGRADUATE, ("International Mathematics Competition for University Students", "IMC")),
    Competition("putnam-and-beyond", BOOK, ("Putnam and Beyond",)),
    Competition("secrets", BOOK, ("Secrets in Inequalities",)),
    Competition("kvant", JOURNAL, ("Kvant",)),
    Competition("crux", JOURNAL, ("Crux", "Crux Mathematicorum")),
    Competition("reflections", JOURNAL, ("Mathematical Reflections",)),
    Competition("monthly", JOURNAL, ("American Mathematical Monthly",)),
    Competition("mse", QA, ("Mathematics Stack Exchange", "math.stackexchange")),
    Competition("aops", QA, ("AoPS", "Art of Problem Solving")),
    Competition("hoc24", QA, ("hoc24.vn",)),
)

_CLASSICAL = re.compile(r"(?i)^\s*(classical|known|folklore|standard)\b|'s inequality")
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
# "Problem 5", "Problem 2.3", "Problem 2(a)", "A2" (shortlist), "B2" (Putnam), "Part 5"
_NUMBER = re.compile(r"\b(?:Problem|Part|P)\s*(\d+(?:\.\d+)?)|\b([ACGN]\d{1,2}|[AB][1-6])\b")


def _boundary(text: str, start: int, end: int) -> bool:
    """Whole-word match for Latin names (CJK names have no word boundaries)."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum())


def find_competition(reference: str | None) -> tuple[Competition, int, int] | None:
    """The table row a reference cites, with the span of the name: the earliest name found,
    the longest one at that place ("IMO Shortlist" over "IMO", "Putnam and Beyond" over "Putnam")."""
    if not reference:
        return None
    best = None
    for row in COMPETITIONS:
        for name in row.names:
            start = reference.find(name)
            while start != -1 and not _boundary(reference, start, start + len(name)):
                start = reference.find(name, start + 1)
            if start == -1:
                continue
            key = (start, -len(name))
            if best is None or key < best[0]:
                best = (key, row, start, start + len(name))
    return None if best is None else best[1:]


@dataclass(frozen=True)
class Citation:
    kind: str  # the source type
    competition: str | None  # the table slug
    year: str | None
    number: str | None  # the problem number as cited ("5", "A2", "2.3")

    @property
    def complete(self) -> bool:
        """A competition reference is complete with its year and problem number."""
        return self.kind not in COMPETITION_TYPES or (self.year is not None and self.number is not None)


def cite(reference: str | None) -> Citation:
    """What a source.reference cites. Year and number are read from the text after the
    competition's name up to the first semicolon, parenthesised commentary left out."""
    if not reference or not reference.strip():
        return Citation(NONE, None, None, None)
    found = find_competition(reference)
    if found is None:
        return Citation(CLASSICAL if _CLASSICAL.search(reference) else OTHER, None, None, None)
    row, _, end = found
    tail = reference[end:].split(";")[0]
    while (inner := re.sub(r"\([^()]*\)", " ", tail)) != tail:  # drop commentary in parentheses
        tail = inner
    year = _YEAR.search(tail)
    number = _NUMBER.search(tail[year.end() :] if year else tail)
    return Citation(
        row.kind,
        row.slug,
        year.group(1) if year else None,
        (number.group(1) or number.group(2)) if number else None,
    )


def source_type(reference: str | None) -> str:
    """The source type of a `source.reference` (the table's type of the competition it cites;
    `classical`, `other` or `none` when it cites none)."""
    return cite(reference).kind


def family_prefix(reference: str | None) -> str | None:
    """`<slug>-<year>` of the competition a reference cites (None when it names no competition
    and year): a file's `family` starts with it."""
    citation = cite(reference)
    if citation.competition is None or citation.year is None:
        return None
    return f"{citation.competition}-{citation.year}"


_ITEM = re.compile(r"\b(?:question|Problem)\s+([A-Z]?\d+)")


def proposed_family(reference: str | None) -> str | None:
    """`<slug>-<year>-p<number>` (lower case; `isl-2019-a2`, `putnam-2018-a3`), or the prefix
    alone without a number; `<slug>-<item>` for a journal problem or a Q&A question
    (`kvant-m1228`, `mse-847292`); None when the reference names no table row."""
    citation = cite(reference)
    if citation.kind in (JOURNAL, QA):
        item = _ITEM.search(reference or "")
        return f"{citation.competition}-{item.group(1).lower()}" if item else None
    prefix = family_prefix(reference)
    if prefix is None or citation.number is None:
        return prefix
    number = citation.number.lower()
    return f"{prefix}-{number if number[0].isalpha() else 'p' + number}"
