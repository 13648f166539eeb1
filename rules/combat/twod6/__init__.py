"""2D6 combat (2D6 + skill + characteristic DM, 8+, Effect, dynamic initiative) for FFA
characters: docs/combat-2d6.md. The package is ``twod6``: a Python name cannot begin with a
digit."""
