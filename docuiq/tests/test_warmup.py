"""Warm-up at process start (issue 34 item 5): what every process needs is
loaded before its first request, a part that fails never stops the process,
and gunicorn and Celery call it."""

from __future__ import annotations

import importlib

import pytest

from docuiq import warmup


@pytest.fixture
def cold(monkeypatch):
    monkeypatch.setattr(warmup, "_warmed", {})


def test_every_part_is_loaded_once_and_timed(cold, monkeypatch):
    calls = []
    monkeypatch.setattr(
        warmup,
        "PARTS",
        tuple((name, lambda n=name: calls.append(n)) for name, _ in warmup.PARTS),
    )
    monkeypatch.setattr(
        warmup, "DATABASE_PARTS", (("hot documents", lambda: calls.append("db")),)
    )
    assert set(warmup.warm_process(database=False)) == {n for n, _ in warmup.PARTS}
    assert "db" not in calls  # gunicorn's master opens no connection
    first = warmup.warm_process()
    assert set(first) == {n for n, _ in warmup.PARTS} | {"hot documents"}
    assert warmup.warm_process() == first
    assert sorted(calls) == sorted([*(name for name, _ in warmup.PARTS), "db"])


def test_a_part_that_fails_is_logged_and_left_for_first_use(cold, monkeypatch, caplog):
    def broken():
        raise RuntimeError("no model file")

    monkeypatch.setattr(warmup, "PARTS", (("embedder", broken), ("fine", lambda: None)))
    monkeypatch.setattr(warmup, "DATABASE_PARTS", ())
    assert warmup.warm_process() == {"fine": pytest.approx(0, abs=50)}
    assert "Warm-up of the embedder failed" in caplog.text


def test_the_real_parts_load_the_word_list_and_the_routes(cold):
    from django.urls import get_resolver

    from citations.cascade import lexicon

    lexicon._tables.cache_clear()
    warmup.warm_process(database=False)
    assert lexicon._tables.cache_info().currsize == 1
    assert get_resolver()._populated


def test_gunicorn_preloads_and_warms_and_celery_children_warm():
    conf = importlib.import_module("docuiq.gunicorn_conf")
    assert conf.preload_app is True
    assert callable(conf.post_fork) and callable(conf.when_ready)
    from celery.signals import worker_process_init

    import docuiq.celery as celery_module

    receivers = [r[1]() for r in worker_process_init.receivers]
    assert celery_module._warm in receivers
