"""Handlers for the serve tests: tool name -> callable (sync or async)."""

from collections.abc import Mapping


async def add_note(arguments: Mapping[str, object]) -> dict[str, object]:
    return {"stored": arguments["text"]}


HANDLERS = {"note_add": add_note}
