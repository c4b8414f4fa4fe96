"""Connectors (issue 29): chat exports, database rows and web pages turned
into documents whose text records where each message, column or page came
from. Pure: no Django here; `ingest.sources` stores what they produce.

Each connector yields `Item`s (`ingest.connectors.items`): a key the source
keeps for it (a thread, a row's key, a URL), the document's text built block
by block with each block's location (`segments`), and its metadata. The
segments become chunk metadata, so a citation names the message, row and
column it quotes.
"""
