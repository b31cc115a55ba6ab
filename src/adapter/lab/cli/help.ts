/**
 * The help texts of `advisor-ledger` and the defaults they name (docs/cli.md): apart from the parser
 * (args.ts) so each file holds one thing.
 */

/** Simulated points: one every this many tool rounds, by default. */
export const DEFAULT_EVERY = 10;

export const MAIN_HELP = `advisor-ledger — replay recorded Pi sessions through the advisor ledger

Usage:
  advisor-ledger replay [PATH…] [--every N] [--all-leaves] [--watch] [--json | --wide] [--svg FILE [--force]] [--price PROVIDER/MODEL] [--config FILE]
  advisor-ledger render FILE [--leaf ID] [--at ENTRY] [--json] [--facts] [--config FILE]
  advisor-ledger stats [PATH…] [--json]
  advisor-ledger eval [PATH…] --advisor PROVIDER/MODEL [--judge PROVIDER/MODEL] [--points N] [options]
  advisor-ledger <command> --help
  advisor-ledger --version (-v)

Commands:
  replay   compare the ledger request with the raw-context baseline at every consultation point
  render   print the exact advisor request a consultation would send at one point of a session
  stats    what the advisor has cost in recorded sessions, and what the full context would have
  eval     ask your advisor model with the ledger and with the full context, and compare the
           advice (the one command that calls models: it shows an estimate and asks first)

replay, render and stats are offline: they call no model.

Exit codes: 0 ok, 1 usage error, 2 nothing to replay, 3 unreadable input, 4 the estimate was
not confirmed (eval).
`;

export const REPLAY_HELP = `advisor-ledger replay [PATH…] [options]

Replays session files (PATH: files, or folders searched recursively for *.jsonl). Without a
PATH: Pi's session folder ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions) when it
holds a session with a tool round, else the long sample sessions bundled with the package
(one line on stderr says so).

At every real advisor() call on a session's leaf path (or, in sessions without any, after
every N tool rounds and at the last entry) it builds the ledger request and the baseline
(Pi's own resolved context plus a tool inventory with JSON schemas, what rpiv-advisor 2.11
sends) and reports tokens, cache reuse between consecutive consultations, user messages
missing from the request, fold+render time and reader diagnostics; and what the whole
consultation (its first request and the follow-ups after it) is estimated to cost, next to
what the call was billed where the session recorded it.

Options:
  --every N       simulated consultation every N tool rounds (default ${DEFAULT_EVERY})
  --all-leaves    replay every leaf of each session tree, not only the current one
  --watch         also run the watch over each branch as if it had been on (advisor.json's
                  watch section; its enabled key ignored): the reviews it would have asked
                  for, by signal, what they would cost (each request after the branch's
                  previous advisor request, in both cache models, plus 2,000 output tokens)
                  and that as a share of the executor's own spend at the same prices, and
                  how much of one review's request the next one repeats
  --json          print one JSON object instead of the text report (every point's figures;
                  not with --wide)
  --wide          the text report's per-session columns in one table, file names whole
                  (by default it fits 100 columns: two narrower tables)
  --svg FILE      also write a chart: tokens per consultation, baseline vs ledger, per session.
                  Refused when FILE is one of the inputs, ends in .jsonl, or is an existing
                  file that is not an SVG
  --force         write the chart even then (only with --svg)
  --price P/M     price the prompts with this model of pi-ai's registry
                  (default anthropic/claude-sonnet-4-5)
  --config FILE   read this advisor.json instead of your own (the ledger caps, privacy and
                  tools sections shape the request)
  -h, --help      this help

Progress goes to stderr when it is a terminal and several files are read. NO_COLOR disables
colours. Only regular files up to 256 MB are read: a file that cannot be read (missing, a FIFO,
a device, too large) is reported on stderr and skipped. When nothing could be replayed, no
report is printed.

Exit codes: 0 ok, 1 usage error, 2 nothing to replay (no session file or no consultation
point found), 3 some input could not be read (the others are still replayed and reported).
`;

export const RENDER_HELP = `advisor-ledger render FILE [options]

Prints the exact request (system prompt, tool declarations, messages) that a consultation
dispatched right after entry --at (default: the leaf) would send. When that entry is an
assistant message with an advisor() call, the request is the in-flight form for that call.

Options:
  --leaf ID       the branch to read (default: the session's leaf, the last entry in the file)
  --at ENTRY      the entry after which the consultation is dispatched (default: the leaf):
                  its id in the file, or #N as the request names it, the entry's position
                  on the branch in base 36 (#1 … #9, #a … #z, #10 …; quote it, --at '#a',
                  or write --at=#a: a shell reads a leading # as a comment). Given an id
                  and no --leaf, the branch from the root to that entry
  --json          print {"request": {systemPrompt, tools, messages}, "stable": {…}, "summary": {…}}
  --facts         also run the fact audit: how many of the branch's facts the request carries,
                  and of those the executor lost at its newest compaction (it reads the whole
                  request for every fact of the branch: on a long session, most of the time)
  --config FILE   read this advisor.json instead of your own
  -h, --help      this help

The request is built with your advisor.json (the ledger caps, the privacy section and the
tools section, whose deny list withholds an executor's read of a denied path), so it shows
what would really be sent, credential marks included; the header counts them.

Lines and entries the reader could not use (and what they held, which the request leaves out)
are counted on stderr with the first few diagnostics; they do not change the exit code.

Exit codes: 0 ok, 1 usage error (including an unknown entry id), 2 nothing to render (the
file has no entries), 3 the file could not be read (missing, not a regular file, over 256 MB).
`;

export const STATS_HELP = `advisor-ledger stats [PATH…] [options]

What the advisor has cost in session files (PATH: files, or folders searched recursively for
*.jsonl; without a PATH, Pi's session folder: $PI_CODING_AGENT_DIR/sessions, else
~/.pi/agent/sessions), read from the sessions' own records — the same figures /advisor stats
shows inside Pi. For each file, its current branch and (when it has others) the whole session:
consultations, reviews, warming refreshes, requests, prompt tokens fresh / read from the cache /
written to it, output tokens, dollars, the share read from the cache, what the full-context
request (Pi's context and a tool inventory, what rpiv-advisor 2.11 sends) would have cost for
the first requests at the same consultations, at the recorded model's prices in Pi's model
registry (pi-ai's models and models.json in $PI_CODING_AGENT_DIR, else ~/.pi/agent), and the
costliest consultations (#N: where the request names the entry). With several files, their sum.

Options:
  --json          print one JSON object: {files: [{file, sessionId, stats}], total, unreadable}
  -h, --help      this help

Exit codes: 0 ok, 1 usage error, 2 no session file, 3 some input could not be read.
`;

export const DEFAULT_POINTS = 12;
export const DEFAULT_SEED = "1";
export const DEFAULT_EVAL_OUT = "advisor-eval";

export const EVAL_HELP = `advisor-ledger eval [PATH…] --advisor PROVIDER/MODEL [options]

Sends recorded consultation points to your advisor model twice or three times — with the ledger
request, with the full context (Pi's own context and the tool inventory, what rpiv-advisor
sends), optionally with that context masked — then asks a judge model, blinded, to compare the
answers. Reports how often the verdicts agree and how often one answer lacks a material point
the other makes, with intervals, and what each arm cost. This command calls models and spends
money: it shows an estimate first and asks (or --yes). PATH as for replay (default: Pi's
session folder). Models and keys come from Pi: models.json and auth.json in the agent dir
($PI_CODING_AGENT_DIR, else ~/.pi/agent), then the provider's environment variable.

Options:
  --advisor P/M    the advisor model (required)
  --judge P/M      the judge model (default: the advisor model, said in the report)
  --points N       how many points (default ${DEFAULT_POINTS}): real advisor() calls first, then
                   simulated ones, spread over sessions and over time by the seed
  --arms LIST      comma-separated, full and at least one of ledger, masked (default ledger,full)
  --max-usd X      stop before a request that would take the run's spending over X dollars
  --yes            do not ask before spending (needed when stdin is not a terminal)
  --out DIR        where each point's record and Markdown go (default ${DEFAULT_EVAL_OUT});
                   must be empty unless --resume
  --resume         continue the run in --out (refused when inputs, arguments or seed differ)
  --seed S         the seed for drawing points and answer labels (default ${DEFAULT_SEED})
  --json           print the report as one JSON object
  -h, --help       this help

Exit codes: 0 ok (the report was printed, also when --max-usd stopped the run), 1 usage error
(bad flag, unknown model, no key, --out not usable), 2 no consultation point found, 3 some
input could not be read, 4 not confirmed.
`;
