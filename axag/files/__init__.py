"""The files of a run and what reaches the file system: which files a run checks (`discover`, with the
`globs` of ``include``/``exclude``), their paths (`paths`), reading an input whole without blocking
(`read_whole`), decoding it (`source`, READ) and positions in the text (`spans`), the JSON and TOML files users
hand to axag (`read_json`), the files a result depends on (`depends`), the shipped JSON Schemas
(`shipped_schemas`), unpickling that admits only named classes (`restricted_pickle`) and every write of an
output (`write`). Imports nothing: the console script's fast path imports `read_whole` alone."""
