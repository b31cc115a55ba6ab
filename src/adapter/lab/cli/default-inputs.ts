/**
 * What `replay` reads when no PATH is given: Pi's session folder when it holds at least one
 * session with a tool round (something a consultation could be about), else the bundled long
 * samples, with one line saying why. An absent, empty or useless folder must not produce an
 * all-zero report, and the short test fixtures in samples/ are not what a first run should
 * judge the ledger by (docs/cli.md).
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUNDLED_SAMPLES, collectInputs, displayPath, piSessionsDir, readInput } from "./inputs.ts";

/** The long sessions a first run replays: a real one from Pi's own development and a recorded one. */
export const LONG_SAMPLES = join(BUNDLED_SAMPLES, "long");

export interface DefaultReplayInputs {
	paths: string[];
	source: "pi" | "samples";
	/** Why the samples are replayed instead of Pi's folder (one line, no newline); absent for Pi's folder. */
	note?: string;
}

/**
 * A session file with at least one tool result message. Lines are parsed only when they could be
 * one, so a user message quoting the JSON does not count, and a large folder is cheap to check.
 */
export function hasToolRound(text: string): boolean {
	for (const line of text.split("\n")) {
		if (!line.includes('"toolResult"')) continue;
		try {
			const entry = JSON.parse(line) as { type?: unknown; message?: { role?: unknown } };
			if (entry.type === "message" && entry.message?.role === "toolResult") return true;
		} catch {
			// a damaged line: the replay reports it; it is not a tool round
		}
	}
	return false;
}

export function defaultReplayInputs(env: NodeJS.ProcessEnv, cwd: string): DefaultReplayInputs {
	const folder = piSessionsDir(env);
	const samples = { paths: [LONG_SAMPLES], source: "samples" as const };
	const shownSamples = displayPath(LONG_SAMPLES, cwd);
	const collected = collectInputs([folder]);
	if (collected.files.length === 0) {
		const why = existsSync(folder) ? "no session file in" : "no Pi session folder at";
		return { ...samples, note: `${why} ${folder}; replaying the bundled samples in ${shownSamples}` };
	}
	for (const file of collected.files) {
		const read = readInput(file);
		if (read.ok && hasToolRound(read.text)) return { paths: [folder], source: "pi" };
	}
	return {
		...samples,
		note: `no session with a tool round in ${folder}; replaying the bundled samples in ${shownSamples}`,
	};
}
