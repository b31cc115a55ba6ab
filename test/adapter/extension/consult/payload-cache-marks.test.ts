/**
 * The extension's cache marks (the stable end and the bridge) on the three routes where pi-ai sends
 * Anthropic-style marks, applied to real payloads built by pi-ai's own providers (captured through
 * onPayload, then the request is stopped before anything is sent), and the warming form.
 */

import { type Api, type Context, completeSimple, getModel, type Model, Type } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	cacheMarksHook,
	MAX_BREAKPOINTS,
	markTargets,
	warmingForm,
	withCacheMarks,
} from "../../../../src/adapter/extension/consult/payload-cache-marks.ts";
import type { LedgerEvent } from "../../../../src/events/index.ts";
import { refreshRequest } from "../../../../src/policy/index.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import {
	buildContext,
	DEFAULT_LEDGER_CONFIG,
	type LedgerRequest,
	renderRequest,
} from "../../../../src/render/index.ts";
import { advice, assistant, call, resetParents, result, user } from "../../../support/events.ts";

const ANTHROPIC = getModel("anthropic", "claude-sonnet-4-5") as Model<Api>;
const OPENROUTER = getModel("openrouter", "anthropic/claude-sonnet-4.5") as Model<Api>;
const BEDROCK = getModel("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0") as Model<Api>;

const TOOLS = [
	{ name: "advisor_expand", description: "Expand ids.", parameters: Type.Object({ ids: Type.Array(Type.String()) }) },
	{ name: "read", description: "Read a file.", parameters: Type.Object({ path: Type.String() }) },
];

/** Consultation 1 after 3 rounds (answered), then `rounds` more rounds and consultation 2 in flight. */
function consultations(rounds: number): { first: LedgerRequest; second: LedgerRequest } {
	resetParents();
	const events: LedgerEvent[] = [user("u1", "Add a CONTRIBUTING file.")];
	const round = (n: number) => {
		events.push(assistant(`e${n}`, { text: `Step ${n}.`, calls: [call(`c${n}`, "read", { path: `f${n}.md` })] }));
		events.push(result(`r${n}`, `c${n}`, "read", `# file ${n}`));
	};
	for (let n = 0; n < 3; n++) round(n);
	events.push(assistant("q1", { text: "Plan ready?", calls: [call("adv1", "advisor")] }));
	const firstAt = events.length;
	events.push(advice("v1", "adv1", "Severity: none\nGo ahead."));
	for (let n = 3; n < 3 + rounds; n++) round(n);
	events.push(assistant("q2", { text: "Done?", calls: [call("adv2", "advisor")] }));
	const render = (upTo: number, callId: string) =>
		renderRequest(ledgerOf(events.slice(0, upTo)), {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: [{ name: "read", description: "Read a file." }],
			tools: TOOLS,
			toolsMode: "expand",
			mode: "consult",
			inFlightCallId: callId,
		});
	return { first: render(firstAt, "adv1"), second: render(events.length, "adv2") };
}

const previousOf = (r: LedgerRequest) => ({ stableUnits: r.stable.unitCount, stableHash: r.stable.hash });

/** pi-ai's payload for this context, captured before it would be sent. */
async function payloadOf(
	model: Model<Api>,
	context: Context,
	options: { apiKey?: string; cacheRetention?: "none" | "short" | "long" } = {},
): Promise<any> {
	let captured: unknown;
	const message = await completeSimple(model, context, {
		apiKey: options.apiKey ?? "sk-ant-api03-test",
		...(options.cacheRetention ? { cacheRetention: options.cacheRetention } : {}),
		onPayload: (payload) => {
			captured = structuredClone(payload);
			throw new Error("captured; not sending");
		},
	});
	expect(message.errorMessage).toContain("captured; not sending");
	return captured;
}

/** The text of every marked block, in prompt order (tools by name; a Bedrock mark by the block before it). */
function markedTexts(payload: any): string[] {
	const out: string[] = [];
	const scan = (list: any[] | undefined, label: (item: any, i: number) => string) => {
		(list ?? []).forEach((item, i) => {
			if (item?.cache_control !== undefined) out.push(label(item, i));
			if (item?.cachePoint !== undefined) out.push(label(list![i - 1], i - 1));
		});
	};
	scan(payload.tools, (t) => `tool:${t.name ?? t.function?.name}`);
	scan(payload.toolConfig?.tools, (t) => `tool:${t.toolSpec?.name}`);
	scan(Array.isArray(payload.system) ? payload.system : undefined, (b) => `system:${b.text.slice(0, 12)}`);
	for (const message of payload.messages) {
		if (!Array.isArray(message.content)) continue;
		scan(message.content, (b) => (b.text ?? b.type ?? "?") as string);
	}
	return out;
}

/** The text of the part a target ends with. */
function targetText(request: LedgerRequest, target: { messageIndex: number; partCount: number }): string {
	const content = buildContext(request).messages[target.messageIndex]!.content as { text: string }[];
	return content[target.partCount - 1]!.text;
}

describe("markTargets", () => {
	it("30 rounds after the last consultation: the bridge at its stable end, then this request's", () => {
		const { first, second } = consultations(30);
		const targets = markTargets(second, previousOf(first));
		expect(targets).toHaveLength(2);
		expect(targetText(second, targets[0]!)).toBe(targetText(first, first.stable));
		expect(targets[1]).toEqual({ messageIndex: second.stable.messageIndex, partCount: second.stable.partCount });
	});

	it("3 rounds after, or nothing before: the stable end only", () => {
		const { first, second } = consultations(3);
		expect(markTargets(second, previousOf(first))).toHaveLength(1);
		expect(markTargets(second, undefined)).toHaveLength(1);
	});
});

describe.each([
	["anthropic-messages", ANTHROPIC],
	["openai-completions with Anthropic marks (OpenRouter)", OPENROUTER],
	["bedrock-converse-stream", BEDROCK],
])("%s", (_, model) => {
	const { first, second } = consultations(30);
	const targets = markTargets(second, previousOf(first));
	const bridge = targetText(second, targets[0]!);
	const stable = targetText(second, targets[1]!);

	it("marks the bridge and the stable end, within four marks", async () => {
		const payload = await payloadOf(model, buildContext(second));
		const before = markedTexts(payload);
		const marked = withCacheMarks(payload, buildContext(second), targets, model.api);
		const after = markedTexts(marked);
		expect(after.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
		expect(after).toContain(bridge);
		expect(after).toContain(stable);
		// pi-ai's mark on the last block stays; beyond four, the earliest go.
		expect(after.at(-1)).toBe(before.at(-1));
		expect(after.slice(0, after.indexOf(bridge))).toEqual(
			before.slice(Math.max(0, before.length + 2 - MAX_BREAKPOINTS), before.length - 1),
		);
		// The input is not modified, and marking again adds nothing.
		expect(markedTexts(payload)).toEqual(before);
		expect(withCacheMarks(marked, buildContext(second), targets, model.api)).toBeUndefined();
	});

	it("copies pi-ai's retention (long → a one-hour ttl) and leaves a payload without marks alone", async () => {
		const long = await payloadOf(model, buildContext(second), { cacheRetention: "long" });
		const marked = withCacheMarks(long, buildContext(second), targets, model.api) as any;
		const settings = JSON.stringify(marked).match(/"(cache_control|cachePoint)":\{[^}]*\}/g)!;
		expect(settings.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
		expect(new Set(settings).size).toBe(1);
		expect(settings[0]).toMatch(/"ttl":"1h"/);
		const off = await payloadOf(model, buildContext(second), { cacheRetention: "none" });
		expect(withCacheMarks(off, buildContext(second), targets, model.api)).toBeUndefined();
	});

	it("a payload that does not line up with the context gets no mark", async () => {
		const payload = await payloadOf(model, buildContext(second));
		// The same shape, other words where the marks would go.
		const other = structuredClone(buildContext(second));
		for (const t of targets)
			(other.messages[t.messageIndex]!.content as { text: string }[])[t.partCount - 1]!.text = "x";
		expect(withCacheMarks(payload, other, targets, model.api)).toBeUndefined();
		expect(warmingForm(payload, model, other, second.stable)).toBeUndefined();
		expect(withCacheMarks({ not: "a payload" }, buildContext(second), targets, model.api)).toBeUndefined();
	});

	it("the warming form: cut after the stable portion, no marks; the refresh's payload has the same form", async () => {
		const payload = withCacheMarks(
			await payloadOf(model, buildContext(second)),
			buildContext(second),
			targets,
			model.api,
		);
		const form = warmingForm(payload, model, buildContext(second), second.stable) as any;
		expect(markedTexts(form)).toEqual([]);
		const last = form.messages.at(-1).content.at(-1);
		expect(last.text).toBe(stable);
		const cut = refreshRequest(second, model);
		const refresh = withCacheMarks(await payloadOf(model, buildContext(cut)), buildContext(cut), targets, model.api);
		// The refresh carries the same marks but for pi-ai's own on its (new) last block.
		expect(markedTexts(refresh)).toContain(bridge);
		expect(markedTexts(refresh).at(-1)).toBe(stable);
		expect(JSON.stringify(warmingForm(refresh, model, buildContext(cut), cut.stable))).toBe(JSON.stringify(form));
	});
});

describe("anthropic-messages specifics", () => {
	const { first, second } = consultations(30);
	const targets = markTargets(second, previousOf(first));

	it("OAuth: pi-ai's four marks (last tool, both system blocks, last block) leave room by dropping the earliest two", async () => {
		const payload = await payloadOf(ANTHROPIC, buildContext(second), { apiKey: "sk-ant-oat01-test" });
		expect(markedTexts(payload)).toHaveLength(4);
		const marked = withCacheMarks(payload, buildContext(second), targets, ANTHROPIC.api) as any;
		expect(markedTexts(marked)).toHaveLength(MAX_BREAKPOINTS);
		expect(marked.tools.at(-1).cache_control).toBeUndefined();
		expect(marked.system[0].cache_control).toBeUndefined();
		expect(marked.system[1].cache_control).toBeDefined();
		// Only the stable end (no previous consultation): one of pi-ai's goes.
		const one = withCacheMarks(payload, buildContext(second), markTargets(second, undefined), ANTHROPIC.api) as any;
		expect(markedTexts(one)).toHaveLength(MAX_BREAKPOINTS);
		expect(one.tools.at(-1).cache_control).toBeUndefined();
		expect(one.system[0].cache_control).toBeDefined();
	});

	it("a part of whitespace is not sent: the mark goes on the last part pi-ai keeps", async () => {
		const context: Context = {
			systemPrompt: "sys",
			messages: [
				{
					role: "user",
					content: [
						{ type: "text", text: "kept" },
						{ type: "text", text: "   " },
						{ type: "text", text: "last" },
					],
					timestamp: 0,
				},
			],
		};
		const payload = await payloadOf(ANTHROPIC, context);
		const marked = withCacheMarks(payload, context, [{ messageIndex: 0, partCount: 2 }], ANTHROPIC.api) as any;
		expect(marked.messages[0].content.map((b: any) => b.cache_control !== undefined)).toEqual([true, true]);
	});
});

describe("bedrock-converse-stream specifics", () => {
	it("two marks in one message (no consultation closed in between) each land after their block", async () => {
		const context: Context = {
			systemPrompt: "sys",
			messages: [
				{
					role: "user",
					content: ["a", "b", "c", "d"].map((text) => ({ type: "text" as const, text })),
					timestamp: 0,
				},
			],
		};
		const payload = await payloadOf(BEDROCK, context);
		const targets = [
			{ messageIndex: 0, partCount: 1 },
			{ messageIndex: 0, partCount: 3 },
		];
		const marked = withCacheMarks(payload, context, targets, BEDROCK.api) as any;
		expect(marked.messages[0].content.map((b: any) => b.text ?? "|")).toEqual(["a", "|", "b", "c", "|", "d", "|"]);
		expect(marked.system.map((b: any) => b.text ?? "|")).toEqual(["sys", "|"]);
	});
});

describe("cacheMarksHook", () => {
	it("only the routes with Anthropic-style marks get a hook", () => {
		const { second } = consultations(3);
		const targets = markTargets(second, undefined);
		for (const api of ["anthropic-messages", "openai-completions", "bedrock-converse-stream"])
			expect(cacheMarksHook({ api }, buildContext(second), targets)).toBeTypeOf("function");
		expect(cacheMarksHook({ api: "openai-responses" }, buildContext(second), targets)).toBeUndefined();
		expect(cacheMarksHook({ api: "anthropic-messages" }, buildContext(second), [])).toBeUndefined();
	});

	it("openai-completions without Anthropic marks (a plain OpenAI model) is left alone", async () => {
		const { second } = consultations(3);
		const gpt = getModel("openai", "gpt-4.1") as Model<Api>;
		const model = { ...gpt, api: "openai-completions" } as Model<Api>;
		const payload = await payloadOf(model, buildContext(second));
		expect(withCacheMarks(payload, buildContext(second), markTargets(second, undefined), model.api)).toBeUndefined();
		expect(warmingForm(payload, model, buildContext(second), second.stable)).toBe(payload);
	});
});
