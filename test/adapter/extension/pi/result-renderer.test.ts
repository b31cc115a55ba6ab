/**
 * The advisor() card: the user sees the verdict and the first lines of the advice without
 * expanding; a failed consultation is a one-line warning.
 */

import { Text } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import {
	adviceBody,
	advisorCardText,
	COLLAPSED_LINES,
	renderAdvisorResult,
} from "../../../../src/adapter/extension/pi/result-renderer.ts";

/** Marks colours so the tests can see which one was used. */
const style = {
	fg: (color: string, text: string) => `<${color}>${text}</${color}>`,
	bold: (text: string) => `**${text}**`,
};
const plain = { fg: (_c: string, t: string) => t, bold: (t: string) => t };

const collapsed = { expanded: false, isPartial: false };
const expanded = { expanded: true, isPartial: false };

const advice = (text: string, details: Record<string, unknown> = {}) => ({
	content: [{ type: "text", text }],
	details: { advisorModel: "anthropic:claude-opus-4-1", effort: "high" as const, ...details },
});

describe("the collapsed card", () => {
	it("shows the verdict, who gave it, and the first lines of the advice", () => {
		const text =
			"Severity: concern\nThe migration drops a column.\nAdd a backfill.\nThen rerun.\nLine 4\nLine 5\nLine 6";
		const out = advisorCardText(advice(text, { severity: "concern" }), collapsed, plain).split("\n");
		expect(out[0]).toBe("Severity: concern · anthropic/claude-opus-4-1, high");
		expect(out.slice(1, 1 + COLLAPSED_LINES)).toEqual([
			"The migration drops a column.",
			"Add a backfill.",
			"Then rerun.",
			"Line 4",
		]);
		expect(out.at(-1)).toBe("… 2 more lines");
	});

	it("colours the verdict by severity", () => {
		expect(advisorCardText(advice("Severity: none\nok"), collapsed, style)).toContain(
			"<success>Severity: none</success>",
		);
		expect(advisorCardText(advice("Severity: blocker\nstop"), collapsed, style)).toContain(
			"**<error>Severity: blocker</error>**",
		);
	});

	it("advice without a verdict line is still shown", () => {
		const out = advisorCardText(advice("Looks fine."), collapsed, plain);
		expect(out).toBe("advice · anthropic/claude-opus-4-1, high\nLooks fine.");
	});

	it("names the model as everywhere else: the registry's name and provider/model", () => {
		const find = (provider: string, id: string) =>
			provider === "anthropic" && id === "claude-opus-4-1" ? { provider, id, name: "Claude Opus 4.1" } : undefined;
		const out = advisorCardText(advice("Severity: nit\nok"), collapsed, plain, find).split("\n");
		expect(out[0]).toBe("Severity: nit · Claude Opus 4.1 (anthropic/claude-opus-4-1), high");
		// A record the registry no longer knows keeps its key, in the same slash form.
		const gone = advice("Severity: nit\nok", { advisorModel: "old:model-9", effort: undefined });
		expect(advisorCardText(gone, collapsed, plain, find).split("\n")[0]).toBe("Severity: nit · old/model-9");
	});

	it("renderAdvisorResult passes the lookup through", () => {
		const find = () => ({ provider: "anthropic", id: "claude-opus-4-1", name: "Opus" });
		const component = renderAdvisorResult(advice("Severity: nit\nok"), collapsed, plain, { findModel: find });
		expect((component as Text).render(200)[0]!.trim()).toBe("Severity: nit · Opus (anthropic/claude-opus-4-1), high");
	});

	it("states what the consultation really cost: every request, and the share of its prompt from the cache", () => {
		const usage = (input: number, cacheRead: number, total: number) => ({
			input,
			output: 100,
			cacheRead,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
		});
		const billed = advice("Severity: nit\nok", {
			usage: usage(3_900, 6_100, 0.05),
			attempts: [1, 2, 3].map(() => ({ usage: usage(1, 1, 0), stopReason: "stop" })),
		});
		expect(advisorCardText(billed, collapsed, plain).split("\n")[0]).toBe(
			"Severity: nit · anthropic/claude-opus-4-1, high · $0.050 · 3 requests · 61% from cache",
		);
		expect(advisorCardText(billed, collapsed, style).split("\n")[0]).toContain(
			"<dim> · $0.050 · 3 requests · 61% from cache</dim>",
		);
		// One request, nothing from the cache; no usage recorded: nothing said.
		const one = advice("Severity: nit\nok", { usage: usage(2_000, 0, 0.003) });
		expect(advisorCardText(one, collapsed, plain).split("\n")[0]).toBe(
			"Severity: nit · anthropic/claude-opus-4-1, high · $0.003 · 1 request · 0% from cache",
		);
		expect(advisorCardText(advice("Severity: nit\nok"), collapsed, plain).split("\n")[0]).toBe(
			"Severity: nit · anthropic/claude-opus-4-1, high",
		);
	});

	it("every request under the model's minimum cacheable prompt: says so instead of a share of 0", () => {
		const usage = (input: number, cacheRead: number, cacheWrite: number) => ({
			input,
			output: 100,
			cacheRead,
			cacheWrite,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.02 },
		});
		const line = (model: string, total: ReturnType<typeof usage>, attempts?: ReturnType<typeof usage>[]) =>
			advisorCardText(
				advice("Severity: nit\nok", {
					advisorModel: model,
					usage: total,
					...(attempts === undefined ? {} : { attempts: attempts.map((u) => ({ usage: u, stopReason: "stop" })) }),
				}),
				collapsed,
				plain,
			).split("\n")[0];
		// Two requests of 3,000 and 3,500 tokens: Opus 4.5 caches from 4,096 up, Opus 4.1 from 1,024.
		const two = [usage(3_000, 0, 0), usage(3_500, 0, 0)];
		expect(line("anthropic:claude-opus-4-5", usage(6_500, 0, 0), two)).toBe(
			"Severity: nit · anthropic/claude-opus-4-5, high · $0.020 · 2 requests · under the 4,096-token cache minimum",
		);
		expect(line("anthropic:claude-opus-4-1", usage(6_500, 0, 0), two)).toBe(
			"Severity: nit · anthropic/claude-opus-4-1, high · $0.020 · 2 requests · 0% from cache",
		);
		// Without attempts the one recorded usage is the request.
		expect(line("anthropic:claude-opus-4-5", usage(3_000, 0, 0))).toBe(
			"Severity: nit · anthropic/claude-opus-4-5, high · $0.020 · 1 request · under the 4,096-token cache minimum",
		);
		// One request over the minimum, or anything read or written: the share.
		expect(line("anthropic:claude-opus-4-5", usage(8_000, 0, 0), [usage(3_000, 0, 0), usage(5_000, 0, 0)])).toMatch(
			/· 0% from cache$/,
		);
		expect(line("anthropic:claude-opus-4-5", usage(1_000, 2_000, 0))).toMatch(/· 67% from cache$/);
	});

	it("expanded, it shows all of it", () => {
		const text = "Severity: nit\n1\n2\n3\n4\n5\n6";
		const out = advisorCardText(advice(text), expanded, plain).split("\n");
		expect(out).toHaveLength(7);
		expect(out.at(-1)).toBe("6");
	});
});

describe("failures and progress", () => {
	it("a failed consultation is one warning line", () => {
		const failed = {
			content: [{ type: "text", text: "Advisor call failed: 529 overloaded" }],
			details: { errorMessage: "529 overloaded", stopReason: "error" as const },
		};
		expect(advisorCardText(failed, collapsed, style)).toBe(
			"<warning>⚠ Advisor call failed: 529 overloaded</warning>",
		);
	});

	it("a skip is one muted line", () => {
		const skipped = {
			content: [
				{ type: "text", text: "Advisor skipped: same model. Continue without advisor; do not repeat this call." },
			],
			details: { skipped: true, errorMessage: "same model" },
		};
		expect(advisorCardText(skipped, collapsed, plain)).toBe(
			"↷ Advisor skipped: same model. Continue without advisor; do not repeat this call.",
		);
	});

	it("while in flight it shows the streamed lines", () => {
		const partial = {
			content: [{ type: "text", text: "Consulting advisor: Claude Opus 4.1 (anthropic/claude-opus-4-1), high…" }],
			details: {},
		};
		expect(advisorCardText(partial, { expanded: false, isPartial: true }, plain)).toBe(
			"Consulting advisor: Claude Opus 4.1 (anthropic/claude-opus-4-1), high…",
		);
	});

	it("a result Pi turned into an error is shown as one", () => {
		const error = { content: [{ type: "text", text: "Tool advisor not found" }], details: {} };
		expect(advisorCardText(error, { ...collapsed, isError: true }, plain)).toBe("⚠ Tool advisor not found");
	});
});

describe("the component", () => {
	it("is a Text, reused across renders", () => {
		const first = renderAdvisorResult(advice("Severity: none\nok"), collapsed, plain);
		expect(first).toBeInstanceOf(Text);
		const second = renderAdvisorResult(advice("Severity: nit\nhm"), collapsed, plain, { lastComponent: first });
		expect(second).toBe(first);
		expect(second.render(80).join("\n")).toContain("Severity: nit");
	});

	it("adviceBody drops only a verdict first line", () => {
		expect(adviceBody("\n\nSeverity: none\n\nGo.\n")).toEqual(["Go."]);
		expect(adviceBody("Go.\nSeverity: none")).toEqual(["Go.", "Severity: none"]);
	});
});
