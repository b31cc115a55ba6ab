// Records test/fixtures/pi-1.6/context-edit.jsonl: the session the REAL Pi 1.6 CLI writes when a
// context editor (test/support/context-editor.ts) replaces one read's result and omits another
// turn before the executor consults the advisor (test/support/context-edit-scenario.ts).
//
//   npm run hosts && npx tsx scripts/record-pi16-fixture.ts
//
// Nothing is stripped: only the paths that name this machine (the sandbox, the host install) are
// made stable, so re-recording changes ids and timestamps and nothing else.

import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { contextEditRoute, runContextEditSession } from "../test/support/context-edit-scenario.ts";
import { createSandbox, piHosts, REPO_ROOT } from "../test/support/hosts.ts";
import { startMockOpenAI } from "../test/support/mock-openai.ts";

export const FIXTURE = join(REPO_ROOT, "test/fixtures/pi-1.6/context-edit.jsonl");
const STABLE_PROJECT = "/home/user/project";
const STABLE_PI = "/usr/lib/node_modules/@earendil-works/pi-coding-agent";

const host = piHosts().flatMap((s) => (s.available && s.host.id === "pi-1.6.0" ? [s.host] : []))[0];
if (host === undefined) throw new Error("Pi 1.6.0 is not installed: run `npm run hosts`");

const server = await startMockOpenAI(contextEditRoute());
const sandbox = createSandbox(server.baseUrl);
try {
	const run = await runContextEditSession(host, sandbox);
	if (run.code !== 0) throw new Error(`pi exited ${run.code}: ${run.stderr}`);
	const [file] = sandbox.sessionFiles();
	if (file === undefined) throw new Error("no session file written");
	// The package folder as Pi names it (the host cache may sit behind a link).
	const piRoot = realpathSync(dirname(dirname(dirname(host.cli))));
	const text = readFileSync(file, "utf8").split(sandbox.project).join(STABLE_PROJECT).split(piRoot).join(STABLE_PI);
	mkdirSync(dirname(FIXTURE), { recursive: true });
	writeFileSync(FIXTURE, text);
	console.log(`wrote ${FIXTURE}: ${text.trim().split("\n").length} lines`);
} finally {
	await server.close();
	sandbox.dispose();
}
