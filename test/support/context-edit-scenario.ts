/**
 * One session on a real Pi 1.x host with a context editor loaded beside the extension
 * (context-editor.ts): the executor reads `config.txt` (its result then replaced), reads
 * `notes.txt` (that turn then omitted), asks the advisor, and answers. Shared by the end-to-end
 * test and by scripts/record-pi16-fixture.ts, which keeps the session it writes as a fixture.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADVISOR_MODEL, EXTENSION_ENTRY, type PiHost, printArgs, REPO_ROOT, runPi, type Sandbox } from "./hosts.ts";
import type { MockReply } from "./mock-openai.ts";

export const CONTEXT_EDITOR_ENTRY = join(REPO_ROOT, "test/support/context-editor.ts");
export const CE_PROMPT = "Check the retry setting in config.txt.";
export const CONFIG_TEXT = "api_url=https://internal.example\nretries=3\nmode=ORIGINAL_CONFIG_MARKER\n";
export const NOTES_TEXT = "ORIGINAL_NOTES_MARKER: the migration runs on Fridays\n";
export const CE_QUESTION = "Retries are 3; should I raise them?";
export const CE_ADVICE = "Severity: none\nKeep retries at 3.";
export const CE_FINAL = "Retries stay at 3.";

/** The executor reads config.txt, then notes.txt, then consults, then answers; the advisor answers at once. */
export function contextEditRoute(): (body: any) => MockReply {
	let executorTurn = 0;
	return (body) => {
		if (body.model === ADVISOR_MODEL) return { kind: "text", text: CE_ADVICE };
		executorTurn++;
		switch (executorTurn) {
			case 1:
				return { kind: "toolCall", id: "call_read_config", name: "read", arguments: '{"path":"config.txt"}' };
			case 2:
				return { kind: "toolCall", id: "call_read_notes", name: "read", arguments: '{"path":"notes.txt"}' };
			case 3:
				return { kind: "toolCall", text: CE_QUESTION, id: "call_adv_ce", name: "advisor", arguments: "{}" };
			default:
				return { kind: "text", text: CE_FINAL };
		}
	};
}

/** Writes the two files into the project and runs the session in print mode with both extensions. */
export function runContextEditSession(host: PiHost, sandbox: Sandbox) {
	writeFileSync(join(sandbox.project, "config.txt"), CONFIG_TEXT);
	writeFileSync(join(sandbox.project, "notes.txt"), NOTES_TEXT);
	return runPi(host, printArgs(sandbox, CE_PROMPT, ["-e", EXTENSION_ENTRY, "-e", CONTEXT_EDITOR_ENTRY]), sandbox);
}
