"""Orchestration: one supervised session and its start-up, headless (no Textual)."""
