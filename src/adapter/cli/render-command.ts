/**
 * `advisor-ledger render FILE [--leaf ID] [--at ENTRY_ID] [--json] [--config FILE]`: the exact
 * request a consultation dispatched right after one entry would send, built the way the replay
 * builds it, with the user's advisor.json (cli/cli-config.ts): what would really be sent, credential
 * marks included.
 */

import type { Context } from "@mariozechner/pi-ai";
import {
	ADVISOR_TOOL_NAME,
	type Diagnostic,
	type EntryRecord,
	type LedgerEvent,
	migrateEntries,
	normalizeBranch,
	type ParsedSession,
	parseSessionText,
	selectBranch,
} from "../../events/index.ts";
import { extensionMarks, LOOKBACK_BLOCKS, unitPosition } from "../../policy/index.ts";
import { type LedgerState, ledgerOf } from "../../reducers/index.ts";
import {
	APPENDIX_HEADER,
	buildContext,
	createRenderMemo,
	type LedgerRequest,
	ordinalId,
	ordinalPosition,
	type RenderOptions,
	redactionCount,
	renderRequest,
	type StablePortion,
} from "../../render/index.ts";
import { type AdvisorConfig, DEFAULT_ADVISOR_CONFIG } from "../config/load.ts";
import { EXIT, errorPrefix, type RenderArgs } from "./args.ts";
import { cliConfig, privacyOf } from "./cli-config.ts";
import { diagnosticsNote, noEntriesReason } from "./diagnostics.ts";
import { visible, visibleLine } from "./escape.ts";
import { displayPath, readParsedInput } from "./inputs.ts";
import type { Io } from "./io.ts";
import { writeJson } from "./json-stream.ts";
import { calledToolNames, sessionTools } from "./replay/tool-set.ts";
import { formatTokens, type Style } from "./report/text-report.ts";

export interface RenderSummary {
	file: string;
	sessionId: string | null;
	leafId: string | null;
	atEntryId: string;
	/** How the request names that entry: `#` and its position on the branch in base 36 (docs/request-format.md, "Ids"). */
	atOrdinal: string;
	/** The advisor call the request answers, when --at is (or follows) an advisor call without a result. */
	inFlightCallId: string | null;
	tokens: number;
	hash: string;
	messageCount: number;
	/** Credential marks in the request (docs/privacy.md): what `details.redactions` would record. */
	redactions: number;
}

/** A content part, as `messageIndex` and how many of its message's parts end with it (StablePortion's shape). */
export interface PartPosition {
	messageIndex: number;
	partCount: number;
}

/**
 * The extension's own cache marks on the request, where pi-ai sends Anthropic-style marks
 * (docs/request-format.md §7): the stable end, and the bridge to the stable end of the previous
 * consultation on the branch (rendered as this version renders it) when that lies more than the
 * lookback before it.
 */
export interface RenderMarks {
	stable: PartPosition;
	bridge: (PartPosition & { previousAtEntryId: string }) | null;
}

export interface RenderJson {
	/** Exactly the pi-ai Context handed to completeSimple. */
	request: Context;
	/** `appendixPart`: index in the stable message of the appendix part, null when the request has none. */
	stable: StablePortion & { volatileParts: number; appendixPart: number | null };
	marks: RenderMarks;
	summary: RenderSummary;
}

export interface Rendered {
	request: LedgerRequest;
	/** The folded ledger the request was rendered from (advisor_expand's source). */
	state: LedgerState;
	/** Computed on first read (it renders the previous consultation too). */
	readonly marks: RenderMarks;
	summary: RenderSummary;
	/** What the reader and the branch walk could not use; printed on stderr, never in the JSON. */
	diagnostics: Diagnostic[];
	/** The reader's counts, for that note. */
	parsed: Pick<ParsedSession, "stats">;
}

export class RenderInputError extends Error {
	constructor(
		message: string,
		readonly exitCode: number,
	) {
		super(message);
	}
}

/**
 * The branch and the entry `--at` names: an entry id of the file, else `#N` (or N) as the request
 * names entries — the position on the branch to `--leaf` (default the session's leaf), in base 36.
 */
function resolveAt(
	file: string,
	entries: readonly EntryRecord[],
	leaf: string | undefined,
	at: string | undefined,
): { branch: ReturnType<typeof selectBranch<EntryRecord>>; index: number } {
	const ids = new Set(entries.map((e) => e.id));
	if (leaf !== undefined && !ids.has(leaf))
		throw new RenderInputError(`${file}: --leaf ${leaf}: no such entry`, EXIT.usage);
	if (at === undefined || ids.has(at)) {
		const branch = selectBranch(entries, leaf ?? at);
		const atId = at ?? branch.leafId;
		const index = branch.path.findIndex((e) => e.id === atId);
		if (atId === undefined || index === -1) {
			throw new RenderInputError(`${file}: --at ${at} is not on the branch to leaf ${branch.leafId}`, EXIT.usage);
		}
		return { branch, index };
	}
	const position = ordinalPosition(at.startsWith("#") ? at.slice(1) : at);
	if (position === undefined) {
		throw new RenderInputError(`${file}: --at ${at}: no such entry (${ENTRY_NAMES})`, EXIT.usage);
	}
	const branch = selectBranch(entries, leaf);
	if (position > branch.path.length) {
		const last = branch.path.length === 0 ? "" : `: #1 … #${ordinalId(branch.path.length)}`;
		throw new RenderInputError(
			`${file}: --at ${at}: no entry with that id, and no #${ordinalId(position)} on the branch (it has ${branch.path.length}${last})`,
			EXIT.usage,
		);
	}
	return { branch, index: position - 1 };
}

/** How `--at` and the text output name entries (the request's own ids: render/ordinal.ts). */
export const ENTRY_NAMES =
	"an entry id of the file, or #N as the request names it: the position on the branch in base 36";

/** The text output's line on entry names. */
const ENTRY_NAMING =
	"The request names entries #N: their position on the branch in base 36 (#1 … #9, #a … #z, #10 …); --at takes that or the entry id.";

/** How a caller renders: `render` passes the user's advisor.json; `eval` asks for its ledger arm's tools. */
export interface RenderAtOptions {
	/** advisor.json (privacy, deny list, ledger caps, tools); default the built-in one. */
	config?: AdvisorConfig;
	/**
	 * `tools.repo` over the config's: false leaves advisor_expand alone, the system prompt's "expand"
	 * paragraph with it.
	 */
	repo?: boolean;
	/** The advisor call in flight, when the caller knows it (a replay point); else found from --at. */
	inFlightCallId?: string;
}

export function renderAt(
	file: string,
	text: string,
	leaf: string | undefined,
	at: string | undefined,
	options: RenderAtOptions = {},
): Rendered {
	return renderSession(file, () => parseSessionText(text), leaf, at, options);
}

/** What a render takes from the session file: the branch's events up to `--at`, and what it says about them. */
interface PreparedBranch {
	events: LedgerEvent[];
	index: number;
	cwd: string | undefined;
	sessionId: string | null;
	leafId: string | null;
	tools: ReturnType<typeof sessionTools>;
	diagnostics: Diagnostic[];
	stats: ParsedSession["stats"];
}

/**
 * The session, parsed by `load`, down to the branch's events up to `--at`: the parsed entries go
 * when this returns (only what the events hold stays), so a long session is not held twice while
 * the request is folded and rendered (docs/decisions.md, "A replay's memory follows the branch").
 */
function prepareBranch(
	file: string,
	load: () => ParsedSession,
	leaf: string | undefined,
	at: string | undefined,
	config: AdvisorConfig,
	repo: boolean | undefined,
): PreparedBranch {
	const { parsed, entries } = loadEntries(load);
	if (entries.length === 0) throw new RenderInputError(`${file}: ${noEntriesReason(parsed)}`, EXIT.nothingToReplay);
	const { branch, index } = resolveAt(file, entries, leaf, at);
	const cwd = parsed.header?.cwd;
	// An event depends on its entry and the path before it, never on what follows: the path up to --at.
	const events = normalizeBranch(branch.path.slice(0, index + 1), entries, {
		...privacyOf(config),
		...(cwd !== undefined ? { cwd } : {}),
	});
	const toolsConfig = repo === undefined ? config.tools : { ...config.tools, repo };
	return {
		events,
		index,
		cwd,
		sessionId: parsed.header?.id ?? null,
		leafId: branch.leafId ?? null,
		tools: sessionTools(cwd ?? process.cwd(), calledToolNames(entries), toolsConfig),
		diagnostics: [...parsed.diagnostics, ...branch.diagnostics],
		stats: parsed.stats,
	};
}

/** The session's entries, migrated; of the reader's output only what a render reports (its raw entries go). */
function loadEntries(load: () => ParsedSession): {
	parsed: Omit<ParsedSession, "entries">;
	entries: EntryRecord[];
} {
	const { entries: raw, ...parsed } = load();
	return { parsed, entries: migrateEntries({ ...parsed, entries: raw }) };
}

/**
 * `renderAt` on a session `load` parses: `render` reads and parses its file there, so that nothing
 * outside holds the parsed entries while the request is built.
 */
export function renderSession(
	file: string,
	load: () => ParsedSession,
	leaf: string | undefined,
	at: string | undefined,
	options: RenderAtOptions = {},
): Rendered {
	const config = options.config ?? DEFAULT_ADVISOR_CONFIG;
	const prepared = prepareBranch(file, load, leaf, at, config, options.repo);
	const { events, index, cwd, tools } = prepared;
	const atId = events[index]!.id;
	const state = ledgerOf(events, cwd);
	// At an advisor call itself: the in-flight form for that call (the newest pending one otherwise).
	const last = events[index]!;
	const ownCall = last.kind === "assistant" ? last.calls.find((c) => c.name === ADVISOR_TOOL_NAME) : undefined;
	const inFlightCallId = options.inFlightCallId ?? ownCall?.id ?? state.pendingConsultations.at(-1)?.callId;
	const renderOptions = (callId: string | undefined): RenderOptions => ({
		config: config.ledger,
		catalogue: tools.catalogue,
		tools: tools.declarations,
		toolsMode: tools.mode,
		mode: "consult",
		inFlightCallId: callId,
	});
	const request = renderRequest(state, renderOptions(inFlightCallId), createRenderMemo());
	const context = buildContext(request);
	// The previous consultation: the newest advisor call before the one in flight.
	const previousConsultation = () => {
		const own = events.findIndex((e) => e.kind === "assistant" && e.calls.some((c) => c.id === inFlightCallId));
		for (let j = (own === -1 ? index + 1 : own) - 1; j >= 0; j--) {
			const e = events[j]!;
			const call = e.kind === "assistant" ? e.calls.find((c) => c.name === ADVISOR_TOOL_NAME) : undefined;
			if (call === undefined) continue;
			const earlier = ledgerOf(events.slice(0, j + 1), cwd);
			return { atEntryId: e.id, request: renderRequest(earlier, renderOptions(call.id), createRenderMemo()) };
		}
		return undefined;
	};
	let marks: RenderMarks | undefined;
	return {
		request,
		state,
		get marks() {
			marks ??= marksOf(request, previousConsultation());
			return marks;
		},
		summary: {
			file,
			sessionId: prepared.sessionId,
			leafId: prepared.leafId,
			atEntryId: atId,
			atOrdinal: `#${ordinalId(index + 1)}`,
			inFlightCallId: inFlightCallId ?? null,
			tokens: request.tokens,
			hash: request.hash,
			messageCount: request.messageCount,
			redactions: redactionCount(context.messages, context.systemPrompt ?? ""),
		},
		diagnostics: prepared.diagnostics,
		parsed: { stats: prepared.stats },
	};
}

function marksOf(
	request: LedgerRequest,
	previous: { atEntryId: string; request: LedgerRequest } | undefined,
): RenderMarks {
	const stable = { messageIndex: request.stable.messageIndex, partCount: request.stable.partCount };
	const end = previous && { stableUnits: previous.request.stable.unitCount, stableHash: previous.request.stable.hash };
	const { bridge } = extensionMarks(request, end);
	const at = bridge === undefined ? undefined : unitPosition(request, bridge);
	return {
		stable,
		bridge: at === undefined || previous === undefined ? null : { ...at, previousAtEntryId: previous.atEntryId },
	};
}

export function renderJson(rendered: Rendered): RenderJson {
	const { request } = rendered;
	const context = buildContext(request);
	const last = context.messages[request.stable.messageIndex];
	const parts = last !== undefined && Array.isArray(last.content) ? last.content.length : 0;
	const first = last !== undefined && Array.isArray(last.content) ? last.content[request.stable.partCount] : undefined;
	const appendixPart = isAppendix(first) ? request.stable.partCount : null;
	return {
		request: context,
		stable: { ...request.stable, volatileParts: Math.max(0, parts - request.stable.partCount), appendixPart },
		marks: rendered.marks,
		summary: rendered.summary,
	};
}

/** The appendix opens the volatile parts, right after the last log block. */
function isAppendix(part: { type: string; text?: string } | undefined): boolean {
	return part?.type === "text" && part.text?.startsWith(`${APPENDIX_HEADER}\n`) === true;
}

/** How many credentials the request carries as marks instead (docs/privacy.md). */
function redactionsSaid(count: number): string {
	return `${count} credential${count === 1 ? "" : "s"} redacted`;
}

export function renderReadable(rendered: Rendered, style: Style): string {
	const out: string[] = [];
	readableLines(rendered, style, (line) => out.push(line));
	return out.join("\n");
}

/**
 * `renderReadable`, a line at a time: `render` writes them as they come, so a long request is never
 * held as one text beside itself.
 */
function readableLines(rendered: Rendered, style: Style, line: (text: string) => void): void {
	const { request, summary, marks } = rendered;
	const { stable } = request;
	const context = buildContext(request);
	const out = { push: line };
	const rule = (title: string) => style.bold(`═══ ${title} ═══`);
	out.push(
		style.bold(
			`Advisor request for ${visibleLine(summary.file)}, dispatched after entry ${visibleLine(summary.atEntryId)} (${summary.atOrdinal})`,
		),
	);
	out.push(style.dim(ENTRY_NAMING));
	out.push(
		summary.inFlightCallId === null
			? "No advisor call in flight at this entry: the request carries the default question."
			: `In-flight advisor call: ${visibleLine(summary.inFlightCallId)}`,
	);
	out.push(
		`~${formatTokens(request.tokens)} tokens (estimate) · ${request.messageCount} messages · ${redactionsSaid(summary.redactions)} · hash ${request.hash} · stable portion ~${formatTokens(stable.tokens)} tokens, hash ${stable.hash}`,
	);
	out.push(
		marks.bridge === null
			? "Cache marks of the extension (Anthropic-style routes): the stable end."
			: `Cache marks of the extension (Anthropic-style routes): the stable end, and a bridge at part ${marks.bridge.partCount} of message ${marks.bridge.messageIndex + 1}, where the consultation after entry ${visibleLine(marks.bridge.previousAtEntryId)} ended its stable portion (more than ${LOOKBACK_BLOCKS} blocks back).`,
	);
	out.push("");
	const system = context.systemPrompt ?? "";
	out.push(rule(`system prompt (${system.length} chars) · stable`));
	out.push(visible(system));
	out.push("");
	const tools = context.tools ?? [];
	out.push(rule(`tools (${tools.length}) · stable`));
	for (const tool of tools) {
		out.push(`${style.bold(tool.name)} — ${visible(tool.description)}`);
		out.push(style.dim(`  parameters: ${JSON.stringify(tool.parameters)}`));
	}
	out.push("");
	context.messages.forEach((message, m) => {
		const parts =
			typeof message.content === "string"
				? [{ type: "text" as const, text: message.content }]
				: (message.content as readonly { type: string; text?: string }[]);
		out.push(
			rule(
				`message ${m + 1}/${context.messages.length} · ${message.role} · ${parts.length} part${parts.length === 1 ? "" : "s"}`,
			),
		);
		parts.forEach((part, p) => {
			const isStable = m < stable.messageIndex || (m === stable.messageIndex && p < stable.partCount);
			if (m === stable.messageIndex && p === stable.partCount && isAppendix(part))
				out.push(style.bold("▼ the appendix starts here: the cached prefix ends above"));
			out.push(style.dim(`── part ${p + 1} · ${part.type} · ${isStable ? "stable" : "volatile"} ──`));
			out.push(visible(part.type === "text" ? (part.text ?? "") : JSON.stringify(part)));
			if (marks.bridge !== null && m === marks.bridge.messageIndex && p === marks.bridge.partCount - 1)
				out.push(style.bold("▲ cache mark (bridge): the previous consultation's cached prefix ends here"));
		});
		out.push("");
	});
}

/** Lines written in pieces of about this many characters. */
const WRITE_CHARS = 1 << 16;

function writeReadable(rendered: Rendered, style: Style, write: (text: string) => void): void {
	let pending: string[] = [];
	let size = 0;
	readableLines(rendered, style, (text) => {
		pending.push(text);
		size += text.length + 1;
		if (size < WRITE_CHARS) return;
		write(`${pending.join("\n")}\n`);
		pending = [];
		size = 0;
	});
	if (pending.length > 0) write(`${pending.join("\n")}\n`);
}

export function runRender(args: RenderArgs, io: Io): number {
	const loaded = cliConfig("render", args.config, io);
	if (!loaded.ok) {
		io.stderr(`${errorPrefix("render")}${visibleLine(loaded.line)}\n`);
		return EXIT.usage;
	}
	const file = displayPath(args.file, io.cwd);
	// Read and parsed inside the render, so that nothing here holds the parsed entries (renderSession).
	const load = (): ParsedSession => {
		const read = readParsedInput(args.file);
		if (read.ok) return read.parsed;
		throw new RenderInputError(`cannot read ${args.file}: ${read.error}`, EXIT.unreadable);
	};
	let rendered: Rendered;
	try {
		rendered = renderSession(file, load, args.leaf, args.at, { config: loaded.config });
	} catch (error) {
		if (error instanceof RenderInputError) {
			io.stderr(`${errorPrefix("render")}${visibleLine(error.message)}\n`);
			return error.exitCode;
		}
		throw error;
	}
	if (args.json) {
		writeJson(renderJson(rendered), io.stdout);
		io.stdout("\n");
	} else writeReadable(rendered, io.style, io.stdout);
	io.stderr(diagnosticsNote("render", file, rendered.diagnostics, rendered.parsed));
	return EXIT.ok;
}
