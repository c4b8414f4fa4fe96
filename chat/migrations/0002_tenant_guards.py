from __future__ import annotations

from django.db import migrations

from accounts.dbguards import same_tenant


class Migration(migrations.Migration):
    dependencies = [("chat", "0001_initial")]

    operations = [
        same_tenant("messages", "session_id", "chat_chatsession"),
        same_tenant("chat_messagesource", "message_id", "messages"),
    ]
