"""Fixtures for the e2e tier: the real agent CLIs, the fake model server, isolated homes.

Everything under tests/e2e is marked ``e2e``. The first test that needs ``agent_bins``
installs the pinned CLIs into the cache (outside the repository); later runs reuse it.
If node/npm are missing the tier FAILS with instructions (it is part of ``make test``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e import agents
from tests.e2e.fake_server import ServerProcess, start_server
from tests.e2e.tmux import TmuxSession

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


_INSTALL_REPORT: dict[str, float] = {}


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if _INSTALL_REPORT:
        parts = ", ".join(f"{k} {v:.1f}s" for k, v in _INSTALL_REPORT.items())
        terminalreporter.write_line(f"e2e agent CLIs: {parts} (0.0s = reused from the cache)")


@pytest.fixture(scope="session")
def agent_bins() -> agents.AgentBins:
    """Both CLIs at their pinned versions (installed on first use, then cached)."""
    try:
        bins = agents.ensure_agents()
    except agents.AgentInstallError as e:
        pytest.fail(str(e), pytrace=False)
    for pkg, secs in bins.install_seconds.items():
        version = agents.CLAUDE_VERSION if pkg == agents.CLAUDE_PACKAGE else agents.CODEX_VERSION
        _INSTALL_REPORT[f"{pkg}@{version}"] = secs
    return bins


@pytest.fixture(scope="session")
def copilot_bin() -> Path:
    """GitHub Copilot CLI at its pin (installed on first use, then cached)."""
    try:
        binary, secs = agents.ensure_copilot()
    except agents.AgentInstallError as e:
        pytest.fail(str(e), pytrace=False)
    _INSTALL_REPORT[f"{agents.COPILOT_PACKAGE}@{agents.COPILOT_VERSION}"] = secs
    return binary


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A fresh fake model server process for this test (log: ``<tmp>/server/requests.jsonl``).
    ``.url``, ``.port``, ``.pid``, ``.requests(path=, rule=)``, ``.wait_for_request(...)``."""
    server = start_server(tmp_path / "server")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_server_factory(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start servers with options, e.g. ``fake_server_factory("--compact-delay", "2")``."""
    started: list[ServerProcess] = []

    def make(*args: str) -> ServerProcess:
        server = start_server(tmp_path / f"server{len(started) + 1}", *args)
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            server.stop()


@dataclass
class AgentSetup:
    """An isolated run of one agent: where it lives, how to launch it, what it wrote."""

    agent: str  # "claude" | "codex" | "copilot"
    binary: Path
    home: Path
    project: Path
    env: dict[str, str]
    hook_log: Path | None = None
    codex_home: Path | None = None
    argv: list[str] = field(default_factory=list)  # the command to run in the project dir

    def hooks(self) -> list[dict]:
        """Logged hook calls: ``{"event", "t", "payload"}``, oldest first."""
        return agents.read_hook_log(self.hook_log) if self.hook_log else []

    def transcripts(self) -> list[Path]:
        """Claude session JSONL files, or Codex rollout files, oldest first."""
        if self.agent == "claude":
            return agents.claude_transcripts(self.home)
        if self.agent == "copilot":
            return agents.copilot_journals(self.home)
        assert self.codex_home is not None
        return agents.codex_rollouts(self.codex_home)


@pytest.fixture
def make_claude_env(
    tmp_path: Path, fake_server: ServerProcess, agent_bins: agents.AgentBins
) -> Callable[..., AgentSetup]:
    """Build an isolated Claude Code setup: ``make_claude_env(hooks=True, name="claude")``."""

    def make(hooks: bool = False, name: str = "claude") -> AgentSetup:
        root = tmp_path / name
        home, project = root / "home", root / "proj"
        project.mkdir(parents=True, exist_ok=True)
        hook_log = root / "hooks.jsonl" if hooks else None
        agents.prepare_claude_home(
            home, project, hooks=agents.hook_logger(hook_log) if hook_log else None
        )
        env = agents.claude_env(agent_bins, home, fake_server.url)
        return AgentSetup(
            "claude", agent_bins.claude, home, project, env, hook_log, argv=["claude"]
        )

    return make


@pytest.fixture
def claude_env(make_claude_env: Callable[..., AgentSetup]) -> AgentSetup:
    """A Claude Code setup against ``fake_server`` (no hooks)."""
    return make_claude_env()


@pytest.fixture
def make_codex_env(
    tmp_path: Path, fake_server: ServerProcess, agent_bins: agents.AgentBins
) -> Callable[..., AgentSetup]:
    """Build an isolated Codex setup: ``make_codex_env(hooks=True, extra_toml="...")``.
    With hooks, ``argv`` carries ``--dangerously-bypass-hook-trust`` (else a review screen)."""

    def make(hooks: bool = False, extra_toml: str = "", name: str = "codex") -> AgentSetup:
        root = tmp_path / name
        home, codex_home, project = root / "home", root / "codexhome", root / "proj"
        home.mkdir(parents=True, exist_ok=True)
        project.mkdir(parents=True, exist_ok=True)
        hook_log = root / "hooks.jsonl" if hooks else None
        agents.prepare_codex_home(
            codex_home,
            project,
            fake_server.url,
            hooks=agents.hook_logger(hook_log) if hook_log else None,
            extra_toml=extra_toml,
        )
        env = agents.codex_env(agent_bins, home, codex_home)
        argv = ["codex", "--dangerously-bypass-hook-trust"] if hooks else ["codex"]
        return AgentSetup("codex", agent_bins.codex, home, project, env, hook_log, codex_home, argv)

    return make


@pytest.fixture
def codex_env(make_codex_env: Callable[..., AgentSetup]) -> AgentSetup:
    """A Codex setup against ``fake_server`` (no hooks)."""
    return make_codex_env()


@pytest.fixture
def make_copilot_env(
    tmp_path: Path, fake_server: ServerProcess, copilot_bin: Path
) -> Callable[..., AgentSetup]:
    """Build an isolated GitHub Copilot CLI setup: ``make_copilot_env(name="copilot")``."""

    def make(name: str = "copilot") -> AgentSetup:
        root = tmp_path / name
        home, project = root / "home", root / "proj"
        project.mkdir(parents=True, exist_ok=True)
        agents.prepare_copilot_home(home, project)
        env = agents.copilot_env(copilot_bin, home, fake_server.url)
        return AgentSetup("copilot", copilot_bin, home, project, env, argv=["copilot"])

    return make


@pytest.fixture(scope="session")
def aider_bin() -> Path:
    """aider at its pin, in a venv of its own in the e2e cache (installed on first use)."""
    try:
        binary, secs = agents.ensure_aider()
    except agents.AgentInstallError as e:
        pytest.fail(str(e), pytrace=False)
    _INSTALL_REPORT[f"{agents.AIDER_PACKAGE}@{agents.AIDER_VERSION}"] = secs
    return binary


@pytest.fixture
def make_aider_env(tmp_path: Path, aider_bin: Path) -> Callable[..., AgentSetup]:
    """An isolated aider setup: ``make_aider_env(name="aider")``."""

    def make(name: str = "aider") -> AgentSetup:
        root = tmp_path / name
        home, project = root / "home", root / "proj"
        project.mkdir(parents=True, exist_ok=True)
        home.mkdir(parents=True, exist_ok=True)
        env = agents.aider_env(aider_bin, home)
        return AgentSetup("aider", aider_bin, home, project, env, argv=["aider"])

    return make


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    """Gemini CLI at its pin (installed on first use, then cached)."""
    try:
        binary, secs = agents.ensure_gemini()
    except agents.AgentInstallError as e:
        pytest.fail(str(e), pytrace=False)
    _INSTALL_REPORT[f"{agents.GEMINI_PACKAGE}@{agents.GEMINI_VERSION}"] = secs
    return binary


@pytest.fixture
def make_gemini_env(
    gemini_bin: Path, fake_server: ServerProcess
) -> Iterator[Callable[..., AgentSetup]]:
    """An isolated Gemini CLI setup whose fake model is its BeforeModel hook. It lives in the
    e2e cache, not in the temporary folder: Gemini skips a hooks file below a folder others
    may write, and /tmp is one."""
    made: list[Path] = []

    def make(name: str = "gemini", hook_model: bool = True) -> AgentSetup:
        root = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=agents.cache_dir()))
        made.append(root)
        home, project = root / "home", root / "proj"
        project.mkdir(parents=True)
        log = root / "model.jsonl"
        agents.prepare_gemini_home(home, log, hook_model)
        env = agents.gemini_env(gemini_bin, home, log, fake_server.url)
        return AgentSetup("gemini", gemini_bin, home, project, env, argv=["gemini"])

    try:
        yield make
    finally:
        for root in made:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def tmux_session() -> Iterator[Callable[..., TmuxSession]]:
    """``tmux_session(width=120, height=40)`` -> a TmuxSession killed at teardown."""
    sessions: list[TmuxSession] = []

    def make(width: int = 120, height: int = 40) -> TmuxSession:
        session = TmuxSession(width=width, height=height)
        sessions.append(session)
        return session

    try:
        yield make
    finally:
        for session in sessions:
            session.kill()
