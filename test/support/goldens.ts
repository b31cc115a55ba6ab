/**
 * Per-point request fingerprints of the bundled samples and the generated session: what the
 * request-bytes golden test compares against, and what `npm run goldens` writes.
 *
 * Each point is one the replay would dispatch (real advisor calls, else one every 10 tool rounds
 * and at the last entry), folded incrementally and rendered with the replay's options. The
 * fingerprint is a SHA-256 of the pi-ai Context as JSON: system prompt, declarations and every
 * message part, so any byte the advisor would see moving changes it.
 */

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { generateCompacted, generateSession } from "../../bench/generate.ts";
import { pointsOfScan, scanPoints } from "../../src/adapter/lab/replay/points.ts";
import { calledToolNames, sessionTools } from "../../src/adapter/lab/replay/tool-set.ts";
import { migrateEntries, normalizeBranch, parseSessionText, selectBranch } from "../../src/events/index.ts";
import { emptyLedger, foldLedger } from "../../src/reducers/index.ts";
import { buildContext, createRenderMemo, DEFAULT_LEDGER_CONFIG, renderRequest } from "../../src/render/index.ts";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const GOLDENS_FILE = join(repoRoot, "test/fixtures/goldens/requests.json");

export interface PointGolden {
	/** Events the request is built from. */
	upTo: number;
	tokens: number;
	sha256: string;
}

export type Goldens = Record<string, PointGolden[]>;

function fingerprint(value: unknown): string {
	return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 24);
}

export function goldenPoints(text: string): PointGolden[] {
	const parsed = parseSessionText(text);
	const entries = migrateEntries(parsed);
	const branch = selectBranch(entries, undefined);
	const events = normalizeBranch(branch.path, entries);
	const cwd = parsed.header?.cwd;
	const tools = sessionTools(cwd ?? repoRoot, calledToolNames(entries));
	const memo = createRenderMemo();
	let state = emptyLedger(cwd);
	let folded = 0;
	const out: PointGolden[] = [];
	for (const point of pointsOfScan(scanPoints(events), 10)) {
		state = foldLedger(state, events.slice(folded, point.upTo));
		folded = point.upTo;
		const request = renderRequest(
			state,
			{
				config: DEFAULT_LEDGER_CONFIG,
				catalogue: tools.catalogue,
				tools: tools.declarations,
				toolsMode: "repo",
				mode: "consult",
				inFlightCallId: point.callId,
			},
			memo,
		);
		out.push({ upTo: point.upTo, tokens: request.tokens, sha256: fingerprint(buildContext(request)) });
	}
	return out;
}

/** The inputs, by a name relative to the repository (the generated one by its recipe). */
export function goldenInputs(): { name: string; text: () => string }[] {
	const files: string[] = [];
	for (const dir of ["samples", "samples/long"]) {
		for (const name of readdirSync(join(repoRoot, dir)).sort()) {
			if (name.endsWith(".jsonl")) files.push(join(repoRoot, dir, name));
		}
	}
	return [
		...files.map((file) => ({ name: relative(repoRoot, file), text: () => readFileSync(file, "utf8") })),
		{ name: "generated:10000", text: () => generateSession(10_000).jsonl },
		{ name: "generated:30000:compacted", text: () => generateCompacted().jsonl },
	];
}

export function computeGoldens(): Goldens {
	const out: Goldens = {};
	for (const input of goldenInputs()) out[input.name] = goldenPoints(input.text());
	return out;
}
