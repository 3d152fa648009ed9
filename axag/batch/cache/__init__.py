"""The per-file result cache: its entries (`store`), bundles of entries (`bundle`), where it lives
(`location`), the per-user secret that authenticates it (`secret`) and the unpickling it allows (`pickles`).
Imports nothing, so that `location` and `secret` load alone."""
