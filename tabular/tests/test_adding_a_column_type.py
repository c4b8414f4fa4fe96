"""docs/how-to-add-a-column-type.md, walked: a fake column type, one row of
the table plus its own class, is listed by the form and the error messages,
parsed from a column line, accepted by the REST API and the model field,
asked with its answer format and named to a model reading a whole document,
read, stored, shown, sorted and exported through the table's helpers, and
checked against the verified quote it is cited from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings

from llm import prompting
from tabular import column_types, model_reading
from tabular.api import ColumnInputSerializer
from tabular.column_types import ColumnType, Support
from tabular.executor import _asked, _question
from tabular.models import ReviewColumn
from tabular.reading import value_support
from tabular.services import ReviewError, parse_column


@dataclass(frozen=True)
class Stars:
    count: int
    start: int
    end: int


class Rating(ColumnType):
    """What a rating column's module would hold (tabular/column_types/rating.py)."""

    def holds(self, value: object) -> bool:
        return isinstance(value, Stars)

    def to_json(self, value: Stars) -> dict:
        return {"kind": "rating", "stars": value.count}

    def display(self, typed: dict) -> str:
        return f"{int(typed['stars'])}/5"

    def sort(self, typed: dict) -> tuple[str, float]:
        return "", -int(typed["stars"])  # best first

    def xlsx(self, typed: dict) -> tuple[Any, str | None]:
        return int(typed["stars"]), '0 "/5"'

    def read(self, text: str, options: Sequence[str] = ()) -> Stars | None:
        found = re.search(r"\b([0-5])\s*/\s*5\b", text)
        return Stars(int(found.group(1)), found.start(), found.end()) if found else None

    def support(self, value: str, quote: str, options: Sequence[str] = ()) -> Support:
        stars, stated = self.read(value), self.read(quote)
        if stars is None:
            return Support("unsupported", "The value is no score out of five.")
        if stated is not None and stated.count == stars.count:
            return Support("supported", f"The quote states {stars.count}/5.")
        return Support("unsupported", f"The quote does not state {stars.count}/5.")


RATING = Rating(
    "rating",
    "Rating",
    "rating",
    "number",  # a score is a number to the model (a real type's provider_type)
    'a score out of five, e.g. "4/5"',
    "4/5",
    aliases=("score", "stars"),
)


@pytest.fixture
def rating():
    with column_types.registered(RATING) as kind:
        yield kind


def test_a_new_type_is_known_by_its_names_and_listed(rating):
    assert column_types.column_type("Stars") is rating
    assert "rating" in column_types.names()
    assert ("rating", "Rating") in column_types.choices()
    spec = parse_column("Supplier score (score): How is the supplier rated?")
    assert spec.type == "rating"
    with pytest.raises(ReviewError) as raised:
        parse_column("Colour (colour): Which colour?")
    assert "rating" in str(raised.value)


@pytest.mark.django_db
def test_the_review_form_lists_a_new_type(rating, alice_client):
    page = alice_client.get("/tabular/")
    assert page.status_code == 200
    assert "rating" in page.content.decode()


def test_the_model_is_asked_in_the_new_types_answer_format(rating):
    column = ReviewColumn(
        name="Score", question="How is the supplier rated?", type="rating"
    )
    asked = _question(column)
    assert rating.answer_format in asked and rating.example in asked


def test_a_model_reading_a_whole_document_is_told_the_new_type(rating):
    column = ReviewColumn(
        name="Score", question="How is the supplier rated?", type="rating"
    )
    messages = prompting.build_cell_read_messages(
        title="Supplier review",
        source_label="PDF",
        sections=[prompting.ReadSection(index=0, location="Page 1", text="4/5")],
        sections_total=1,
        questions=model_reading._questions([_asked(7, column)]),
    )
    asked = messages[-1].content
    assert "Column type: number" in asked  # the row's provider_type, not text's
    assert rating.answer_format in asked


def test_the_api_accepts_a_new_type(rating):
    column = {"name": "Score", "question": "How is the supplier rated?"}
    accepted = ColumnInputSerializer(data={**column, "type": "rating"})
    assert accepted.is_valid(), accepted.errors
    assert accepted.validated_data["type"] == "rating"
    refused = ColumnInputSerializer(data={**column, "type": "colour"})
    assert not refused.is_valid()


def test_the_api_forgets_a_type_taken_out_of_the_table():
    column = {"name": "Score", "question": "How?", "type": "rating"}
    assert not ColumnInputSerializer(data=column).is_valid()


def test_the_model_field_validates_and_shows_a_new_type(rating):
    column = ReviewColumn(name="Score", question="How?", type="rating")
    column.clean_fields(exclude=["review", "order", "tenant"])
    assert column.get_type_display() == "Rating"


def test_a_new_types_value_is_read_stored_shown_sorted_and_exported(rating):
    four = column_types.read_typed("Rated 4 / 5 overall", "rating")
    assert four == Stars(4, 6, 11)
    stored = column_types.typed_json(four)
    assert stored == {"kind": "rating", "stars": 4}
    assert column_types.typed_display(stored) == "4/5"
    two = column_types.typed_json(column_types.read_typed("2/5", "rating"))
    assert sorted([two, None, stored], key=lambda t: column_types.sort_key(t, "")) == [
        stored,
        two,
        None,
    ]
    assert column_types.xlsx_value(stored) == (4, '0 "/5"')
    assert column_types.typed_display({"kind": "rating"}) == ""  # malformed


def test_a_new_types_value_is_checked_against_its_verified_quote(rating):
    quote = "The panel rated the supplier 4/5 for delivery."
    assert value_support("rating", "4/5", quote).state == "supported"
    assert value_support("rating", "2/5", quote).state == "unsupported"
    assert value_support("rating", "good", quote).state == "unsupported"
    assert value_support("rating", "4/5", "").state == "unsupported"  # no quote


def test_the_model_field_and_its_constraint_are_derived_from_the_table():
    assert column_types.column_type("stars") is None  # the fake is gone
    field = ReviewColumn._meta.get_field("type")
    assert list(field.choices) == column_types.choices()
    (constraint,) = [
        c
        for c in ReviewColumn._meta.constraints
        if c.name == "chk_reviewcol_type_values"
    ]
    assert list(constraint.condition.children[0][1]) == column_types.keys()
    # Migrations keep the choices as the table's function, not its rows: a new
    # type's migration changes the constraint only.
    assert field.deconstruct()[3]["choices"] is column_types.choices


def test_the_docs_walk_through_adding_a_type_and_list_every_type():
    docs = Path(django_settings.BASE_DIR) / "docs"
    how_to = (docs / "how-to-add-a-column-type.md").read_text()
    assert "tabular/column_types/__init__.py" in how_to
    assert "makemigrations" in how_to
    assert Path(__file__).name in how_to
    table = (docs / "tabular.md").read_text()
    for kind in column_types.COLUMN_TYPES:
        assert f"| `{kind.key}` |" in table, kind.key
