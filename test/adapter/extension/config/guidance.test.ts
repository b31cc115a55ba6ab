// The guidance section: a string or a list as written, the built-in wording by review.enabled and watch.enabled.
import { describe, expect, it } from "vitest";
import { resolveGuidance } from "../../../../src/adapter/extension/config/guidance.ts";
import { parseConfig } from "../../../../src/adapter/extension/config/load.ts";
import {
	DEFAULT_PROMPT_GUIDELINES,
	DEFAULT_PROMPT_SNIPPET,
	REVIEW_PROMPT_GUIDELINES,
	WATCH_PROMPT_GUIDELINE,
} from "../../../../src/render/index.ts";
import { DEFAULTS } from "./support.ts";

describe("guidance", () => {
	it("built-in wording when absent; review wording when reviews are on", () => {
		expect(resolveGuidance(DEFAULTS)).toEqual({
			promptSnippet: DEFAULT_PROMPT_SNIPPET,
			promptGuidelines: DEFAULT_PROMPT_GUIDELINES,
		});
		expect(resolveGuidance({ ...DEFAULTS, review: { enabled: true, minToolCalls: 1 } }).promptGuidelines).toBe(
			REVIEW_PROMPT_GUIDELINES,
		);
	});

	it("a string or a list for either key", () => {
		expect(parseConfig({ guidance: { promptSnippet: "s", promptGuidelines: "g" } }).config.guidance).toEqual({
			promptSnippet: "s",
			promptGuidelines: ["g"],
		});
		expect(
			parseConfig({ guidance: { promptSnippet: ["a", "b"], promptGuidelines: ["g", "h"] } }).config.guidance,
		).toEqual({ promptSnippet: "a b", promptGuidelines: ["g", "h"] });
	});

	it("configured guidelines win over the review wording", () => {
		const { config } = parseConfig({ guidance: { promptGuidelines: ["mine"] }, review: { enabled: true } });
		expect(resolveGuidance(config).promptGuidelines).toEqual(["mine"]);
	});

	it("with the watch on, the built-in guidelines end with the watch's; the snippet and configured guidelines stay", () => {
		const watching = { ...DEFAULTS, watch: { ...DEFAULTS.watch, enabled: true } };
		expect(resolveGuidance(watching)).toEqual({
			promptSnippet: DEFAULT_PROMPT_SNIPPET,
			promptGuidelines: [...DEFAULT_PROMPT_GUIDELINES, WATCH_PROMPT_GUIDELINE],
		});
		const both = resolveGuidance({ ...watching, review: { enabled: true, minToolCalls: 1 } }).promptGuidelines;
		expect(both).toEqual([...REVIEW_PROMPT_GUIDELINES, WATCH_PROMPT_GUIDELINE]);
		const { config } = parseConfig({ guidance: { promptGuidelines: ["mine"] }, watch: { enabled: true } });
		expect(resolveGuidance(config).promptGuidelines).toEqual(["mine"]);
		expect(resolveGuidance(DEFAULTS).promptGuidelines).not.toContain(WATCH_PROMPT_GUIDELINE);
	});

	it("a bad value falls back per key", () => {
		const result = parseConfig({ guidance: { promptSnippet: 5, promptGuidelines: ["ok"] } });
		expect(result.invalidKeys).toEqual(["guidance.promptSnippet"]);
		expect(result.config.guidance).toEqual({ promptGuidelines: ["ok"] });
	});
});
