"""The handler of the OAuth tests' one tool (tests/data/oauth/site/notes.html): it echoes the note."""

from collections.abc import Mapping


async def add_note(arguments: Mapping[str, object]) -> dict[str, object]:
    return {"stored": arguments["text"]}


HANDLERS = {"note_add": add_note}
