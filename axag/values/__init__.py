"""The value kernel, standard library only, below the model: JSON values and their canonical text
(`jsontext`), JSON text with source spans (`jsonspan`), the ECMA-262 pattern subset axag accepts (`pattern`) and
the guard runtime (`pyruntime`: schema validation, formats, fingerprints, the `ToolGuard`), which the model uses
for defaults and formats, serve runs in process, and `axag guards` copies verbatim into every generated Python
guard package as ``_runtime.py``."""
