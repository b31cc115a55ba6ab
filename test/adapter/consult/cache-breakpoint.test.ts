/**
 * The stable-part breakpoint, applied to real Anthropic payloads built by pi-ai's own provider
 * (captured through onPayload, then the request is stopped before anything is sent).
 */

import { type Api, completeSimple, getModel, type Model, Type } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	cacheBreakpointHook,
	MAX_BREAKPOINTS,
	withStableBreakpoint,
} from "../../../src/adapter/consult/cache-breakpoint.ts";
import { ledgerOf } from "../../../src/reducers/index.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerRequest, renderRequest } from "../../../src/render/index.ts";
import { advice, assistant, call, resetParents, result, user } from "../../support/events.ts";

const sonnet = getModel("anthropic", "claude-sonnet-4-5") as Model<Api>;

function ledgerRequest(withTools: boolean): LedgerRequest {
	resetParents();
	const state = ledgerOf([
		user("u1", "Add a CONTRIBUTING file."),
		assistant("e1", { text: "Looking.", calls: [call("c1", "read", { path: "README.md" })] }),
		result("r1", "c1", "read", "# demo"),
		assistant("e2", { text: "Plan ready?", calls: [call("adv1", "advisor")] }),
		advice("r2", "adv1", "Severity: none\nGo ahead."),
		assistant("e3", { calls: [call("c2", "bash", { command: "ls" })] }),
		result("r3", "c2", "bash", "README.md"),
		assistant("e4", { calls: [call("c3", "bash", { command: "git status" })] }),
		result("r4", "c3", "bash", ""),
		assistant("e5", { calls: [call("c4", "write", { path: "CONTRIBUTING.md", content: "x" })] }),
		result("r5", "c4", "write", "ok"),
		assistant("e6", { text: "Done?", calls: [call("adv2", "advisor")] }),
	]);
	const tools = withTools
		? [
				{
					name: "advisor_expand",
					description: "Expand ids.",
					parameters: Type.Object({ ids: Type.Array(Type.String()) }),
				},
			]
		: [];
	return renderRequest(state, {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [{ name: "read", description: "Read a file." }],
		tools,
		toolsMode: withTools ? "expand" : "none",
		mode: "consult",
	});
}

/** pi-ai's anthropic payload for this request, captured before it would be sent. */
async function anthropicPayload(
	request: LedgerRequest,
	options: { apiKey?: string; cacheRetention?: "none" | "short" | "long" } = {},
): Promise<any> {
	let captured: unknown;
	const message = await completeSimple(sonnet, request.context, {
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

function markers(payload: any): unknown[] {
	const out: unknown[] = [];
	for (const tool of payload.tools ?? []) if (tool.cache_control) out.push(tool.cache_control);
	for (const block of payload.system ?? []) if (block.cache_control) out.push(block.cache_control);
	for (const message of payload.messages)
		if (Array.isArray(message.content))
			for (const b of message.content) if (b.cache_control) out.push(b.cache_control);
	return out;
}

describe("the breakpoint at the end of the stable part", () => {
	it("marks the block that ends the stable portion, alongside pi-ai's own marks", async () => {
		const request = ledgerRequest(true);
		const payload = await anthropicPayload(request);
		expect(markers(payload)).toHaveLength(3);
		const marked = withStableBreakpoint(payload, request.context, request.stable) as any;
		const { messageIndex, partCount } = request.stable;
		expect(partCount).toBeGreaterThan(1);
		const block = marked.messages[messageIndex].content[partCount - 1];
		const source = request.context.messages[messageIndex]!.content[partCount - 1] as { text: string };
		expect(block).toEqual({ type: "text", text: source.text, cache_control: { type: "ephemeral" } });
		// Nothing else moved: pi-ai's marks on the system prompt, the last tool and the last block stay.
		expect(markers(marked)).toHaveLength(4);
		expect(marked.system[0].cache_control).toBeDefined();
		expect(marked.tools.at(-1).cache_control).toBeDefined();
		expect(marked.messages.at(-1).content.at(-1).cache_control).toBeDefined();
		// The input is not modified.
		expect(markers(payload)).toHaveLength(3);
	});

	it("keeps the request within Anthropic's four breakpoints (OAuth adds a second system block)", async () => {
		const request = ledgerRequest(true);
		const payload = await anthropicPayload(request, { apiKey: "sk-ant-oat01-test" });
		expect(markers(payload)).toHaveLength(4);
		const marked = withStableBreakpoint(payload, request.context, request.stable) as any;
		expect(markers(marked)).toHaveLength(MAX_BREAKPOINTS);
		const { messageIndex, partCount } = request.stable;
		expect(marked.messages[messageIndex].content[partCount - 1].cache_control).toBeDefined();
		// The dropped mark is the earliest (the last tool); the system prompt's last block still ends on one.
		expect(marked.tools.at(-1).cache_control).toBeUndefined();
		expect(marked.system.at(-1).cache_control).toBeDefined();
	});

	it("copies the retention pi-ai chose (long → 1h ttl)", async () => {
		const request = ledgerRequest(false);
		const payload = await anthropicPayload(request, { cacheRetention: "long" });
		const marked = withStableBreakpoint(payload, request.context, request.stable) as any;
		const { messageIndex, partCount } = request.stable;
		expect(marked.messages[messageIndex].content[partCount - 1].cache_control).toEqual({
			type: "ephemeral",
			ttl: "1h",
		});
	});

	it("adds nothing when caching is off, when already marked, or when the payload does not match", async () => {
		const request = ledgerRequest(false);
		const off = await anthropicPayload(request, { cacheRetention: "none" });
		expect(withStableBreakpoint(off, request.context, request.stable)).toBeUndefined();

		const payload = await anthropicPayload(request);
		const marked = withStableBreakpoint(payload, request.context, request.stable);
		expect(withStableBreakpoint(marked, request.context, request.stable)).toBeUndefined();

		const shifted = { messageIndex: request.stable.messageIndex, partCount: request.stable.partCount + 1 };
		const other = renderRequest(ledgerOf([user("zz", "other")]), {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: [],
			tools: [],
			toolsMode: "none",
			mode: "consult",
		});
		expect(withStableBreakpoint(payload, other.context, shifted)).toBeUndefined();
		expect(withStableBreakpoint({ not: "anthropic" }, request.context, request.stable)).toBeUndefined();
	});

	it("only Anthropic-style APIs get a hook", () => {
		const request = ledgerRequest(false);
		expect(cacheBreakpointHook({ api: "anthropic-messages" }, request.context, request.stable)).toBeTypeOf(
			"function",
		);
		expect(cacheBreakpointHook({ api: "openai-completions" }, request.context, request.stable)).toBeUndefined();
		expect(cacheBreakpointHook({ api: "openai-responses" }, request.context, request.stable)).toBeUndefined();
	});
});
