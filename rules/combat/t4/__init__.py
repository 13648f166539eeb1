"""T4 basic combat (KBv1.1 house rules on T4) for FFA characters: docs/combat-t4.md."""
