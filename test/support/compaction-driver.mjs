/**
 * Runs a scripted session through a host's SDK (createAgentSession + DefaultResourceLoader with the
 * extension as an additional extension path, as `pi -e` sets it), under whichever Node runs this
 * file: test/adapter/extension/extension-compaction.e2e.test.ts spawns it with each host's node. Plain
 * JavaScript, so no loader is needed in the child.
 *
 * argv: <host sdk entry (dist/index.js)> <extension path> <cwd> <agent dir> <session dir> <steps JSON>
 * Steps, in order:
 * - `{ "prompt": text }`: one prompt, to the end of its run;
 * - `{ "prompt": text, "autoCompaction": true }`: the same, then the auto-compaction Pi starts after
 *   the run (its `compaction_end`: Pi 0.73 runs it after prompt() has returned, Pi 1.x within it);
 * - `{ "compact": true }`: `session.compact()`, what `/compact` runs.
 * Prints one JSON line: { sessionFile, extensionErrors, compactions, lastText } or { error }.
 */

import { openSession } from "../hosts/sdk-session.mjs";

const [sdkEntry, extensionPath, cwd, agentDir, sessionDir, stepsJson] = process.argv.slice(2);
const steps = JSON.parse(stepsJson);
/** Only a failure path: a compaction that never ends fails the run instead of hanging it. */
const COMPACTION_DEADLINE_MS = 120_000;

const { session, extensionsResult, bindErrors } = await openSession(sdkEntry, extensionPath, cwd, agentDir, sessionDir);

const compactions = [];
let compactionEnded = () => {};
session.subscribe((event) => {
	if (event.type !== "compaction_end") return;
	compactions.push({
		reason: event.reason,
		ok: event.result !== undefined,
		aborted: event.aborted,
		errorMessage: event.errorMessage,
	});
	compactionEnded();
});

/** Resolves once `count` compactions have ended. */
function compactionsEnded(count) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`no auto-compaction ended within ${COMPACTION_DEADLINE_MS} ms`)),
			COMPACTION_DEADLINE_MS,
		);
		const check = () => {
			if (compactions.length < count) return;
			clearTimeout(timer);
			resolve();
		};
		compactionEnded = check;
		check();
	});
}

let output;
try {
	for (const step of steps) {
		if (step.compact) {
			await session.compact();
			continue;
		}
		const before = compactions.length;
		await session.prompt(step.prompt);
		if (step.autoCompaction) await compactionsEnded(before + 1);
	}
	const lastAssistant = session.messages.filter((m) => m.role === "assistant").at(-1);
	output = {
		sessionFile: session.sessionFile,
		extensionErrors: [...extensionsResult.errors.map((e) => `${e.path}: ${e.error}`), ...bindErrors],
		compactions,
		lastText: lastAssistant?.content.find((c) => c.type === "text")?.text,
	};
} catch (error) {
	output = { error: error instanceof Error ? error.message : String(error), compactions };
}
session.dispose();
process.stdout.write(`${JSON.stringify(output)}\n`);
// Background timers (cache warming) must not keep the child alive after the run.
process.exit(0);
