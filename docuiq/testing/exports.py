"""Chat exports and tables made for tests and benchmarks (issue 29): a Slack
workspace export zip and a Teams channel export in the shapes the real tools
write, and a SQLite table of contracts."""

from __future__ import annotations

import io
import json
import random
import sqlite3
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = [
    "SlackMessage",
    "slack_export",
    "slack_export_generated",
    "sqlite_contracts",
    "teams_export",
]

BASE = datetime(2026, 3, 3, 14, 2, tzinfo=UTC)


@dataclass
class SlackMessage:
    channel: str
    user: str
    text: str
    ts: datetime
    thread_ts: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _ts(moment: datetime) -> str:
    return f"{moment.timestamp():.6f}"


def slack_export(
    messages: list[SlackMessage],
    *,
    users: dict[str, str],
    channels: dict[str, str],
    files: dict[str, bytes] | None = None,
) -> bytes:
    """A Slack export zip: channels.json, users.json, <channel>/<day>.json.
    `channels` maps id -> name; `files` maps `__uploads/<id>/<name>` paths to
    bytes included in the archive."""
    by_day: dict[tuple[str, str], list[dict]] = {}
    for m in messages:
        raw: dict[str, Any] = {
            "type": "message",
            "user": m.user,
            "text": m.text,
            "ts": _ts(m.ts),
            **m.extra,
        }
        if m.thread_ts is not None:
            raw["thread_ts"] = _ts(m.thread_ts)
        by_day.setdefault((channels[m.channel], m.ts.strftime("%Y-%m-%d")), []).append(
            raw
        )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "channels.json",
            json.dumps(
                [
                    {"id": cid, "name": name, "created": 1700000000}
                    for cid, name in channels.items()
                ]
            ),
        )
        zf.writestr(
            "users.json",
            json.dumps(
                [
                    {
                        "id": uid,
                        "name": name.split()[0].lower(),
                        "real_name": name,
                        "profile": {"real_name": name},
                    }
                    for uid, name in users.items()
                ]
            ),
        )
        for (channel, day), rows in sorted(by_day.items()):
            zf.writestr(f"{channel}/{day}.json", json.dumps(rows, indent=1))
        for path, data in (files or {}).items():
            zf.writestr(path, data)
    return out.getvalue()


_WORDS = [
    "notice",
    "period",
    "termination",
    "renewal",
    "indemnity",
    "liability",
    "cap",
    "invoice",
    "payment",
    "delivery",
    "schedule",
    "warranty",
    "audit",
    "clause",
    "draft",
    "counterparty",
    "signature",
    "escrow",
    "governing",
    "law",
    "arbitration",
    "confidentiality",
    "breach",
    "remedy",
    "consent",
    "assignment",
]


def slack_export_generated(
    *, messages: int, threads: int, channels: int = 5, seed: int = 7
) -> bytes:
    """A large export: `messages` messages in `threads` threads over
    `channels` channels (the bench)."""
    rng = random.Random(seed)
    users = {f"U{i:05d}": f"User {i}" for i in range(50)}
    chans = {f"C{i:05d}": f"channel-{i}" for i in range(channels)}
    per_thread = max(1, messages // threads)
    rows = []
    for t in range(threads):
        channel = f"C{t % channels:05d}"
        root = BASE + timedelta(minutes=37 * t)
        for r in range(per_thread):
            words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 30)))
            ts = root + timedelta(seconds=30 * r)
            rows.append(
                SlackMessage(
                    channel=channel,
                    user=rng.choice(list(users)),
                    text=f"Message {t}-{r}: the {words}.",
                    ts=ts,
                    thread_ts=root,
                )
            )
    return slack_export(rows, users=users, channels=chans)


def teams_export(
    posts: list[dict[str, Any]], *, channel: str = "General", team: str = "Legal"
) -> bytes:
    """A Teams channel export: {"team", "channel", "messages": [chatMessage
    with replies]}. Each post: {"id", "from", "text", "at", "replies": [...]}"""

    def message(p: dict[str, Any], reply_to: str | None) -> dict[str, Any]:
        at = p["at"]
        return {
            "id": p["id"],
            "replyToId": reply_to,
            "messageType": "message",
            "createdDateTime": at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "lastModifiedDateTime": None,
            "deletedDateTime": p.get("deleted"),
            "subject": p.get("subject"),
            "from": {"user": {"id": f"u-{p['from']}", "displayName": p["from"]}},
            "body": {"contentType": "html", "content": p["text"]},
            "webUrl": f"https://teams.example.com/l/message/19%3Achannel/{p['id']}",
            "channelIdentity": {"teamId": "team-1", "channelId": "19:channel-general"},
            "attachments": [],
        }

    return json.dumps(
        {
            "team": {"id": "team-1", "displayName": team},
            "channel": {"id": "19:channel-general", "displayName": channel},
            "messages": [
                {
                    **message(p, None),
                    "replies": [message(r, p["id"]) for r in p.get("replies", [])],
                }
                for p in posts
            ],
        }
    ).encode()


def sqlite_contracts(path: Path, rows: list[tuple[int, str, str, str]]) -> Path:
    """A SQLite file with a `contracts` table (id, title, counterparty,
    notice_period)."""
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE contracts (id INTEGER PRIMARY KEY, title TEXT, counterparty TEXT, notice_period TEXT)"
    )
    db.executemany("INSERT INTO contracts VALUES (?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    return path
