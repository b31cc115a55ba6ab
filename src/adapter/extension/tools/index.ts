/**
 * The advisor's read-only investigation tools (docs/architecture.md): declarations for the request head
 * and one `execute` for the tool loop. Nothing here mutates anything, and nothing throws:
 * every failure — bad arguments, refused path, missing binary, timeout — comes back as a
 * tool result with `isError: true` for the advisor to read.
 *
 * Which layer enforces what:
 * - path policy (workspace.ts): every path argument, and again every path Pi's tools touch
 *   through their `operations` hooks (read, ls; find's exists/glob);
 * - verified descriptors (verified-open.ts): content and folder listings are read only from
 *   a descriptor checked after opening, so a swapped symlink cannot redirect them;
 * - listing filters, on structured output only: ls's readdir hook, find's glob hook (fd's
 *   NUL-separated list), grep's reading of `rg --json` events (grep runs rg itself), git
 *   pathspecs plus our matcher on untracked names;
 * - git runs no program the repository names (git-isolation.ts);
 * - terminal text: control characters in the progress line and in listed names are escaped
 *   (../pi/control-chars.ts);
 * - redaction (docs/privacy.md): the final text of every result, before the cap, with the same
 *   settings the session's events are redacted with (advisor_expand's source is already redacted);
 * - caps: Pi's own truncation first (2000 lines / 50KB, 100 grep matches, 1000 find results,
 *   500 ls entries), then `maxResultChars` on the final text here; images only for a model
 *   whose input includes them;
 * - time: one deadline per call, delivered as an abort signal to Pi's tools and our processes.
 */

import { type Tool, validateToolArguments } from "@mariozechner/pi-ai";
import {
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
} from "@mariozechner/pi-coding-agent";
import { assertNever, DEFAULT_PRIVACY, isRecord, type PrivacySettings, redactText } from "../../../events/index.ts";
import {
	type AdvisorToolsMode,
	EXPAND_TOOL_NAME,
	GIT_DIFF_TOOL_NAME,
	TOOL_TEXT,
	WORKSPACE_TOOL_DESCRIPTIONS,
} from "../../../render/index.ts";
import { errorText } from "../pi/error-text.ts";
import { EXPAND_DECLARATION, type ExpandSource, runExpand } from "./advisor-expand.ts";
import { clipHeadTail } from "./clip.ts";
import { runFind } from "./find.ts";
import { GIT_DIFF_DECLARATION, runGitDiff } from "./git-diff.ts";
import { runGrep } from "./grep.ts";
import { runLs } from "./ls.ts";
import { runRead } from "./read.ts";
import type { AdvisorToolResult, ToolArgs, ToolContent, ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { summarizeCall } from "./summary.ts";
import { DEFAULT_TOOLS_CONFIG, type ToolsConfig } from "./tools-section.ts";
import { createWorkspace } from "./workspace.ts";

export type { ExpandLookup, ExpandSource } from "./advisor-expand.ts";
export { DEFAULT_DENY_PATTERNS } from "./git-exclude.ts";
export type { AdvisorToolResult, ToolContent } from "./result.ts";
export { DEFAULT_TOOLS_CONFIG, type ToolsConfig, ToolsSchema } from "./tools-section.ts";

/** A whole call must finish within this, whatever the tool. */
export const DEFAULT_TOOL_TIMEOUT_MS = 20_000;
/** Below this a result cannot even say why it was clipped. */
const MIN_RESULT_CHARS = 200;

export type AdvisorToolName = "advisor_expand" | "read" | "grep" | "find" | "ls" | "git_diff";

export interface AdvisorToolCall {
	id: string;
	name: string;
	arguments: Record<string, unknown>;
}

export interface CreateAdvisorToolsOptions {
	/** The session cwd: the fence for every path. */
	cwd: string;
	config: ToolsConfig;
	/** The advisor model's `input` includes "image". */
	modelAcceptsImages: boolean;
	expand: ExpandSource;
	/** The consultation's abort signal: cancels every call in flight. */
	signal?: AbortSignal;
	/** Per-call deadline; DEFAULT_TOOL_TIMEOUT_MS when absent. */
	timeoutMs?: number;
	/** advisor.json `privacy`: how results are redacted; the built-in settings when absent. */
	privacy?: PrivacySettings;
}

export interface AdvisorTools {
	/** Byte-identical for the same config: they sit in the cached head of every request. */
	readonly declarations: Tool[];
	execute(call: AdvisorToolCall, signal?: AbortSignal): Promise<AdvisorToolResult>;
}

/** Which tool set a config yields; it also picks the matching system-prompt paragraph. */
export function advisorToolsMode(config: Pick<ToolsConfig, "enabled" | "repo" | "maxRounds">): AdvisorToolsMode {
	if (!config.enabled || !(config.maxRounds > 0)) return "none";
	return config.repo ? "repo" : "expand";
}

export function createAdvisorTools(options: CreateAdvisorToolsOptions): AdvisorTools {
	const mode = advisorToolsMode(options.config);
	const declarations = declarationsFor(mode, options.cwd);
	const byName = new Map(declarations.map((d) => [d.name, d]));
	const workspace = createWorkspace(options.cwd, options.config.denyPatterns);
	const maxResultChars = Number.isFinite(options.config.maxResultChars)
		? Math.max(MIN_RESULT_CHARS, Math.floor(options.config.maxResultChars))
		: DEFAULT_TOOLS_CONFIG.maxResultChars;
	const timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
	const privacy = options.privacy ?? DEFAULT_PRIVACY;

	const execute = async (call: AdvisorToolCall, signal?: AbortSignal): Promise<AdvisorToolResult> => {
		const rawArgs: ToolArgs = isRecord(call.arguments) ? call.arguments : {};
		const summary = summarizeCall(call.name, rawArgs);
		const finish = (outcome: ToolOutcome): AdvisorToolResult => ({
			...shape(outcome, maxResultChars, options.modelAcceptsImages, privacy),
			summary,
		});

		const declaration = byName.get(call.name);
		if (declaration === undefined || !isToolName(call.name)) return finish(failure(TOOL_TEXT.unknownTool(call.name)));
		let args: ToolArgs;
		try {
			// The loop may or may not have validated; pi-ai's validator is idempotent and coerces as Pi does.
			const validated: unknown = validateToolArguments(declaration, {
				type: "toolCall",
				id: call.id,
				name: call.name,
				arguments: rawArgs,
			});
			args = isRecord(validated) ? validated : {};
		} catch (e) {
			return finish(failure(errorText(e)));
		}

		const deadline = AbortSignal.timeout(timeoutMs);
		const combined = AbortSignal.any([deadline, ...[signal, options.signal].filter(isSignal)]);
		const interruption = () =>
			failure(deadline.aborted ? TOOL_TEXT.timedOut(call.name, timeoutMs / 1000) : TOOL_TEXT.cancelled(call.name));
		if (combined.aborted) return finish(interruption());
		const ctx: RunContext = {
			workspace,
			callId: call.id,
			signal: combined,
			timeoutMs,
			modelAcceptsImages: options.modelAcceptsImages,
		};
		const run = dispatch(call.name, args, ctx, options.expand, maxResultChars).catch((e: unknown) =>
			combined.aborted ? interruption() : failure(errorText(e)),
		);
		// Race the abort too: a tool that ignores its signal must not hold the loop hostage.
		const stop = untilAborted(combined);
		try {
			const outcome = await Promise.race([run, stop.promise.then(interruption)]);
			return finish(outcome);
		} finally {
			stop.dispose();
		}
	};

	return { declarations, execute };
}

function dispatch(
	name: AdvisorToolName,
	args: ToolArgs,
	ctx: RunContext,
	expand: ExpandSource,
	maxResultChars: number,
): Promise<ToolOutcome> {
	switch (name) {
		case "advisor_expand":
			return Promise.resolve().then(() => runExpand(args, expand, maxResultChars));
		case "read":
			return runRead(args, ctx);
		case "grep":
			return runGrep(args, ctx);
		case "find":
			return runFind(args, ctx);
		case "ls":
			return runLs(args, ctx);
		case "git_diff":
			return runGitDiff(args, ctx);
		default:
			return assertNever(name, "advisor tool name");
	}
}

/**
 * Fixed order, fixed text: Pi's own read/grep/find/ls schemas (their familiar parameter names and
 * types, so Pi's tools run the arguments as they are) between ours. Each carries one sentence and
 * no parameter prose: the rules are said once, in the system prompt. Nothing depends on the cwd,
 * so equal configs give equal bytes.
 */
function declarationsFor(mode: AdvisorToolsMode, cwd: string): Tool[] {
	switch (mode) {
		case "none":
			return [];
		case "expand":
			return [EXPAND_DECLARATION];
		case "repo":
			return [
				EXPAND_DECLARATION,
				...[
					createReadToolDefinition(cwd),
					createGrepToolDefinition(cwd),
					createFindToolDefinition(cwd),
					createLsToolDefinition(cwd),
				].map(
					(d): Tool =>
						Object.freeze({
							name: d.name,
							description: WORKSPACE_TOOL_DESCRIPTIONS[d.name as keyof typeof WORKSPACE_TOOL_DESCRIPTIONS],
							parameters: withoutDescriptions(d.parameters),
						}),
				),
				GIT_DIFF_DECLARATION,
			];
		default:
			return assertNever(mode, "tools mode");
	}
}

/**
 * A schema without its `description` keywords, at every depth. Everything else is kept, the
 * TypeBox symbols included, so validation and coercion behave exactly as with Pi's schema.
 */
export function withoutDescriptions<T>(schema: T, names = false): T {
	if (Array.isArray(schema)) return schema.map((item: unknown) => withoutDescriptions(item)) as T;
	if (typeof schema !== "object" || schema === null) return schema;
	const out: Record<string | symbol, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		// Under `properties` the keys are parameter names: a parameter may be called "description".
		if (names) out[key] = withoutDescriptions(value);
		else if (key !== "description") out[key] = withoutDescriptions(value, key === "properties");
	}
	for (const symbol of Object.getOwnPropertySymbols(schema)) {
		out[symbol] = (schema as Record<symbol, unknown>)[symbol];
	}
	return out as T;
}

/** Redaction, then the cap (a cut never leaves half a credential unrecognised), image policy and the one-text-part shape every result leaves with. */
function shape(
	outcome: ToolOutcome,
	maxResultChars: number,
	modelAcceptsImages: boolean,
	privacy: PrivacySettings,
): Pick<AdvisorToolResult, "content" | "isError"> {
	switch (outcome.kind) {
		case "error":
			return {
				content: [{ type: "text", text: clipHeadTail(redactText(outcome.text, privacy), maxResultChars) }],
				isError: true,
			};
		case "ok": {
			const texts: string[] = [];
			const images: ToolContent[] = [];
			for (const part of outcome.content) {
				if (part.type === "text") texts.push(part.text);
				else if (modelAcceptsImages) images.push(part);
				else texts.push(TOOL_TEXT.imageWithheld(part.mimeType));
			}
			const text = clipHeadTail(redactText(texts.join("\n"), privacy), maxResultChars);
			return { content: [{ type: "text", text }, ...images], isError: false };
		}
		default:
			return assertNever(outcome, "tool outcome");
	}
}

function failure(text: string): ToolOutcome {
	return { kind: "error", text };
}

function untilAborted(signal: AbortSignal): { promise: Promise<void>; dispose: () => void } {
	let onAbort = () => {};
	const promise = new Promise<void>((resolve) => {
		onAbort = () => resolve();
		signal.addEventListener("abort", onAbort, { once: true });
	});
	return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

function isToolName(name: string): name is AdvisorToolName {
	return (
		name === EXPAND_TOOL_NAME ||
		name === "read" ||
		name === "grep" ||
		name === "find" ||
		name === "ls" ||
		name === GIT_DIFF_TOOL_NAME
	);
}

function isSignal(s: AbortSignal | undefined): s is AbortSignal {
	return s !== undefined;
}
