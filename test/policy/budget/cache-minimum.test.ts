/** The minimum cacheable prompt per model: the table, the ids it reads, and the docs' copy of it. */

import { readFileSync } from "node:fs";
import { getModels, getProviders, type KnownProvider } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	CACHE_MINIMUMS,
	cacheMinimumRow,
	DEFAULT_MIN_CACHED_TOKENS,
	minCachedTokens,
} from "../../../src/policy/budget/cache-minimum.ts";

describe("the minimum of a model id", () => {
	it.each([
		// Anthropic's own ids, dated and undated; OpenRouter's with dots; Bedrock's with a region.
		["claude-opus-4-5", 4096],
		["claude-opus-4-5-20251101", 4096],
		["anthropic/claude-opus-4.6", 4096],
		["anthropic/claude-opus-4.6-fast", 4096],
		["us.anthropic.claude-opus-4-7", 4096],
		["claude-haiku-4-5-20251001", 4096],
		["anthropic/claude-haiku-4.5", 4096],
		["claude-3-5-haiku-latest", 2048],
		["anthropic/claude-3.5-haiku", 2048],
		["claude-3-haiku-20240307", 2048],
		["claude-sonnet-4-5", 1024],
		["claude-sonnet-4-6", 1024],
		["claude-sonnet-4-20250514", 1024],
		// The date is not a minor version: Opus 4, not 4.2.
		["claude-opus-4-20250514", 1024],
		["claude-opus-4-1-20250805", 1024],
		["anthropic.claude-3-7-sonnet-20250219-v1:0", 1024],
		["claude-3-opus-20240229", 1024],
		["claude-3.5-sonnet", 1024],
		["claude-sonnet-4-0", 1024],
		["claude-opus-4-0", 1024],
		["gemini-3-pro-preview", 4096],
		["gemini-3.1-pro-preview", 4096],
		["google/gemini-3-flash", 4096],
		["gemini-2.5-flash", 2048],
		["google/gemini-2.5-pro", 2048],
		["gemini-flash-latest", 4096],
		["gemini-2.0-flash", 4096],
		["gpt-5", 1024],
		["openai/o4-mini", 1024],
		["gpt-4o-mini", 1024],
	])("%s → %i", (id, minTokens) => {
		expect(minCachedTokens({ id })).toBe(minTokens);
		expect(cacheMinimumRow(id)).toBeDefined();
	});

	it("a model no row names, or no id at all, gets the default: 1,024", () => {
		expect(DEFAULT_MIN_CACHED_TOKENS).toBe(1024);
		for (const id of ["mistral-large-latest", "advisor-1", "deepseek-chat", "faux-advisor"]) {
			expect(cacheMinimumRow(id), id).toBeUndefined();
			expect(minCachedTokens({ id }), id).toBe(DEFAULT_MIN_CACHED_TOKENS);
		}
		expect(minCachedTokens({})).toBe(DEFAULT_MIN_CACHED_TOKENS);
	});

	it("a Claude or Gemini model the table does not name, or an alias, gets its provider's largest minimum", () => {
		for (const [id, row] of [
			["claude-opus-4-8", "other Claude models and aliases"],
			["claude-sonnet-5", "other Claude models and aliases"],
			["~anthropic/claude-sonnet-latest", "other Claude models and aliases"],
			["gemini-flash-latest", "other Gemini models and aliases"],
		] as const) {
			expect(cacheMinimumRow(id)?.models, id).toBe(row);
			expect(minCachedTokens({ id }), id).toBe(4096);
		}
	});

	it("every Claude and Gemini model pi-ai lists with a cache price is named by a row of its own (aliases and Gemini before 2.5 aside)", () => {
		const unnamed: string[] = [];
		const aside = /latest|gemini-(?:1\.\d|2\.0)/;
		for (const provider of getProviders()) {
			for (const model of getModels(provider as KnownProvider)) {
				if (!(model.cost.cacheRead > 0) || !/claude|gemini/i.test(model.id) || aside.test(model.id)) continue;
				if (cacheMinimumRow(model.id)?.models.startsWith("other") !== false)
					unnamed.push(`${provider}/${model.id}`);
			}
		}
		expect(unnamed).toEqual([]);
	});
});

describe("docs/configuration.md", () => {
	const doc = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");

	/** The rows of the table under "### Minimum cacheable lengths", each as its cells. */
	function table(): string[][] {
		const section = doc.split("### Minimum cacheable lengths\n")[1]!.split("\n### ")[0]!;
		return section
			.split("\n")
			.filter((line) => line.startsWith("|"))
			.slice(2)
			.map((line) =>
				line
					.split("|")
					.slice(1, -1)
					.map((cell) => cell.trim()),
			);
	}

	it("lists the code's table, row for row, with its sources", () => {
		expect(table()).toEqual(
			CACHE_MINIMUMS.map((row) => [row.models, row.minTokens.toLocaleString("en-US"), row.source]),
		);
	});

	it("states the default and where the table lives", () => {
		const text = doc.replace(/\s+/g, " ");
		expect(text).toContain(`any other model: ${DEFAULT_MIN_CACHED_TOKENS.toLocaleString("en-US")}`);
		expect(text).toContain("`policy/budget/cache-minimum.ts` `CACHE_MINIMUMS`");
	});
});
