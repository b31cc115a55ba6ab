/**
 * docs/architecture.md invariant 7 ("never larger than Pi's resolved context for the same branch plus the
 * catalogue") and the conformance checks against Pi's own builder on real sessions.
 *
 * Pi's resolved context is what Pi sends the executor for the branch: its system prompt, its tool
 * declarations and `convertToLlm(buildSessionContext(...))`. Two things may legitimately make the
 * ledger larger, and the property allows exactly those:
 * - user words Pi's context no longer carries but the ledger re-states (a compaction's
 *   summarised span, an abandoned branch behind a branch summary);
 * - a constant: the advisor's fixed head (system prompt, read-only tool declarations, framing and
 *   instruction) is larger than the executor's, which matters only for near-empty branches.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
} from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baselineMessages, prepareBaseline } from "../../src/adapter/extension/baseline/messages.ts";
import { advisorToolDeclarations, calledToolNames, sessionTools } from "../../src/adapter/lab/replay/tool-set.ts";
import { readSession } from "../../src/events/index.ts";
import type { ContentPart, LedgerEvent } from "../../src/events/types.ts";
import { emptyLedger, foldLedger, ledgerOf } from "../../src/reducers/index.ts";
import { userBody } from "../../src/render/blocks.ts";
import { estimateContextTokens, tokensForChars } from "../../src/render/estimate.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/ledger-section.ts";
import {
	advisorSystemPrompt,
	CONSULT_INSTRUCTION,
	DEFAULT_QUESTION,
	LOG_CLOSE,
	LOG_OPEN,
} from "../../src/render/model-text.ts";
import { ordinalId } from "../../src/render/ordinal.ts";
import { createRenderMemo } from "../../src/render/render-memo.ts";
import { renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext } from "../../src/render/request-units.ts";
import {
	type BuiltSession,
	buildSession,
	type CallPlan,
	filler,
	RUNS,
	type Step,
	sessionArb,
	type ToolKind,
} from "../support/session-gen.ts";

const CWD = "/work/project";

/** Pi does not export its system-prompt builder from the package root; load the module file itself. */
async function piSystemPrompt(): Promise<string> {
	const file = path.resolve(
		import.meta.dirname,
		"../../node_modules/@mariozechner/pi-coding-agent/dist/core/system-prompt.js",
	);
	const module = await import(pathToFileURL(file).href);
	return module.buildSystemPrompt({ cwd: CWD }) as string;
}

const executorTools = [
	createReadToolDefinition(CWD),
	createBashToolDefinition(CWD),
	createEditToolDefinition(CWD),
	createWriteToolDefinition(CWD),
].map((d) => ({ name: d.name, description: d.description, parameters: d.parameters }));

function wordsTokens(parts: readonly ContentPart[]): number {
	const text = parts.map((p) => (p.type === "text" ? p.text : "")).join("\n");
	return tokensForChars(Math.min(text.length, DEFAULT_LEDGER_CONFIG.userMessageMaxChars) + 24);
}

/**
 * User words the ledger re-states that Pi's context for the branch does not carry: those before the
 * newest compaction's horizon (Pi has only its summary of them; judged by position, since generated
 * texts can share their start), and an abandoned branch's behind a branch summary.
 */
function restatedTokens(events: readonly LedgerEvent[], horizon: number | undefined): number {
	let tokens = 0;
	for (const [i, e] of events.entries()) {
		if (e.kind === "user" && horizon !== undefined && i + 1 < horizon) tokens += wordsTokens(e.parts);
		if (e.kind === "branchSummary") for (const w of e.hiddenUserWords) tokens += wordsTokens(w.parts);
	}
	return tokens;
}

/** What a request may hold beyond Pi's context for the same branch, and the request's size. */
async function sizer(): Promise<(session: BuiltSession) => { request: number; bound: number }> {
	const system = await piSystemPrompt();
	const declarations = advisorToolDeclarations(CWD);
	const ledgerHead =
		tokensForChars(advisorSystemPrompt("repo").length) +
		tokensForChars(JSON.stringify(declarations).length) +
		tokensForChars(LOG_OPEN.length + LOG_CLOSE.length + DEFAULT_QUESTION.length + 24 + CONSULT_INSTRUCTION.length);
	const piHead = tokensForChars(system.length) + tokensForChars(JSON.stringify(executorTools).length);
	const head = Math.max(0, ledgerHead - piHead);
	// The allowance is a small constant, not a fraction of anything: if it grows, the head got fat.
	expect(head).toBeLessThan(800);
	return (session) => {
		const read = readSession(session.jsonl);
		const tools = sessionTools(CWD, calledToolNames(read.entries));
		const state = ledgerOf(read.events);
		const messages = baselineMessages(prepareBaseline(read.path, []), read.path.length).slice(1);
		const pi = estimateContextTokens({ systemPrompt: system, tools: executorTools as never, messages });
		// The payload as the host measures it: Pi's context for the branch, and its head.
		const request = renderRequest(state, {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: tools.catalogue,
			tools: declarations,
			toolsMode: "repo",
			mode: "consult",
			payload: { tokens: pi, headTokens: piHead },
		});
		const catalogue = tokensForChars(JSON.stringify(tools.catalogue).length);
		const restated = restatedTokens(read.events, state.horizon);
		return { request: request.tokens, bound: pi + catalogue + restated + head };
	};
}

/** Large tool rounds, then a compaction that keeps little or nothing of them, then a little more. */
const heavyCall: fc.Arbitrary<CallPlan> = fc.record({
	tool: fc.constantFrom<ToolKind>("bash", "read", "grep"),
	arg: fc.tuple(fc.integer({ min: 1, max: 120 }), fc.nat(9000)).map(([n, s]) => filler(n, s)),
	text: fc.tuple(fc.integer({ min: 0, max: 12000 }), fc.nat(9000)).map(([n, s]) => filler(n, s)),
	outcome: fc.constantFrom<CallPlan["outcome"]>("ok", "ok", "error", "missing"),
	image: fc.constant(false),
});
const prose = fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.nat(9000)).map(([n, s]) => filler(n, s));
const heavyStep: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc
			.record({
				prose,
				thinking: prose,
				calls: fc.array(heavyCall, { minLength: 0, maxLength: 4 }),
				seed: fc.nat(1000),
			})
			.map(
				({ seed, ...s }): Step => ({ t: "turn", ...s, order: s.calls.map((_, i) => (i + seed) % s.calls.length) }),
			),
	},
	{ weight: 1, arbitrary: prose.map((text): Step => ({ t: "user", text, long: false, images: 0 })) },
);
const keepsLittle = fc
	.tuple(
		fc.array(heavyStep, { minLength: 1, maxLength: 12 }),
		fc.double({ min: 0.8, max: 1, noNaN: true, maxExcluded: true }),
		prose,
		fc.array(heavyStep, { maxLength: 3 }),
	)
	.map(([before, keep, summary, after]) =>
		buildSession([...before, { t: "compaction", keep, summary: summary.slice(0, 200) }, ...after]),
	);

describe("invariant 7: never larger", () => {
	it("beyond a constant head and the user words it re-states by design, the ledger is never larger than Pi's context", async () => {
		const size = await sizer();
		fc.assert(
			fc.property(sessionArb(), (session) => {
				const { request, bound } = size(session);
				expect(request).toBeLessThanOrEqual(bound);
			}),
			{ numRuns: RUNS },
		);
	});
	it("also after a compaction that keeps less than a round or two, which Pi does not make", async () => {
		const size = await sizer();
		fc.assert(
			fc.property(keepsLittle, (session) => {
				const { request, bound } = size(session);
				expect(request).toBeLessThanOrEqual(bound);
			}),
			{ numRuns: RUNS },
		);
	});
});

const SHARED = path.resolve(import.meta.dirname, "../../../shared/sessions");
const sharedFiles = existsSync(SHARED) ? readdirSync(SHARED).filter((f) => f.endsWith(".jsonl")) : [];
if (sharedFiles.length === 0) console.warn(`conformance against Pi skipped: no sessions in ${SHARED}`);

describe("conformance with Pi on ../shared/sessions", () => {
	if (sharedFiles.length === 0) it("../shared/sessions", (ctx) => ctx.skip(`no sessions in ${SHARED}`));
	it.each(sharedFiles)(
		"%s: every user message Pi has is in the render, and the ledger is below Pi's context at every tool round",
		async (file) => {
			// Pi's context as Pi sends it: its system prompt and tool declarations too. A session whose path
			// starts near-empty (a fork's file cut at a missing parent) is smaller than the advisor's head at first.
			const system = await piSystemPrompt();
			const read = readSession(readFileSync(path.join(SHARED, file), "utf8"));
			const tools = sessionTools(CWD, calledToolNames(read.entries));
			const baseline = prepareBaseline(read.path, tools.inventory);
			const options = {
				config: DEFAULT_LEDGER_CONFIG,
				catalogue: tools.catalogue,
				tools: advisorToolDeclarations(CWD),
				toolsMode: "repo" as const,
				mode: "consult" as const,
			};
			const memo = createRenderMemo();
			let state = emptyLedger();
			let folded = 0;
			let rounds = 0;
			for (let i = 0; i < read.events.length; i++) {
				if (read.events[i]!.kind !== "toolResult" && i !== read.events.length - 1) continue;
				rounds++;
				state = foldLedger(state, read.events.slice(folded, i + 1));
				folded = i + 1;
				const request = renderRequest(state, options, memo);
				const base = estimateContextTokens({
					systemPrompt: system,
					tools: executorTools as never,
					messages: baselineMessages(baseline, i + 1),
				});
				expect(request.tokens, `ledger above Pi's context after entry ${read.events[i]!.id}`).toBeLessThan(base);
			}
			expect(rounds).toBeGreaterThan(0);

			// Every user message in Pi's own context for the leaf appears, as the ledger's verbatim user block.
			const text = JSON.stringify(buildContext(renderRequest(state, options, memo)));
			const piUsers = read.events.filter((e) => e.kind === "user");
			const inPi = baselineMessages(baseline, read.path.length).filter((m) => m.role === "user").length;
			// Pi's context holds every user message of an uncompacted branch (a compaction replaces those before its cut).
			if (!read.events.some((e) => e.kind === "compaction")) expect(inPi).toBeGreaterThanOrEqual(piUsers.length);
			else expect(inPi).toBeLessThan(piUsers.length);
			for (const [i, e] of read.events.entries()) {
				if (e.kind !== "user") continue;
				// Shown by its path position.
				const block = `[user #${ordinalId(i + 1)}]\n${userBody(e.parts, DEFAULT_LEDGER_CONFIG)}\n`;
				expect(text.includes(JSON.stringify(block).slice(1, -1)), `user message ${e.id}`).toBe(true);
			}
		},
	);
});
