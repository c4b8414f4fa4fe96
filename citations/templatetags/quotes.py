"""Template filters for quoted text: `reflow` (a quote: the PDF's line breaks
read as spaces) and `reflow_quoted` (an answer: only its quotations reflow).
See citations/reflow.py. The output is escaped like any other value."""

from __future__ import annotations

from django import template

from citations.reflow import reflow, reflow_quoted

register = template.Library()
register.filter("reflow", reflow)
register.filter("reflow_quoted", reflow_quoted)
