/**
 * docs/request-format.md: every failure path is a normal tool result with the exact text, and the details the
 * ledger reads to leave it out of later requests.
 */

import { describe, expect, it } from "vitest";
import {
	adviceEnvelope,
	type Failure,
	failureEnvelope,
	identityBase,
} from "../../../../src/adapter/extension/consult/envelope.ts";
import { completedAdvice } from "../../../../src/reducers/index.ts";

const base = identityBase({ provider: "anthropic", id: "claude-opus-4-1", name: "Claude Opus 4.1" }, "high");

const ROWS: [Failure, string, string][] = [
	[
		{ kind: "no-model" },
		"No advisor model is configured. The user can enable one with the /advisor command.",
		"no advisor model selected",
	],
	[
		{ kind: "misconfigured", label: "Claude Opus 4.1", error: "bad header value" },
		"Advisor (Claude Opus 4.1) is misconfigured: bad header value",
		"bad header value",
	],
	[
		{ kind: "no-key", label: "Claude Opus 4.1", provider: "anthropic" },
		"Advisor (Claude Opus 4.1) has no API key available.",
		"no API key for anthropic",
	],
	[
		{ kind: "cancelled", message: "Request was aborted" },
		"Advisor call was cancelled before it completed.",
		"Request was aborted",
	],
	[{ kind: "cancelled", message: undefined }, "Advisor call was cancelled before it completed.", "aborted"],
	[{ kind: "failed", message: "529 overloaded" }, "Advisor call failed: 529 overloaded", "529 overloaded"],
	[{ kind: "empty" }, "Advisor returned no text content.", "empty response"],
	[{ kind: "threw", message: "boom" }, "Advisor call threw: boom", "boom"],
];

describe("failure rows", () => {
	for (const [failure, text, errorMessage] of ROWS) {
		it(`${failure.kind}: ${text}`, () => {
			const out = failureEnvelope(failure, base);
			expect(out.content).toEqual([{ type: "text", text }]);
			expect(out.details.errorMessage).toBe(errorMessage);
			expect(out.details.skipped).toBeUndefined();
		});
	}

	it("timeout: `Advisor timed out after <n>s`, continue without retrying", () => {
		const out = failureEnvelope({ kind: "timeout", seconds: 420 }, base);
		expect(out.content[0]!.text.startsWith("Advisor timed out after 420s")).toBe(true);
		expect(out.content[0]!.text).toMatch(/do not retry/);
		expect(out.details.errorMessage).toBe("timeout");
	});

	it("skip: `Advisor skipped: <reason>` with skipped: true, continue and do not repeat", () => {
		const out = failureEnvelope({ kind: "skipped", reason: "over the session budget" }, base);
		expect(out.content[0]!.text.startsWith("Advisor skipped: over the session budget")).toBe(true);
		expect(out.content[0]!.text).toMatch(/do not repeat/);
		expect(out.details).toEqual({
			advisorModel: "anthropic:claude-opus-4-1",
			effort: "high",
			skipped: true,
			errorMessage: "over the session budget",
		});
	});

	it("no failure ever counts as completed advice in the ledger", () => {
		for (const [failure] of ROWS) {
			const out = failureEnvelope(failure, { ...base, stopReason: "stop" });
			const event = {
				id: "r",
				parentId: null,
				kind: "toolResult" as const,
				callId: "c",
				toolName: "advisor",
				parts: out.content,
				isError: false,
				details: out.details,
			};
			expect(completedAdvice(event)).toBeUndefined();
		}
	});
});

describe("advice", () => {
	it("carries the colon-form model, the effort, usage top level and in details, and the parsed severity", () => {
		const usage = {
			input: 10,
			output: 2,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 12,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		const out = adviceEnvelope("**Severity: blocker**\nStop.", { ...base, usage, stopReason: "stop" });
		expect(out.usage).toBe(usage);
		expect(out.details).toEqual({
			advisorModel: "anthropic:claude-opus-4-1",
			effort: "high",
			usage,
			stopReason: "stop",
			severity: "blocker",
		});
	});

	it("leaves out what did not happen", () => {
		const out = adviceEnvelope("no verdict here", identityBase({ provider: "p", id: "m" }, undefined));
		expect(out).toEqual({ content: [{ type: "text", text: "no verdict here" }], details: { advisorModel: "p:m" } });
	});
});
