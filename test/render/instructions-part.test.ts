/**
 * A session the real Pi 1.6 CLI wrote, with an AGENTS.md in its project (test/fixtures/pi-1.6/system-prompt.jsonl):
 * the reader knows its system message, the request's head carries the instructions, advisor_expand
 * returns them, and the fact audit counts them. Wires events, reducers and render.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { auditRequest, createAuditMemo } from "../../src/adapter/lab/audit/fact-audit.ts";
import { branchFacts, emptyFacts, foldFacts } from "../../src/adapter/lab/audit/index.ts";
import { readSession } from "../../src/events/index.ts";
import { ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/ledger-section.ts";
import { renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext } from "../../src/render/request-units.ts";

const text = readFileSync(new URL("../fixtures/pi-1.6/system-prompt.jsonl", import.meta.url), "utf8");
const options = {
	config: DEFAULT_LEDGER_CONFIG,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo" as const,
	mode: "consult" as const,
};

describe("Pi 1.6's system message", () => {
	const read = readSession(text);
	const state = ledgerOf(read.events, read.header?.cwd);

	it("is read without a diagnostic, as a system event", () => {
		expect(read.diagnostics).toEqual([]);
		expect(read.events[2]!.kind).toBe("system");
	});

	it("gives the request's head the project's AGENTS.md, once, named by the system entry", () => {
		const request = renderRequest(state, options);
		const head = buildContext(request).messages[0]!.content as { text: string }[];
		expect(head[1]!.text).toBe(
			"<standing_instructions>\nThe user's standing instructions to the executor (context files and the user's own system prompt), as Pi gave them to it: hold the executor to them.\n[instructions #3 · AGENTS.md]\n# Project rules\n\n- Always run `npm test` before committing.\n- Never edit `src/generated/`.\n</standing_instructions>\n",
		);
		// Part of the stable head: the log's first part comes after it.
		expect(request.stable.unitCount).toBeGreaterThan(3);
	});

	it("is capped at ledger.instructionsMaxChars around a gap, and left out at 0", () => {
		const capped = renderRequest(state, {
			...options,
			config: { ...DEFAULT_LEDGER_CONFIG, instructionsMaxChars: 30 },
		});
		const head = (buildContext(capped).messages[0]!.content as { text: string }[])[1]!.text;
		expect(head).toContain("chars omitted");
		const none = renderRequest(state, { ...options, config: { ...DEFAULT_LEDGER_CONFIG, instructionsMaxChars: 0 } });
		expect(buildContext(none).messages[0]!.content).toHaveLength(1);
	});

	it("advisor_expand #3 returns the instructions whole", () => {
		const answer = expandEntry(state, "3");
		expect(answer.kind).toBe("ok");
		expect(answer.kind === "ok" ? answer.text : "").toContain(
			"AGENTS.md:\n# Project rules\n\n- Always run `npm test`",
		);
	});

	it("the fact audit counts each line as a fact, all carried", () => {
		const facts = branchFacts(foldFacts(emptyFacts(read.header?.cwd), read.events)).filter(
			(f) => f.category === "instructions",
		);
		expect(facts.map((f) => f.text)).toEqual([
			"# Project rules",
			"- Always run `npm test` before committing.",
			"- Never edit `src/generated/`.",
		]);
		const request = renderRequest(state, options);
		expect(auditRequest(request, facts, createAuditMemo()).missing).toEqual([]);
	});
});
