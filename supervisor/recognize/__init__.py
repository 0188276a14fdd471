"""Recognize a loss: observations from the screen, the stream, hooks, transcripts and the process,
fused into incidents.
"""
