/**
 * The user's standing instructions to the executor (docs/request-format.md#standing-instructions):
 * the project's context files (AGENTS.md and the like), an appended system prompt and a system
 * prompt of the user's own — the parts of the executor's system prompt the user wrote. Pi's own
 * parts (its preamble, tool list, rules, docs) are left out: the advisor has its own.
 *
 * Pi 1.x records the system prompt in the session as sections that later system messages patch;
 * Pi 0.73 keeps it out of the session, and the extension reads it from the host instead
 * (adapter/consult), in the 0.73 text form parsed by `instructionsFromPromptText`.
 */

import type { SystemPrompt } from "../events/index.ts";

/** One instruction source: where it comes from, and its text. */
export interface Instruction {
	/** A context file's path, or `appended system prompt` / `system prompt`. */
	source: string;
	text: string;
}

/** Pi's own preamble starts so; any other preamble is the user's SYSTEM.md. */
const PI_PREAMBLE =
	/^You are (?:a coding assistant running inside pi|an expert coding assistant operating inside pi)\b/;

const PROJECT_FILE = /<project_instructions path="([^"]*)">\n([\s\S]*?)\n<\/project_instructions>/g;

/** A section's body without the `<name>…</name>` wrapper Pi puts around every section but the preamble. */
function unwrap(name: string, value: string): string {
	const open = `<${name}>\n`;
	const close = `\n</${name}>`;
	return value.startsWith(open) && value.endsWith(close) ? value.slice(open.length, -close.length) : value;
}

/** Sections merged in order: each patch replaces or (null) removes a section. */
export function mergeSections(
	base: Readonly<Record<string, string>>,
	patch: Readonly<Record<string, string | null>>,
): Record<string, string> {
	const merged: Record<string, string> = { ...base };
	for (const [name, value] of Object.entries(patch)) {
		if (value === null) delete merged[name];
		else merged[name] = value;
	}
	return merged;
}

/** The standing instructions a system prompt holds, in prompt order. */
export function standingInstructions(prompt: {
	content: string;
	sections: Readonly<Record<string, string>>;
}): Instruction[] {
	const out: Instruction[] = [];
	const { sections } = prompt;
	if (prompt.content.trim().length > 0) out.push({ source: "system prompt", text: prompt.content });
	const preamble = sections.preamble;
	if (preamble !== undefined && preamble.trim().length > 0 && !PI_PREAMBLE.test(preamble.trim()))
		out.push({ source: "system prompt", text: preamble });
	const addendum = sections.addendum;
	if (addendum !== undefined && unwrap("addendum", addendum).trim().length > 0)
		out.push({ source: "appended system prompt", text: unwrap("addendum", addendum) });
	const context = sections.project_context;
	if (context !== undefined) {
		for (const match of unwrap("project_context", context).matchAll(PROJECT_FILE)) {
			if (match[2]!.trim().length > 0) out.push({ source: match[1]!, text: match[2]! });
		}
	}
	return out;
}

/** A system event's own instructions (what advisor_expand returns for its id). */
export function eventInstructions(prompt: SystemPrompt): Instruction[] {
	return standingInstructions({ content: prompt.content, sections: mergeSections({}, prompt.sections) });
}

/**
 * Pi 0.73's system prompt text: its `# Project Context` part lists each context file as
 * `## <absolute path>` and the file's content. Everything else is Pi's own text or the date.
 */
export function instructionsFromPromptText(prompt: string): Instruction[] {
	const start = prompt.indexOf("\n# Project Context\n");
	if (start === -1) return [];
	let body = prompt.slice(start + "\n# Project Context\n".length);
	body = body.replace(/^\s*Project-specific instructions and guidelines:\s*\n/, "");
	// The part ends where Pi appends skills or the date and working directory.
	const end = body.search(/\n(?:<available_skills>|The following skills|Current date: )/);
	if (end !== -1) body = body.slice(0, end);
	const out: Instruction[] = [];
	// A file's heading is its absolute path; a `## ` heading inside a file is part of its text.
	const heading = /^## ((?:\/|[A-Za-z]:[\\/]|~\/).*)$/gm;
	const marks = [...body.matchAll(heading)];
	marks.forEach((mark, i) => {
		const from = mark.index! + mark[0].length;
		const to = i + 1 < marks.length ? marks[i + 1]!.index! : body.length;
		const text = body.slice(from, to).trim();
		if (text.length > 0) out.push({ source: mark[1]!.trim(), text });
	});
	return out;
}
