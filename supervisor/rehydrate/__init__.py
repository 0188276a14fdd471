"""Rehydrate the agent: the payload within its token budget, sanitized, and the injector that
delivers it.
"""
