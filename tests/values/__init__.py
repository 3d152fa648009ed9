"""JSON values with spans and the ECMA pattern subset."""
