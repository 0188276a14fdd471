"""The judge: which specifics of the pinned decisions another text kept, dropped or changed.

One judge behind the loss audit (a compaction summary against the pins), the
recall check (the agent's restatement against the pins) and the "dropped, not
pinned" list (the folded window against its summary), and `tether audit`.
It compares facts, not words: typed specifics (:mod:`.specifics`), normalized
with well-kept libraries (:mod:`.libraries`), looked for where the other text
speaks of the same subject (:mod:`.verdict`).
"""
