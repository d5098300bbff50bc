#!/usr/bin/env node
// The agent tool over stdio: `agent-tts mcp` of @agent-tts/client, configured the same way (AGENT_TTS_API_KEY,
// AGENT_TTS_BASE_URL, the CLI's config file) and taking the same flags.
process.argv.splice(2, 0, 'mcp');
await import('@agent-tts/client/cli/main.js');
