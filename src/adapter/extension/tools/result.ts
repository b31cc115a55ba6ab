/** What the investigation tools hand back, and the small argument readers they share. */

import type { ImageContent, TextContent } from "@mariozechner/pi-ai";

export type ToolContent = TextContent | ImageContent;

/** One executed call, as the tool loop sends it back to the advisor. */
export interface AdvisorToolResult {
	content: ToolContent[];
	isError: boolean;
	/** One line for the executor's stream, e.g. `read src/app.ts`. */
	summary: string;
}

/** A tool's own answer, before the shared output cap and image policy are applied. */
export type ToolOutcome = { kind: "ok"; content: ToolContent[] } | { kind: "error"; text: string };

export function ok(text: string): ToolOutcome {
	return { kind: "ok", content: [{ type: "text", text }] };
}

export function fail(text: string): ToolOutcome {
	return { kind: "error", text };
}

/** Validated tool arguments: pi-ai's validator has run, these readers only narrow the types. */
export type ToolArgs = Readonly<Record<string, unknown>>;

export function stringArg(args: ToolArgs, key: string): string | undefined {
	const v = args[key];
	return typeof v === "string" ? v : undefined;
}

export function numberArg(args: ToolArgs, key: string): number | undefined {
	const v = args[key];
	return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function booleanArg(args: ToolArgs, key: string): boolean {
	return args[key] === true;
}
