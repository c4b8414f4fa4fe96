"""How a citation's verdict is shown: one ordered table of display states,
used by the chat page, the review tab, the admin, tabular cells and exports.

A state is a row of `BADGE_STATES`, not a branch: the first row whose rule
holds for a citation's facts decides its badge (label, colour, icon, aria
text). A new state is a new row in its place of precedence, with its own
examples in the tests. Precedence, strongest first: a reviewer's rejection,
a stale citation (re-verification after a new revision failed), the kinds of
failure (in another source, found but differs, not found), a reference to a
source the model was never given, a reviewer's acceptance, the kinds of
verification, then pending and unverified.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citations.cascade.folding import fold_text
from citations.models import CitationReview, FailureKind, Method, Status

if TYPE_CHECKING:
    from citations.models import MessageCitation


@dataclass(frozen=True)
class BadgeFacts:
    """What the display depends on.

    status/method: the stored verdict; differs: a failed quote's passage
    was located and says something else (a number, a negation);
    differences: what differs, named ("35 → 36"), when known;
    found_in: the failed quote is in another source of the same answer, by its
    label; review: the latest reviewer decision ("accept", "reject" or "");
    stale: re-verification against a new revision failed.
    """

    status: str
    method: str | None = None
    differs: bool = False
    found_in: str = ""
    review: str = ""
    stale: bool = False
    differences: str = ""


@dataclass(frozen=True)
class BadgeState:
    """One citation's badge. `css` names the class `badge--<css>`; `colour`
    names the colour for outputs without the stylesheet (exports)."""

    key: str
    css: str
    label: str
    icon: str
    colour: str
    aria: str


@dataclass(frozen=True)
class DisplayState:
    """A row of the table: when it applies, how it looks, and facts it
    decides (its examples, checked by the tests). `label` and `aria` may name
    `{found_in}`, and `{differences}` (": 35 → 36", or nothing when none
    are named)."""

    key: str
    applies: Callable[[BadgeFacts], bool]
    css: str
    label: str
    icon: str
    colour: str
    aria: str
    examples: tuple[BadgeFacts, ...] = ()

    def badge(self, facts: BadgeFacts) -> BadgeState:
        named = {
            "found_in": facts.found_in,
            "differences": f": {facts.differences}" if facts.differences else "",
        }
        return BadgeState(
            key=self.key,
            css=self.css,
            label=self.label.format(**named),
            icon=self.icon,
            colour=self.colour,
            aria=self.aria.format(**named),
        )


def _failed(facts: BadgeFacts) -> bool:
    return facts.status == Status.FAILED


def _verified_by(*methods: str) -> Callable[[BadgeFacts], bool]:
    return lambda f: f.status == Status.VERIFIED and f.method in methods


BADGE_STATES: tuple[DisplayState, ...] = (
    DisplayState(
        key="rejected",
        applies=lambda f: f.review == CitationReview.Decision.REJECT,
        css="rejected",
        label="Rejected by a reviewer",
        icon="⊘",
        colour="red",
        aria="Citation rejected by a reviewer: do not rely on it",
        examples=(
            BadgeFacts(Status.VERIFIED, Method.EXACT, review="reject"),
            BadgeFacts(Status.FAILED, Method.FAILED, review="reject", stale=True),
        ),
    ),
    DisplayState(
        key="stale",
        applies=lambda f: f.stale and _failed(f),
        css="stale",
        label="Stale: the document changed and the quote no longer verifies",
        icon="⚠",
        colour="amber",
        aria="Stale citation: the document has a new version that does not "
        "hold this quote",
        examples=(
            BadgeFacts(Status.FAILED, Method.FAILED, stale=True),
            BadgeFacts(
                Status.FAILED, Method.FAILED, differs=True, stale=True, review="accept"
            ),
        ),
    ),
    DisplayState(
        key="elsewhere",
        applies=lambda f: _failed(f) and bool(f.found_in),
        css="failed",
        label="Not verified: the quote is in another source ({found_in})",
        icon="✗",
        colour="red",
        aria="Citation not verified: the quote is in another source, {found_in}",
        examples=(
            BadgeFacts(Status.FAILED, Method.FAILED, found_in="S2", differs=True),
        ),
    ),
    DisplayState(
        key="differs",
        applies=lambda f: _failed(f) and f.differs,
        css="differs",
        label="Found, differs{differences}",
        icon="≠",
        colour="amber",
        aria="Citation not verified: the passage was found but says something "
        "different{differences}",
        examples=(
            BadgeFacts(Status.FAILED, Method.FAILED, differs=True),
            BadgeFacts(Status.FAILED, Method.FAILED, differs=True, review="accept"),
            BadgeFacts(
                Status.FAILED, Method.FAILED, differs=True, differences="35 → 36"
            ),
        ),
    ),
    DisplayState(
        key="not_found",
        applies=_failed,
        css="failed",
        label="Not verified: quote not found in the source",
        icon="✗",
        colour="red",
        aria="Citation not verified: the quote was not found in the source",
        examples=(
            BadgeFacts(Status.FAILED, Method.FAILED),
            BadgeFacts(Status.FAILED, Method.FAILED, review="accept"),
        ),
    ),
    DisplayState(
        key="out_of_provenance",
        applies=lambda f: f.status == Status.OUT_OF_PROVENANCE,
        css="oop",
        label="Not verified: cites a source that was not provided",
        icon="!",
        colour="orange",
        aria="Citation not verified: it names a source the answer was not given",
        examples=(
            BadgeFacts(Status.OUT_OF_PROVENANCE),
            BadgeFacts(Status.OUT_OF_PROVENANCE, review="accept"),
        ),
    ),
    DisplayState(
        key="accepted",
        applies=lambda f: f.review == CitationReview.Decision.ACCEPT,
        css="accepted",
        label="Accepted by a reviewer",
        icon="✓",
        colour="green",
        aria="Citation accepted by a reviewer",
        examples=(
            BadgeFacts(Status.VERIFIED, Method.EXACT, review="accept"),
            BadgeFacts(Status.UNVERIFIED, review="accept"),
        ),
    ),
    DisplayState(
        key="exact",
        applies=_verified_by(Method.EXACT),
        css="verified",
        label="Verified: exact quote",
        icon="✓",
        colour="green",
        aria="Verified citation: the exact quote is in the source",
        examples=(
            BadgeFacts(Status.VERIFIED, Method.EXACT),
            BadgeFacts(Status.VERIFIED, Method.EXACT, stale=True),
        ),
    ),
    DisplayState(
        key="tolerant",
        applies=_verified_by(Method.TOLERANT),
        css="tolerant",
        label="Verified: tolerant match",
        icon="✓",
        colour="teal",
        aria="Verified citation: the quote is in the source up to spacing, "
        "punctuation or scanning errors",
        examples=(BadgeFacts(Status.VERIFIED, Method.TOLERANT),),
    ),
    DisplayState(
        key="judged",
        applies=lambda f: f.status == Status.VERIFIED,
        css="judged",
        label="Supported: judged by model",
        icon="≈",
        colour="blue",
        aria="Citation supported: a model judged that the passage says this",
        examples=(
            BadgeFacts(Status.VERIFIED, Method.LLM_JUDGE),
            BadgeFacts(Status.VERIFIED, Method.ENSEMBLE),
        ),
    ),
    DisplayState(
        key="pending",
        applies=lambda f: f.status == Status.PENDING,
        css="pending",
        label="Verifying…",
        icon="…",
        colour="grey",
        aria="Citation being verified",
        examples=(BadgeFacts(Status.PENDING),),
    ),
    DisplayState(
        key="unverified",
        applies=lambda f: True,
        css="unverified",
        label="Unverified: no quote to check",
        icon="?",
        colour="grey",
        aria="Citation unverified: it has no quote to check",
        examples=(BadgeFacts(Status.UNVERIFIED),),
    ),
)


def badge_for(facts: BadgeFacts) -> BadgeState:
    """The badge of the first state whose rule holds (the last always does)."""
    return next(s for s in BADGE_STATES if s.applies(facts)).badge(facts)


def badge_state(
    status: str,
    method: str | None,
    *,
    differs: bool = False,
    found_in: str = "",
    differences: str = "",
) -> BadgeState:
    """The badge for a verdict (no reviewer decision, not stale)."""
    return badge_for(
        BadgeFacts(
            status=status,
            method=method,
            differs=differs,
            found_in=found_in,
            differences=differences,
        )
    )


def differs_from_source(citation: MessageCitation) -> bool:
    """A failed citation whose passage the cascade located ("found,
    differs"), whatever its similarity: what failed it is a difference a rule
    names, not absence. Rows verified before failure kinds were stored
    have none, and claim no located passage."""
    return (
        citation.verification_status == Status.FAILED
        and citation.failure_kind == FailureKind.DIFFERS
    )


# How many differences a badge names, and how many words of each side.
DIFFERENCES_SHOWN = 2
DIFFERENCE_WORDS = 4
_EDGE_MARKS = ".,;:!?\"'()[]“”‘’"


def _side(words: list[str]) -> str:
    if not words:
        return "∅"
    shown = " ".join(words[:DIFFERENCE_WORDS])
    return shown + (" …" if len(words) > DIFFERENCE_WORDS else "")


def named_differences(quote: str, passage: str) -> str:
    """What a located passage says differently from the quote, word by word,
    quote side first: "35 → 36", "∅ → not" (a word only the source has),
    "shall → ∅" (only the quote). Words compare as the cascade folds them
    (quotation marks, dashes, ligatures, case), so spelling and layout are no
    difference; punctuation at a word's edges is none either. "" when no
    word differs."""

    def key(word: str) -> str:
        return fold_text(word).casefold().strip(_EDGE_MARKS)

    a = [w for w in quote.split() if key(w)]
    b = [w for w in passage.split() if key(w)]
    named = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=[key(w) for w in a], b=[key(w) for w in b], autojunk=False
    ).get_opcodes():
        if op == "equal":
            continue
        clean = [w.strip(_EDGE_MARKS) for w in a[i1:i2]]
        source = [w.strip(_EDGE_MARKS) for w in b[j1:j2]]
        named.append(f"{_side(clean)} → {_side(source)}")
        if len(named) == DIFFERENCES_SHOWN:
            break
    return "; ".join(named)


def citation_differences(citation: MessageCitation) -> str:
    """The named differences of a "found, differs" citation, else ""."""
    if not differs_from_source(citation):
        return ""
    return named_differences(citation.quoted_text, citation.candidate_text)


def latest_review(citation: MessageCitation) -> str:
    """The latest reviewer decision on a citation ("accept", "reject" or "").

    Read from `latest_decision` when the query annotated it
    (citations.reviews.with_latest_review), from prefetched `reviews` when
    they were prefetched, else with one query."""
    if hasattr(citation, "latest_decision"):
        return citation.latest_decision or ""
    prefetched = getattr(citation, "_prefetched_objects_cache", {}).get("reviews")
    if prefetched is not None:
        latest = max(prefetched, key=lambda r: (r.created_at, r.pk), default=None)
        return latest.decision if latest is not None else ""
    if citation.pk is None or citation._state.adding:
        return ""
    decision = (
        CitationReview.objects.with_scope(tenant=citation.tenant_id)
        .filter(tenant_id=citation.tenant_id, citation_id=citation.pk)
        .order_by("-created_at", "-id")
        .values_list("decision", flat=True)
        .first()
    )
    return decision or ""


def citation_badge(citation: MessageCitation) -> BadgeState:
    return badge_for(
        BadgeFacts(
            status=citation.verification_status,
            method=citation.verification_method,
            differs=differs_from_source(citation),
            found_in=citation.mis_attributed_to,
            differences=citation_differences(citation),
            review=latest_review(citation),
            stale=bool(getattr(citation, "is_stale", False)),
        )
    )


def match_summary(citation: MessageCitation) -> str:
    """The panel's "Match" line. A failed quote's score is its closest
    passage's similarity, which says nothing of a match: "Not found · score
    1.00" for a quote the guard failed on a "not" would contradict itself."""
    score = citation.match_score
    if citation.verification_status == Status.FAILED:
        if differs_from_source(citation):
            similar = f", {score:.2f} similar" if score is not None else ""
            return f"Differs from the source · passage found{similar}"
        return "Not found"
    kind = citation.get_match_type_display() or "—"
    return kind if score is None else f"{kind} · score {score:.2f}"


def footnote_text(
    *,
    number: int,
    title: str | None,
    page: int | None,
    quote: str,
    badge: BadgeState,
) -> str:
    where = title or "unknown source"
    if page:
        where += f", p. {page}"
    quoted = f' "{quote}"' if quote else ""
    return f"{where}:{quoted} ({badge.label})"
