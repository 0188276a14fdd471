"""The `.tether/` folder: atomic files, notes, checkpoints, the cursor invariant, the lock and the
watcher.
"""
