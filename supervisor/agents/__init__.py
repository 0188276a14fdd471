"""What is specific to one agent: Claude Code settings and hook answers, the demo agent."""
