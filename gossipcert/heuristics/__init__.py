"""The papers' heuristics: schedules without a guarantee of optimality, verified before use."""
