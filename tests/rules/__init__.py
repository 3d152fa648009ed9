"""The rules: declarations, catalogue, per-rule fixtures and examples, the facts they judge."""
