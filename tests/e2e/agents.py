"""The real agent CLIs for the e2e tier: pinned versions, install, isolated state, environment.

The versions live here and only here. To bump one, change the constant below, run
``.venv/bin/pytest tests/e2e`` once (the fixture installs the new version into the cache
on first use) and re-check the on-screen markers the tests wait for.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CLAUDE_PACKAGE = "@anthropic-ai/claude-code"
CODEX_PACKAGE = "@openai/codex"
# The pins. To try another version without editing, set TETHER_E2E_CLAUDE_VERSION /
# TETHER_E2E_CODEX_VERSION; to bump for everyone, change the default here.
CLAUDE_VERSION = os.environ.get("TETHER_E2E_CLAUDE_VERSION") or "2.1.332"
CODEX_VERSION = os.environ.get("TETHER_E2E_CODEX_VERSION") or "0.171.0"
GEMINI_PACKAGE = "@google/gemini-cli"
GEMINI_VERSION = os.environ.get("TETHER_E2E_GEMINI_VERSION") or "0.61.0"
COPILOT_PACKAGE = "@github/copilot"
COPILOT_VERSION = os.environ.get("TETHER_E2E_COPILOT_VERSION") or "1.0.102"

# Screen markers observed with the pinned versions at 120x40 (regexes on `capture-pane -p -J`).
# Claude Code 2.1.197 showed "? for shortcuts" and "✻ Conversation compacted (ctrl+o for
# history)"; 2.1.332 shows neither (auto permission mode footer; only the ⎿ line below).
CLAUDE_MARKERS = {
    "ready": r"\? for shortcuts|shift\+tab to cycle",
    "turn_done": r"✻ \S+ for \d+(?:m \d+)?s",
    "compacting": r"Compacting conversation",
    "compacted": r"⎿\s+Compacted \(ctrl\+o to see full summary\)|Conversation compacted",
    "context_limit": r"Context limit reached · /compact or /clear to continue",
    "exit_again": r"Press Ctrl-C again to exit",
    "exit_hint": r"Resume this session with:\s*\n\s*(claude\b[^\n]*--resume ([0-9a-f-]{36}))",
}
CODEX_MARKERS = {
    "ready": r"Ask Codex to do anything",
    "working": r"esc to interrupt",
    "turn_done": r"Worked for (?:<1s|\d+[ms][^•\n]*)",
    "interrupted": r"■ Conversation interrupted",
    "compacted": r"• Context compacted(?: · \S+)?",
    "exit_hint": r"To continue this session, run:\s*\n\s*codex resume ([0-9a-f-]{36})",
}
# GitHub Copilot CLI 1.0.102 at tether's agent pane (tests/fixtures/captures/cp102-screens/).
COPILOT_MARKERS = {
    "ready": r"· / commands ·",
    "compacted": r"● Compaction completed",
    "cleared": r"● Started a fresh session\.",
    "exit_hint": r"Resume\s+copilot --resume=([0-9a-f-]{36})",
}
# The model Copilot is told to use; any name works against the fake server.
COPILOT_MODEL = "gpt-5.4"

DUMMY_KEY = "sk-test-dummy"
INSTALL_TIMEOUT = 600  # seconds, per package (cold: ~10 s on a fast registry)


class AgentInstallError(RuntimeError):
    """node/npm missing or the npm install failed; the message says what to do."""


@dataclass(frozen=True)
class AgentBins:
    claude: Path  # .../node_modules/.bin/claude
    codex: Path  # .../node_modules/.bin/codex
    claude_version: str
    codex_version: str
    install_seconds: dict[str, float]  # package -> seconds spent installing (0.0 if reused)

    @property
    def path_dirs(self) -> list[str]:
        return [str(self.claude.parent), str(self.codex.parent)]


def cache_dir() -> Path:
    """Where the CLIs are installed: $TETHER_E2E_CACHE or ~/.cache/tether-e2e (outside the repo)."""
    env = os.environ.get("TETHER_E2E_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "tether-e2e"


def _require_node() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        missing = " and ".join(n for n, p in (("node", node), ("npm", npm)) if not p)
        raise AgentInstallError(
            f"The e2e tier needs {missing} to install the real agent CLIs "
            f"({CLAUDE_PACKAGE}@{CLAUDE_VERSION}, {CODEX_PACKAGE}@{CODEX_VERSION}). "
            "Install them, e.g. `sudo apt-get install nodejs npm` (Debian/Ubuntu) or from "
            "https://nodejs.org (node >= 18), then rerun `make test`."
        )
    return node, npm


def _answers_version(binary: Path, version: str) -> bool:
    if not binary.exists():
        return False
    # Copilot unpacks itself into $HOME/.cache/copilot on any start: a HOME of the cache's.
    home = binary.parents[2] / "home"
    env = {**os.environ, "DISABLE_AUTOUPDATER": "1", "COPILOT_AUTO_UPDATE": "false"}
    if binary.name == "copilot":  # it says "GitHub Copilot CLI 1.0.102." (a full stop)
        home.mkdir(exist_ok=True)
        env["HOME"] = str(home)
    try:
        out = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and bool(
        re.search(rf"(?<![\w.]){re.escape(version)}(?!\w|\.\w)", out.stdout)
    )


def install(
    package: str,
    version: str,
    binary_name: str,
    root: Path | None = None,
    npm_args: tuple[str, ...] = (),
) -> tuple[Path, float]:
    """Install ``package@version`` into ``<cache>/<package>@<version>`` unless already there.

    Returns the path of the ``.bin`` entry and the seconds spent installing (0.0 when reused).
    A per-package lock file serialises concurrent installers (parallel pytest runs).
    """
    root = root or cache_dir()
    prefix = root / f"{package}@{version}"
    binary = prefix / "node_modules" / ".bin" / binary_name
    if _answers_version(binary, version):
        return binary, 0.0
    _, npm = _require_node()
    prefix.mkdir(parents=True, exist_ok=True)
    lock_path = prefix.parent / f".{prefix.name}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be installing the same thing
        if _answers_version(binary, version):
            return binary, 0.0
        start = time.monotonic()
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
            str(prefix),
            *npm_args,
            f"{package}@{version}",
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            raise AgentInstallError(f"`{' '.join(cmd)}` timed out after {INSTALL_TIMEOUT}s") from e
        took = time.monotonic() - start
        if proc.returncode != 0 or not _answers_version(binary, version):
            raise AgentInstallError(
                f"`{' '.join(cmd)}` failed (rc={proc.returncode}); {binary} does not answer "
                f"--version with {version}.\n--- npm stderr ---\n{proc.stderr[-4000:]}"
            )
    return binary, took


def ensure_agents(root: Path | None = None) -> AgentBins:
    """Both CLIs at their pinned versions, installing what is missing (idempotent)."""
    claude, t_claude = install(CLAUDE_PACKAGE, CLAUDE_VERSION, "claude", root)
    codex, t_codex = install(CODEX_PACKAGE, CODEX_VERSION, "codex", root)
    return AgentBins(
        claude=claude,
        codex=codex,
        claude_version=CLAUDE_VERSION,
        codex_version=CODEX_VERSION,
        install_seconds={CLAUDE_PACKAGE: t_claude, CODEX_PACKAGE: t_codex},
    )


def ensure_gemini(root: Path | None = None) -> tuple[Path, float]:
    """Gemini CLI at its pin (a JavaScript bundle; no install script needed)."""
    return install(GEMINI_PACKAGE, GEMINI_VERSION, "gemini", root, ("--ignore-scripts",))


def ensure_copilot(root: Path | None = None) -> tuple[Path, float]:
    """GitHub Copilot CLI at its pin: a loader and a 197 MB native binary, no install script
    needed (``--ignore-scripts``)."""
    return install(COPILOT_PACKAGE, COPILOT_VERSION, "copilot", root, ("--ignore-scripts",))


# libfaketime, to run Claude Code's clock fast: its idle compaction waits 90% of the 1-hour
# prompt cache's life (54 min) with no setting to shorten it (2.1.332). The PyPI wheel
# `libfaketime` carries the compiled library; it is installed into the cache, not the venv.
LIBFAKETIME_VERSION = "3.0.1"


def ensure_libfaketime(root: Path | None = None) -> Path:
    """``libfaketime.so.1`` from the pinned ``libfaketime`` wheel (pip, on first use)."""
    prefix = (root or cache_dir()) / f"libfaketime@{LIBFAKETIME_VERSION}"
    library = prefix / "libfaketime" / "vendor" / "libfaketime" / "src" / "libfaketime.so.1"
    if library.is_file():
        return library
    prefix.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target"]
    cmd += [str(prefix), f"libfaketime=={LIBFAKETIME_VERSION}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise AgentInstallError(f"`{' '.join(cmd)}` timed out") from e
    if proc.returncode != 0 or not library.is_file():
        raise AgentInstallError(
            f"`{' '.join(cmd)}` failed (rc={proc.returncode}); no {library}.\n{proc.stderr[-2000:]}"
        )
    return library


def fast_clock_wrapper(folder: Path, library: Path, binary: Path, speed: int) -> Path:
    """A script named like ``binary`` in ``folder`` (put it first on PATH) that runs it with a
    clock ``speed`` times as fast: tether itself, which starts it, keeps the real time. The
    hooks the agent starts inherit the fast clock, but `tether hook` hands each call to the
    supervisor's socket, which records it in real time. (``FAKETIME_ONLY_CMDS`` would spare
    them, but libfaketime 0.9.10 then stops Claude Code with "Could not copy the
    environment variable value".)

    The agent counts its hooks' timeouts on its fast clock too (10 s would be 0.17 s, less
    than a cold `tether hook` takes on a loaded machine), so the settings file tether passes
    with ``--settings`` is given to it with each timeout ``speed`` times as long."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / binary.name
    lines = [
        f"#!{sys.executable}",
        "import json, os, sys",
        "args = sys.argv[1:]",
        "for i, arg in enumerate(args[:-1]):",
        "    if arg == '--settings' and os.path.isfile(args[i + 1]):",
        "        with open(args[i + 1], encoding='utf-8') as f:",
        "            settings = json.load(f)",
        "        for groups in settings.get('hooks', {}).values():",
        "            for group in groups:",
        "                for handler in group.get('hooks', []):",
        f"                    handler['timeout'] = handler.get('timeout', 60) * {speed}",
        "        slow = args[i + 1] + '.slow-clock.json'",
        "        with open(slow, 'w', encoding='utf-8') as f:",
        "            json.dump(settings, f)",
        "        args[i + 1] = slow",
        f"os.environ['LD_PRELOAD'] = {str(library)!r}",
        f"os.environ['FAKETIME'] = '+0 x{speed}'",
        "os.environ['FAKETIME_DISABLE_SHM'] = '1'",
        f"os.execv({str(binary)!r}, [{str(binary)!r}, *args])",
    ]
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)
    return script


# aider, from PyPI into a venv of its own in the cache (never tether's venv: its ~100
# pinned dependencies would fight ours).
AIDER_PACKAGE = "aider-chat"
AIDER_VERSION = os.environ.get("TETHER_E2E_AIDER_VERSION") or "0.86.2"
# The model aider is told to use: litellm's "openai/" prefix sends it to --openai-api-base.
AIDER_MODEL = "openai/fake-gpt"
# aider 0.86.2 with --edit-format diff at tether's agent pane.
AIDER_MARKERS = {
    "ready": r"(?m)^(?:diff>|(?:diff> )?Finished summarizing chat history\.)\s*$",
    "folded": r"Finished summarizing chat history\.",
    "cleared": r"All chat history cleared\.",
}


def ensure_aider(root: Path | None = None) -> tuple[Path, float]:
    """``aider`` at its pin in ``<cache>/aider-chat@<version>`` (a venv; pip on first use).
    Returns the script and the seconds spent installing (0.0 when reused)."""
    prefix = (root or cache_dir()) / f"{AIDER_PACKAGE}@{AIDER_VERSION}"
    binary = prefix / "bin" / "aider"
    if _answers_version(binary, AIDER_VERSION):
        return binary, 0.0
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f".{prefix.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be installing it
        if _answers_version(binary, AIDER_VERSION):
            return binary, 0.0
        start = time.monotonic()
        python = prefix / "bin" / "python"
        cmds = [
            [sys.executable, "-m", "venv", "--clear", str(prefix)],
            [str(python), "-m", "pip", "install", "--quiet", f"{AIDER_PACKAGE}=={AIDER_VERSION}"],
        ]
        for cmd in cmds:
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
            except subprocess.TimeoutExpired as e:
                raise AgentInstallError(f"`{' '.join(cmd)}` timed out") from e
            if proc.returncode != 0:
                raise AgentInstallError(
                    f"`{' '.join(cmd)}` failed (rc={proc.returncode}).\n{proc.stderr[-4000:]}"
                )
        if not _answers_version(binary, AIDER_VERSION):
            raise AgentInstallError(f"{binary} does not answer --version with {AIDER_VERSION}")
    return binary, time.monotonic() - start


def aider_args(base_url: str) -> list[str]:
    """aider's command line offline: the fake server's chat completions, no git, no update
    check or analytics, every question answered yes, SEARCH/REPLACE edits, and a history
    small enough (300 tokens) that one edit's reply makes it summarise."""
    return [
        "--openai-api-base",
        base_url.rstrip("/") + "/v1",
        "--openai-api-key",
        DUMMY_KEY,
        "--model",
        AIDER_MODEL,
        "--no-git",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-show-release-notes",
        "--no-analytics",
        "--yes-always",
        "--edit-format",
        "diff",
        "--max-chat-history-tokens",
        "300",
    ]


def aider_env(binary: Path, home: Path) -> dict[str, str]:
    """The environment for ``aider`` offline (its own venv's bin first on PATH)."""
    # litellm fetches its model price list from GitHub at start unless told to use its own.
    return _offline_env(
        binary,
        home,
        LANG="C.UTF-8",
        AIDER_CHECK_UPDATE="false",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )


# --------------------------------------------------------------------------- isolated state


HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)


def hook_logger(log: Path, events: tuple[str, ...] = HOOK_EVENTS) -> dict[str, str]:
    """Hooks (event -> command) that append ``{"event", "t", "payload"}`` lines to ``log``,
    one atomic write per hook call. Pass the result as ``hooks=`` to prepare_*_home."""
    me = shlex.quote(str(Path(__file__).resolve()))
    py = shlex.quote(sys.executable)
    return {e: f"{py} {me} hook-log {shlex.quote(str(log))} {e}" for e in events}


def read_hook_log(log: Path) -> list[dict]:
    return read_jsonl(log) if log.exists() else []


def _hook_log_main(log: str, event: str) -> None:
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = raw
    line = json.dumps({"event": event, "t": time.time(), "payload": payload}) + "\n"
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def _hooks_block(hooks: dict[str, str] | None) -> dict:
    """{"Event": "shell command"} -> the settings/hooks.json shape both agents share."""
    return {
        event: [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]
        for event, command in (hooks or {}).items()
    }


def prepare_claude_home(
    home: Path,
    project: Path,
    hooks: dict[str, str] | None = None,
    api_key: str = DUMMY_KEY,
    settings: dict | None = None,
) -> Path:
    """Write the state that takes Claude Code straight to its prompt (no onboarding,
    API-key or trust screens) into a fresh ``home``. ``hooks`` maps an event name
    (SessionStart, PreCompact, ...) to a shell command. Returns ``home``."""
    home.mkdir(parents=True, exist_ok=True)
    project = project.resolve()
    state = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": CLAUDE_VERSION,
        "customApiKeyResponses": {"approved": [api_key[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }
    (home / ".claude.json").write_text(json.dumps(state, indent=2))
    if hooks or settings:
        cfg = dict(settings or {})
        if hooks:
            cfg["hooks"] = _hooks_block(hooks)
        (home / ".claude").mkdir(exist_ok=True)
        (home / ".claude" / "settings.json").write_text(json.dumps(cfg, indent=2))
    return home


def _toml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid TOML basic string


def prepare_codex_home(
    codex_home: Path,
    project: Path,
    base_url: str,
    hooks: dict[str, str] | None = None,
    extra_toml: str = "",
) -> Path:
    """Write ``config.toml`` (fake provider, no approvals, trusted project, no analytics,
    no background daemon) and optionally ``hooks.json`` into ``codex_home``.

    Hooks that are new to Codex bring up a "Hooks need review" screen; launch codex
    with ``--dangerously-bypass-hook-trust`` (or press Down, Enter) to pass it."""
    codex_home.mkdir(parents=True, exist_ok=True)
    project = project.resolve()
    config = f"""\
model = "fake-gpt"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake local"
base_url = {_toml_str(base_url.rstrip("/") + "/v1")}
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.{_toml_str(str(project))}]
trust_level = "trusted"

[analytics]
enabled = false

[features]
daemon_auto_start = false
"""
    (codex_home / "config.toml").write_text(config + extra_toml)
    if hooks:
        (codex_home / "hooks.json").write_text(json.dumps({"hooks": _hooks_block(hooks)}, indent=2))
    return codex_home


def _base_path(bins_dir: str) -> str:
    """The cache's .bin first, then node's own directory (the codex launcher is a node
    script; node may live in ~/.nvm), then the system directories."""
    node = shutil.which("node")
    dirs = [
        bins_dir,
        *([os.path.dirname(node)] if node else []),
        "/usr/local/bin",
        "/usr/bin",
        "/bin",
    ]
    return os.pathsep.join(dict.fromkeys(dirs))


def _offline_env(agent: Path, home: Path, **agent_vars: str) -> dict[str, str]:
    """A complete (``env -i`` style) environment for running ``agent`` offline: its PATH,
    HOME and terminal, then ``agent_vars``, what that agent needs of its own."""
    path = _base_path(str(agent.parent))
    return {"PATH": path, "HOME": str(home), "TERM": "xterm-256color", **agent_vars}


def claude_env(
    bins: AgentBins, home: Path, base_url: str, api_key: str = DUMMY_KEY
) -> dict[str, str]:
    """The environment for ``claude`` offline: the fake server, no telemetry, no updates."""
    return _offline_env(
        bins.claude,
        home,
        ANTHROPIC_BASE_URL=base_url.rstrip("/"),
        ANTHROPIC_API_KEY=api_key,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
    )


def codex_env(
    bins: AgentBins, home: Path, codex_home: Path, api_key: str = DUMMY_KEY
) -> dict[str, str]:
    """The environment for ``codex`` offline: its CODEX_HOME and the fake server's key."""
    return _offline_env(bins.codex, home, CODEX_HOME=str(codex_home), FAKE_OPENAI_API_KEY=api_key)


def prepare_copilot_home(home: Path, project: Path) -> Path:
    """A fresh ``home`` whose ``~/.copilot/config.json`` trusts ``project`` (no "Confirm
    folder trust" screen). Copilot rewrites that file at every start (its own bookkeeping)."""
    (home / ".copilot").mkdir(parents=True, exist_ok=True)
    config = {"trustedFolders": [str(project.resolve())]}
    (home / ".copilot" / "config.json").write_text(json.dumps(config))
    return home


def copilot_env(
    binary: Path, home: Path, base_url: str, api_key: str = DUMMY_KEY
) -> dict[str, str]:
    """The environment for ``copilot`` offline: no GitHub login, the fake server's chat
    completions, no update check."""
    return _offline_env(
        binary,
        home,
        LANG="C.UTF-8",
        COPILOT_OFFLINE="true",
        COPILOT_PROVIDER_BASE_URL=base_url.rstrip("/") + "/v1",
        COPILOT_PROVIDER_API_KEY=api_key,
        COPILOT_MODEL=COPILOT_MODEL,
        COPILOT_AUTO_UPDATE="false",
    )


def copilot_journals(home: Path) -> list[Path]:
    """Copilot's session journals under ``home``, oldest first."""
    root = home / ".copilot" / "session-state"
    files = list(root.glob("*/events.jsonl")) if root.exists() else []
    return sorted(files, key=lambda p: p.stat().st_mtime)


def prepare_gemini_home(home: Path, model_log: Path, hook_model: bool = True) -> Path:
    """A fresh ``home`` whose ``~/.gemini/settings.json`` picks API-key auth (the key is a
    dummy: no call leaves) and runs ``gemini_model.py`` as its ``BeforeModel`` hook, the
    fake model; every request it answers is logged to ``model_log``."""
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    script = Path(__file__).with_name("gemini_model.py")
    model = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"disableAutoUpdate": True},
        "hooks": {
            "BeforeModel": [{"hooks": [{"type": "command", "command": model, "timeout": 20000}]}]
        },
    }
    if not hook_model:  # its turns go to GOOGLE_GEMINI_BASE_URL (the fake server) instead
        del settings["hooks"]
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    model_log.touch()
    return home


def gemini_env(
    binary: Path, home: Path, model_log: Path, base_url: str | None = None
) -> dict[str, str]:
    """The environment for ``gemini`` offline: a dummy key, the project trusted, and its
    utility calls (the /compress summary) sent to ``base_url`` (the fake server)."""
    extra = {"GOOGLE_GEMINI_BASE_URL": base_url.rstrip("/")} if base_url else {}
    return _offline_env(
        binary,
        home,
        **extra,
        LANG="C.UTF-8",
        GEMINI_API_KEY=DUMMY_KEY,
        GEMINI_CLI_TRUST_WORKSPACE="true",
        GEMINI_FAKE_LOG=str(model_log),
    )


def claude_transcripts(home: Path) -> list[Path]:
    """All Claude session transcripts under ``home``, oldest first."""
    root = home / ".claude" / "projects"
    files = list(root.glob("*/*.jsonl")) if root.exists() else []
    return sorted(files, key=lambda p: p.stat().st_mtime)


def codex_rollouts(codex_home: Path) -> list[Path]:
    """All Codex rollout files under ``codex_home``, oldest first."""
    root = codex_home / "sessions"
    files = list(root.glob("*/*/*/rollout-*.jsonl")) if root.exists() else []
    return sorted(files, key=lambda p: p.stat().st_mtime)


def read_jsonl(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["hook-log"]:  # the hook command written by hook_logger()
        _hook_log_main(sys.argv[2], sys.argv[3])
        sys.exit(0)
    # `python tests/e2e/agents.py` installs both CLIs and prints the timings
    b = ensure_agents()
    print(
        json.dumps(
            {"claude": str(b.claude), "codex": str(b.codex), "install_seconds": b.install_seconds},
            indent=2,
        )
    )
