package main

// toolgen writes ./tools/agenttools_gen.go from agenttools.cue: the tool
// sets of langchaingo and MCP with this module's texts and limits.
//go:generate go tool toolgen -overlay agenttools.cue -out ./tools -adapters langchaingo,mcp
