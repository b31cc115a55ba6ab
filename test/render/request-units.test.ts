/**
 * A request's units and how a request is read: the encoding every unit shares (rendered, cut to its
 * stable portion, or grown by the tool loop), and the readers (`unitAt`, `unitCount`, `commonUnits`,
 * `declarationCount`, `flatten`, `buildContext`) over each kind of request.
 */
import type { AssistantMessage, Context, Message, Tool, ToolResultMessage } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerOf, listOf } from "../../src/reducers/index.ts";
import { chainHash, hashString } from "../../src/render/hash.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/ledger-section.ts";
import { createRenderMemo } from "../../src/render/render-memo.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import {
	type Assembled,
	buildContext,
	commonUnits,
	declarationCount,
	flatten,
	isLedgerRequest,
	type LedgerRequest,
	measure,
	redactionCount,
	requestFromContext,
	stablePrefixRequest,
	unitAt,
	unitCount,
	whole,
	withContext,
} from "../../src/render/request-units.ts";
import { extendRequest } from "../../src/render/tool-loop.ts";
import { zeroUsage } from "../../src/render/usage.ts";
import { assistant, call, resetParents, result, user } from "../support/events.ts";
import { prefixCutArb } from "../support/properties.ts";
import { allUnits } from "../support/requests.ts";
import { RUNS } from "../support/session-gen.ts";

const TOOLS: Tool[] = [
	{ name: "advisor_expand", description: "Show a log entry whole.", parameters: { type: "object" } as never },
];
const options = (extra: Partial<RenderOptions> = {}): RenderOptions => ({
	config: DEFAULT_LEDGER_CONFIG,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: TOOLS,
	toolsMode: "expand",
	mode: "consult",
	...extra,
});

const session = () => [
	user("u1", "Add a --json flag."),
	assistant("a1", { text: "Looking.", calls: [call("c1", "read", { path: "cli.ts" })] }),
	result("r1", "c1", "read", "export function main() {}"),
	assistant("a2", { text: "Asking.", calls: [call("adv", "advisor")] }),
];

const reply: AssistantMessage = {
	role: "assistant",
	content: [
		{ type: "text", text: "Let me look." },
		{ type: "thinking", thinking: "hmm" },
		{ type: "toolCall", id: "t1", name: "read", arguments: { path: "a.ts" } },
	],
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-sonnet-4-5",
	usage: zeroUsage(),
	stopReason: "toolUse",
	timestamp: 0,
};
const results: ToolResultMessage = {
	role: "toolResult",
	toolCallId: "t1",
	toolName: "read",
	content: [
		{ type: "text", text: "x" },
		{ type: "image", data: "AAAA", mimeType: "image/png" },
	],
	isError: false,
	timestamp: 0,
};

/**
 * The encoding spelled out, independently of the encoder: the head's two units have no marker; a
 * message's first part opens with U+0001 and its role marker (`a` for the advisor's turns, `u` for
 * the rest), its other parts with the role marker; each unit's hash chains the previous one with
 * the marker beside the hash of the part's own text, and its characters add up.
 */
function expectEncoded(request: LedgerRequest): void {
	const roles = buildContext(request).messages.map((m) => (m.role === "assistant" ? "a" : "u"));
	let hash = "";
	let chars = 0;
	let message = -1;
	allUnits(request).forEach((unit, i) => {
		let marker = "";
		if (i >= 2) {
			if (unit.text.startsWith("\u0001")) message++;
			marker = `${unit.text.startsWith("\u0001") ? "\u0001" : ""}${roles[message]}\u0000`;
		}
		expect(unit.text.startsWith(marker)).toBe(true);
		hash = chainHash(hash, marker, hashString(unit.text.slice(marker.length)));
		chars += unit.text.length;
		expect(unit.prefixHash).toBe(hash);
		expect(unit.prefixChars).toBe(chars);
	});
	expect(message + 1).toBe(request.messageCount);
	expect(request.hash).toBe(hash);
}

beforeEach(() => resetParents());

describe("one encoding for every unit", () => {
	it("property: a rendered request, its stable prefix and both grown by the tool loop are encoded alike", () => {
		fc.assert(
			fc.property(prefixCutArb(), fc.boolean(), ({ events }, review) => {
				const request = renderRequest(ledgerOf(events), options(review ? { mode: "review" } : {}));
				expectEncoded(request);
				// The units after the head are what is sent, part by part.
				const parts = buildContext(request).messages.flatMap((m) =>
					(m.content as { text: string }[]).map((p) => p.text),
				);
				expect(
					allUnits(request)
						.slice(2)
						.map((u) => u.text.replace(/^\u0001?[au]\u0000/, "")),
				).toEqual(parts);
				const prefix = stablePrefixRequest(request);
				expectEncoded(prefix);
				for (const base of [request, prefix]) {
					const grown = extendRequest(base, { messages: [...buildContext(base).messages, reply, results] });
					expectEncoded(grown);
					expect(flatten(grown).startsWith(flatten(base))).toBe(true);
				}
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("the stable prefix is a request like any other", () => {
	it("property: the units, context and figures of the request up to its stable end", () => {
		fc.assert(
			fc.property(prefixCutArb(), ({ events }) => {
				const request = renderRequest(ledgerOf(events), options());
				const { stable } = request;
				const prefix = stablePrefixRequest(request);
				expect(unitCount(prefix)).toBe(stable.unitCount);
				expect(allUnits(prefix)).toEqual(allUnits(request).slice(0, stable.unitCount));
				expect(commonUnits(prefix, request)).toBe(stable.unitCount);
				expect(flatten(prefix)).toBe(flatten(request, stable.unitCount));
				expect([prefix.hash, prefix.tokens, prefix.stable]).toEqual([stable.hash, stable.tokens, stable]);
				expect(declarationCount(prefix)).toBe(declarationCount(request));
				const whole = buildContext(request);
				const cut = buildContext(prefix);
				expect(prefix.messageCount).toBe(stable.messageIndex + 1);
				expect(cut.messages.slice(0, -1)).toEqual(whole.messages.slice(0, stable.messageIndex));
				expect(cut.messages.at(-1)!.content).toEqual(
					(whole.messages[stable.messageIndex]!.content as unknown[]).slice(0, stable.partCount),
				);
				expect([cut.systemPrompt, cut.tools]).toEqual([whole.systemPrompt, whole.tools]);
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("stablePrefixRequest cuts wherever the stable portion ends", () => {
	const text = (t: string) => ({ type: "text" as const, text: t });
	const open = (log: string[], tail: string[]): Assembled => ({
		role: "user",
		message: undefined,
		log: listOf(log.map(text)),
		tail: tail.map(text),
	});
	const made = (parts: string[]) => whole({ role: "user", content: parts.map(text), timestamp: 0 });
	const head = made(["catalogue"]);
	const measured = (messages: Assembled[], stableParts: number) =>
		measure("sys", [], messages, stableParts, { partHash: hashString, lastUnits: undefined });

	it.each([
		["inside the log", open(["a", "b", "c"], ["t"]), 2, open(["a", "b"], [])],
		["at the log's end", open(["a", "b"], ["t", "u"]), 2, open(["a", "b"], [])],
		["inside the tail", open(["a"], ["t", "u"]), 2, open(["a"], ["t"])],
		["inside a message made whole", made(["a", "b", "c"]), 1, made(["a"])],
	] as const)("%s: the prefix is the cut messages, measured", (_where, last, stableParts, cut) => {
		const prefix = stablePrefixRequest(measured([head, last], stableParts));
		const expected = measured([head, cut], stableParts);
		expect(allUnits(prefix)).toEqual(allUnits(expected));
		expect(buildContext(prefix)).toEqual(buildContext(expected));
		expect([prefix.hash, prefix.tokens, prefix.messageCount]).toEqual([
			expected.hash,
			expected.stable.tokens,
			expected.messageCount,
		]);
	});

	it("a request made from a context is cut the same way", () => {
		const request = renderRequest(ledgerOf(session()), options());
		const sent = withContext(request, buildContext(request));
		expect(buildContext(stablePrefixRequest(sent))).toEqual(buildContext(stablePrefixRequest(request)));
		expect(allUnits(stablePrefixRequest(sent))).toEqual(allUnits(stablePrefixRequest(request)));
	});
});

describe("reading a request", () => {
	it("buildContext builds what is sent once: the same object at every call", () => {
		const request = renderRequest(ledgerOf(session()), options(), createRenderMemo());
		const context = buildContext(request);
		expect(buildContext(request)).toBe(context);
		expect(context.systemPrompt).toBe(unitAt(request, 0)!.text);
		expect(JSON.stringify(context.tools)).toBe(unitAt(request, 1)!.text);
		expect(context.messages).toHaveLength(request.messageCount);
	});

	it("unitAt is undefined past either end; commonUnits ends where two requests part", () => {
		const memo = createRenderMemo();
		const earlier = renderRequest(ledgerOf(session().slice(0, 3)), options(), memo);
		const later = renderRequest(ledgerOf(session()), options(), memo);
		expect(unitAt(later, -1)).toBeUndefined();
		expect(unitAt(later, unitCount(later))).toBeUndefined();
		const k = commonUnits(earlier, later);
		expect(k).toBeGreaterThan(2);
		expect(k).toBeLessThan(unitCount(earlier));
		expect(unitAt(earlier, k - 1)).toEqual(unitAt(later, k - 1));
		expect(unitAt(earlier, k)!.prefixHash).not.toBe(unitAt(later, k)!.prefixHash);
	});

	it("a request made from a context sends that very context, with the units it was given", () => {
		const context: Context = {
			systemPrompt: "sys",
			messages: [{ role: "user", content: "hi", timestamp: 0 }],
			tools: TOOLS,
		};
		const units = [{ prefixHash: "h0", prefixChars: 3, text: "sys" }];
		const stable = { messageIndex: 0, partCount: 0, unitCount: 0, hash: "", chars: 0, tokens: 0 };
		const request = requestFromContext(context, units, stable, { hash: "h", tokens: 7 });
		expect(buildContext(request)).toBe(context);
		expect(allUnits(request)).toEqual(units);
		expect([request.hash, request.tokens, request.messageCount, declarationCount(request)]).toEqual(["h", 7, 1, 1]);
		expect(isLedgerRequest(request)).toBe(true);
		expect(isLedgerRequest({ stable, units, hash: "h", tokens: 7, messageCount: 1 })).toBe(false);
	});

	it("withContext sends another context and keeps the units and figures", () => {
		const request = renderRequest(ledgerOf(session()), options());
		const other: Context = { systemPrompt: "other", messages: [], tools: [] };
		const swapped = withContext(request, other);
		expect(buildContext(swapped)).toBe(other);
		expect(allUnits(swapped)).toEqual(allUnits(request));
		expect([swapped.hash, swapped.tokens, swapped.stable]).toEqual([request.hash, request.tokens, request.stable]);
		expect(declarationCount(swapped)).toBe(0);
	});
});

describe("redactionCount", () => {
	it("counts the marks in the system prompt, texts, thinking and call arguments, not in images", () => {
		const mark = "[redacted: github-token]";
		const messages: Message[] = [
			{ role: "user", content: `a ${mark} b ${mark}`, timestamp: 0 },
			{
				...reply,
				content: [
					{ type: "thinking", thinking: mark },
					{ ...reply.content[2]!, arguments: { k: mark } },
				],
			},
			{ ...results, content: [{ type: "text", text: `${mark}${mark}` }, results.content[1]!] },
		] as Message[];
		expect(redactionCount(messages)).toBe(6);
		expect(redactionCount(messages, `sys ${mark}`)).toBe(7);
		expect(redactionCount([{ role: "user", content: "[redacted: Not-A-Mark]", timestamp: 0 }])).toBe(0);
	});
});
