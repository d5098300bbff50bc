import { EXIT_CODE_HELP } from './exit-codes.js';

const GLOBAL_OPTIONS = `Global options:
  --base-url <url>     API origin (env AGENT_TTS_BASE_URL, config base_url; default http://127.0.0.1:8080)
  --voices-url <url>   voice catalog origin (env AGENT_TTS_VOICES_URL, config voices_url; default http://127.0.0.1:8081)
  --api-key <key>      API key; prefer AGENT_TTS_API_KEY or \`agent-tts config set-key\`:
                       flags show in shell history and process listings
  --json               print one JSON document on stdout (errors too: {"ok":false,...})
  -q, --quiet          no progress or retry messages on stderr
  -h, --help           help for the command
  -V, --version        print the version`;

export const HELP: Record<string, string> = {
  main: `agent-tts — text to speech from the command line

Usage:
  agent-tts speak "text" -o out.mp3      speak text and save the MP3
  agent-tts status <job_id>              show a job (--wait to wait for it)
  agent-tts voices                       list voices of the public catalog
  agent-tts config set-key               store the API key (read from stdin or a hidden prompt)
  agent-tts config show                  print the configuration, key redacted
  agent-tts mcp                          run the MCP server (agent tool) on stdio
  agent-tts help <command>               help for a command

The API key comes from --api-key, AGENT_TTS_API_KEY, or the config file
($XDG_CONFIG_HOME/agent-tts/config.json, default ~/.config/agent-tts/config.json), in that order.
Keys are always printed redacted, as tts_<public_id>.

${GLOBAL_OPTIONS}

${EXIT_CODE_HELP}`,

  speak: `Usage: agent-tts speak [text | -] [options]

Speaks text and saves the MP3. The text comes from the argument, from -f <file>, or from standard
input (no argument, or "-"). Short texts finish inside the request; longer ones are polled, with
progress on stderr (percentage where the service reports it, elapsed time, job id). A 429 (a key may
POST once a minute) is waited out as its Retry-After asks, up to 90 s, and the wait is announced on stderr.

Options:
  -o, --out <file>          where to save the MP3; "-" writes it to stdout (default ./<job_id>.mp3).
                            Checked before anything is sent: its directory must exist and be writable
  -f, --file <file>         read the text from a file
  -v, --voice <id>          voice id, e.g. st_m1, af_heart (service default af_heart; see \`agent-tts voices\`)
  -s, --speed <n>           0.5 to 1.5 (service default 1.2)
  -l, --language <code>     language code for st_* voices, e.g. en, fr, de (default en)
      --no-download         do not download; print the audio URL (it is temporary)
      --captions <file>     also save captions timed to the MP3: out.vtt (WebVTT) or out.srt (SubRip),
                            the format from the extension; any other extension is refused (exit 2)
      --timings <file>      also save the word timings as JSON (each word's start and end in seconds
                            and its place in the text)
                            Either asks the service for word timings (timestamps: "word"), an extension
                            beyond the base API; both are written after the audio. A service that answers
                            without timings exits 12 with the audio saved
      --stream <file | ->   write the audio as it is made, from the job's stream_url (an extension beyond
                            the base API): "-" to stdout, to pipe into a player from the first chunk. Ends
                            with the whole MP3; a job that fails exits with its error. Not with -o,
                            --no-download, --captions or --timings
      --timeout <seconds>   give up waiting for a long job after this long (default 1800)
      --idempotency-key <k> key of this request; reuse the one printed by a failed run to retry it
                            without creating a second job (default: a fresh random key)
      --max-attempts <n>    attempts per HTTP request, retries included (default 4; 1 disables retries)
      --sandbox-clock       against agent-tts-sandbox only: advance the clock of the key (its test clock's,
                            else the global clock) instead of waiting between polls and out a Retry-After; refused (exit 2)
                            when --base-url is not a sandbox

Examples:
  agent-tts speak "Hello there." -o hello.mp3
  agent-tts speak -f chapter.txt --voice st_f2 --speed 1.0 -o chapter.mp3
  agent-tts speak -f talk.txt -o talk.mp3 --captions talk.vtt --timings talk.json
  cat notes.txt | agent-tts speak --json -o notes.mp3
  agent-tts speak -f book.txt --stream - | mpv -

${GLOBAL_OPTIONS}

${EXIT_CODE_HELP}`,

  status: `Usage: agent-tts status <job_id> [options]

Shows a job: completed (with its audio URL), processing (with progress), failed or expired.
A failed job exits 8, an expired or unknown one 7.

Options:
      --wait                poll until the job finishes, with progress on stderr
  -o, --out <file>          once completed, download the MP3 to this file ("-" for stdout)
      --timeout <seconds>   with --wait: give up after this long (default 1800)
      --sandbox-clock       against agent-tts-sandbox only: advance its test clock instead of waiting
                            between polls (see \`agent-tts help speak\`)

${GLOBAL_OPTIONS}

${EXIT_CODE_HELP}`,

  voices: `Usage: agent-tts voices [options]

Lists the voices of the public catalog ({voices_url}/api/v1/voices; no API key needed).
Curated voices are marked with *.

Options:
      --language <tag>      only voices speaking this language: "en" matches en, en-US and en-GB
      --gender <g>          female or male
      --family <f>          supertonic or kokoro
      --curated             only the curated voices

${GLOBAL_OPTIONS}`,

  config: `Usage: agent-tts config <subcommand>

Subcommands:
  set-key                   store the API key in the config file; it is read from standard input
                            when piped, or from a prompt that does not echo. Never pass it as an argument.
  show                      print the settings in effect and where each comes from (key redacted)
  path                      print the config file path
  set <name> <value>        set base_url or voices_url
  unset <name>              remove api_key, base_url or voices_url

The file is $XDG_CONFIG_HOME/agent-tts/config.json (default ~/.config/agent-tts/config.json),
created with mode 0600 in a directory with mode 0700.

Examples:
  agent-tts config set-key                       # prompts for the key
  printf '%s\\n' "$KEY" | agent-tts config set-key  # from a secret store
  agent-tts config set base_url https://tts.example.com

${GLOBAL_OPTIONS}`,

  mcp: `Usage: agent-tts mcp [--sandbox-clock]

Runs the MCP server on standard input/output, exposing one tool, text_to_speech
(text, voice = st_m1, speed = 1.2 in 0.5–1.5, language = en). It takes the API key and base URL
from the same flags, environment and config file as the other commands. Add it to an agent with:

  { "mcpServers": { "agent-tts": { "command": "agent-tts", "args": ["mcp"],
      "env": { "AGENT_TTS_API_KEY": "tts_...", "AGENT_TTS_BASE_URL": "https://..." } } } }

Options:
      --sandbox-clock       against agent-tts-sandbox only: the tool's waits (rate limit, polls) advance
                            the sandbox's test clock instead of passing in real time

${GLOBAL_OPTIONS}`,
};
