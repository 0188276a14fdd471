"""The terminal layer: the PTY, the byte pre-filter, the emulator behind its Protocol, keys, the
read loop and the recorder.
"""
