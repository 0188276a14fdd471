"""Not collected by the suite: run alone by tests/test_hook_leak_check.py, it leaves a
hook socket folder behind, as a test that forgets to stop its server would."""

from supervisor.agents.hook_server import HookServer


def test_that_forgets_to_stop_its_hook_server(tmp_path):
    HookServer(tmp_path, preload_after=None).reserve()
