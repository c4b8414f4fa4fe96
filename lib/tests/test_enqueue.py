"""lib.worker.enqueue.send: the one way a task is sent after a commit. What
it records once the task is handed over (`on_sent`), what a broker outage
does, and that any other error is raised."""

from __future__ import annotations

import logging

import pytest

from lib.worker.enqueue import send


class FakeTask:
    name = "fake.task"

    def __init__(self, fails_with: Exception | None = None) -> None:
        self.fails_with = fails_with
        self.ran: list[tuple] = []
        self.published: list[tuple] = []

    def apply(self, args: tuple = (), **_: object) -> None:
        self.ran.append(args)

    def delay(self, *args: object) -> None:
        if self.fails_with is not None:
            raise self.fails_with
        self.published.append(args)


def test_eager_runs_the_task_here_then_records_it_sent():
    task, seen = FakeTask(), []
    assert send(task, "doc-1", on_sent=lambda: seen.append(list(task.ran)))
    assert task.ran == [("doc-1",)] and not task.published
    assert seen == [[("doc-1",)]]  # after the run


def test_a_published_task_is_recorded_sent(broker_publishes):
    task, seen = FakeTask(), []
    assert send(task, "doc-1", on_sent=lambda: seen.append("sent"))
    assert task.published == [("doc-1",)] and not task.ran
    assert seen == ["sent"]


def test_a_broker_outage_is_logged_and_not_recorded_sent(broker_publishes, caplog):
    task, seen = FakeTask(ConnectionRefusedError("down")), []
    with caplog.at_level(logging.WARNING, logger="lib.worker.enqueue"):
        assert not send(task, "doc-1", on_sent=lambda: seen.append("sent"))
    assert seen == []
    assert "is left to its sweep" in caplog.text


def test_an_error_that_is_not_the_brokers_is_raised(broker_publishes):
    task = FakeTask(TypeError("not serializable"))
    with pytest.raises(TypeError):
        send(task, object(), on_sent=lambda: None)
