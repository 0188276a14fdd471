"""Configuration read at the edge: agent profiles and the key map."""
