"""Relevance beside verification: does a passage bear on the question?"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citations.relevance import (
    ANSWERS,
    OFF_TOPIC,
    RELATED,
    RELEVANCE_RULES,
    RelevanceJudge,
    best_first,
)

TERMINATION = "Either party may terminate this Agreement without cause upon ninety (90) days prior written notice."
LAW = "This Agreement shall be governed by and construed in accordance with the laws of the State of New York."
NON_COMPETE = (
    "During the Term, Distributor shall not compete with the Company in the Territory."
)
PAYMENT = (
    "The Customer shall pay each undisputed invoice within thirty (30) days of receipt."
)


@pytest.mark.parametrize(
    ("question", "passage", "label", "rule"),
    [
        # A synonym counts: "for convenience" is "without cause".
        ("Can either party terminate for convenience?", TERMINATION, ANSWERS, "score"),
        ("Which state's law governs the agreement?", LAW, ANSWERS, "score"),
        ("Is there a non-compete?", NON_COMPETE, ANSWERS, "score"),
        ("Is there a non-compete?", PAYMENT, OFF_TOPIC, "rare_concepts_missing"),
        # The question asks for a period: a passage without one cannot answer.
        (
            "How much notice is needed to terminate the agreement?",
            "The agreement may be terminated by the Board.",
            RELATED,
            "value_missing",
        ),
        ("What is the notice period for termination?", TERMINATION, ANSWERS, "score"),
        # Some of the concepts: related.
        (
            "Can the customer withhold payment of disputed amounts?",
            PAYMENT,
            RELATED,
            "score",
        ),
        ("Summarise this", PAYMENT, RELATED, "no_concepts"),
    ],
)
def test_ratings_and_the_rule_that_decided(question, passage, label, rule):
    rated = RelevanceJudge(question).rate(passage)
    assert (rated.label, rated.rule) == (label, rule), rated


def test_an_answering_passage_states_the_value_it_holds():
    rated = RelevanceJudge(
        "What is the notice period to terminate for convenience?"
    ).rate(TERMINATION)
    assert rated.label == ANSWERS and rated.stated == "90 days"
    assert RelevanceJudge("Which law governs?").rate(LAW).stated == "New York"
    # A passage that only relates states nothing.
    assert RelevanceJudge("Is there a non-compete?").rate(PAYMENT).stated is None


def test_rare_words_decide_and_common_ones_do_not():
    question = "Does the distributor agreement renew automatically?"
    common_only = "The Distributor shall perform this Agreement diligently."
    weights = {"distributor": 0.05, "renew": 2.5, "automat": 2.0}
    judge = RelevanceJudge(question, weights=weights)
    assert judge.rate(common_only).label == OFF_TOPIC
    assert judge.rate(common_only).rule == "rare_concepts_missing"
    renews = "This Agreement shall renew automatically for successive one-year terms."
    assert judge.rate(renews).label == ANSWERS
    # Without weights every concept weighs alike: the common word half-covers.
    assert RelevanceJudge(question).rate(common_only).label != ANSWERS


def test_documents_silent_on_what_carries_the_question_make_every_passage_off_topic():
    """'France' is written nowhere in the searched documents; 'capital' is
    (capital equipment). The question is about France: nothing answers."""
    question = "What is the capital of France?"
    equipment = "Capital Equipment purchased during the term for use on both Stations."
    vocabulary = {"capital", "equip", "purchas", "station"}
    weights = {"capital": 3.5, "franc": 4.6}  # an unwritten word is rarest of all
    judge = RelevanceJudge(question, weights=weights, written=vocabulary.__contains__)
    rated = judge.rate(equipment)
    assert (rated.label, rated.rule) == (OFF_TOPIC, "documents_silent")
    assert rated.unwritten == ("franc",)
    # Without knowing what the documents write, the same passage relates.
    assert RelevanceJudge(question, weights=weights).rate(equipment).label == RELATED


def test_a_light_unwritten_word_does_not_silence_the_documents():
    """One unwritten word among weightier written ones: the passage is still
    rated on what it covers."""
    question = "Can either party terminate for convenience under French law?"
    vocabulary = {"terminat", "without", "caus", "notic", "law", "govern"}
    weights = {"terminat": 2.0, "convenienc": 2.0, "french": 3.0, "law": 2.0}
    judge = RelevanceJudge(question, weights=weights, written=vocabulary.__contains__)
    # "convenience" is written as its synonym "without cause": written.
    assert judge.unwritten == ("french",)
    rated = judge.rate(TERMINATION)
    assert rated.rule != "documents_silent" and rated.label != OFF_TOPIC


def test_including_but_not_limited_to_is_no_cap():
    """Boilerplate limits nothing: a force majeure clause that says 'not
    limited to' does not answer a question about a cap on liability."""
    judge = RelevanceJudge("Is there a cap on liability?")
    force_majeure = (
        "Distributor shall not be liable for any failure due to causes beyond its "
        "control, including, but not limited to, Acts of God, fires and floods."
    )
    cap = "In no event shall either party's aggregate liability exceed the fees paid."
    assert judge.rate(force_majeure).label != ANSWERS
    assert judge.rate(cap).label == ANSWERS


def test_every_rule_is_named_and_documented_and_the_last_always_applies():
    names = [r.name for r in RELEVANCE_RULES]
    assert len(names) == len(set(names))
    assert all(r.doc for r in RELEVANCE_RULES)


def test_embedding_similarity_moves_the_score_within_its_weight():
    judge = RelevanceJudge("Can either party terminate for convenience?")
    lexical = judge.rate(TERMINATION).score
    assert (
        judge.rate(TERMINATION, dense=1.0).score
        >= judge.rate(TERMINATION, dense=0.0).score
    )
    assert abs(judge.rate(TERMINATION, dense=0.7).score - lexical) <= 0.3 + 1e-9


def test_best_first_puts_answers_before_related_before_off_topic():
    judge = RelevanceJudge("Can either party terminate for convenience?")
    rated = [(p, judge.rate(p)) for p in (PAYMENT, TERMINATION, NON_COMPETE)]
    ordered = [p for p, _ in best_first(rated)]
    assert ordered[0] == TERMINATION


@settings(max_examples=200, deadline=None)
@given(question=st.text(max_size=120), passage=st.text(max_size=400))
def test_any_text_gets_a_label_and_a_score_in_range(question, passage):
    rated = RelevanceJudge(question).rate(passage)
    assert rated.label in {ANSWERS, RELATED, OFF_TOPIC}
    assert 0.0 <= rated.score <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([TERMINATION, LAW, NON_COMPETE, PAYMENT]), st.text(max_size=200))
def test_adding_text_never_loses_a_concept(passage, extra):
    judge = RelevanceJudge(
        "Can either party terminate for convenience under the laws of New York?"
    )
    assert set(judge.rate(passage).matched) <= set(
        judge.rate(passage + " " + extra).matched
    )
