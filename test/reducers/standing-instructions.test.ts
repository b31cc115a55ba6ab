import { describe, expect, it } from "vitest";
import {
	instructionsFromPromptText,
	mergeSections,
	standingInstructions,
} from "../../src/reducers/standing-instructions.ts";

describe("the user's standing instructions in a Pi 1.x system prompt", () => {
	const sections = {
		preamble: "You are a coding assistant running inside pi, a coding agent harness. Help users…",
		tools: "<tools>\n- read: Read file contents\n</tools>",
		addendum: "<addendum>\nAlways answer in French.\n</addendum>",
		project_context:
			'<project_context>\nProject-specific instructions and guidelines:\n\n<project_instructions path="/w/AGENTS.md">\n# Rules\n- Run `npm test`.\n</project_instructions>\n\n<project_instructions path="/w/pkg/AGENTS.md">\nPackage rules.\n</project_instructions>\n</project_context>',
		cwd: "<cwd>\n/w\n</cwd>",
	};

	it("keeps the context files, the appended prompt and a prompt of the user's own; leaves Pi's parts out", () => {
		expect(standingInstructions({ content: "", sections })).toEqual([
			{ source: "appended system prompt", text: "Always answer in French." },
			{ source: "/w/AGENTS.md", text: "# Rules\n- Run `npm test`." },
			{ source: "/w/pkg/AGENTS.md", text: "Package rules." },
		]);
		const own = standingInstructions({ content: "", sections: { ...sections, preamble: "You are my reviewer." } });
		expect(own[0]).toEqual({ source: "system prompt", text: "You are my reviewer." });
		expect(standingInstructions({ content: "A forced prompt.", sections: {} })).toEqual([
			{ source: "system prompt", text: "A forced prompt." },
		]);
	});

	it("a later system message patches the sections; null removes one", () => {
		const merged = mergeSections(sections, { addendum: null, cwd: "<cwd>\n/x\n</cwd>" });
		expect(merged.addendum).toBeUndefined();
		expect(merged.cwd).toBe("<cwd>\n/x\n</cwd>");
		expect(merged.project_context).toBe(sections.project_context);
	});
});

describe("the context files in a Pi 0.73 system prompt text", () => {
	const prompt = [
		"You are an expert coding assistant operating inside pi…",
		"",
		"# Project Context",
		"",
		"Project-specific instructions and guidelines:",
		"",
		"## /w/AGENTS.md",
		"",
		"# Rules",
		"## A heading inside the file",
		"- Run `npm test`.",
		"",
		"## /w/pkg/AGENTS.md",
		"",
		"Package rules.",
		"",
		"",
		"Current date: 2026-12-03",
		"Current working directory: /w",
	].join("\n");

	it("each file by its absolute path, a `##` heading inside a file kept in its text, the date left out", () => {
		expect(instructionsFromPromptText(prompt)).toEqual([
			{ source: "/w/AGENTS.md", text: "# Rules\n## A heading inside the file\n- Run `npm test`." },
			{ source: "/w/pkg/AGENTS.md", text: "Package rules." },
		]);
		expect(instructionsFromPromptText("You are an expert coding assistant.\nCurrent date: 2026-12-03")).toEqual([]);
	});
});
