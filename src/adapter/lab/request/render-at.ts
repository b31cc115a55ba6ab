/**
 * The request a consultation dispatched right after one entry of a session would send, built the
 * way the replay builds it: what `advisor-ledger render` prints and `eval`'s ledger arm sends, with
 * the summary, the cache marks and, when asked, the fact audit the render command reports.
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
} from "../../../events/index.ts";
import { extensionMarks, unitPosition } from "../../../policy/index.ts";
import { type LedgerState, ledgerOf } from "../../../reducers/index.ts";
import {
	APPENDIX_HEADER,
	buildContext,
	createRenderMemo,
	type LedgerRequest,
	logCut,
	ordinalId,
	ordinalPosition,
	type RenderOptions,
	redactionCount,
	renderRequest,
	type StablePortion,
} from "../../../render/index.ts";
import { type AdvisorConfig, DEFAULT_ADVISOR_CONFIG } from "../../extension/config/load.ts";
import {
	auditBranch,
	createAuditMemo,
	emptyFacts,
	FACT_CATEGORIES,
	factsSinceHorizon,
	foldFacts,
	requestUnits,
} from "../audit/index.ts";
import { EXIT } from "../cli/args.ts";
import { privacyOf } from "../cli/cli-config.ts";
import { calledToolNames, sessionTools } from "../replay/tool-set.ts";
import { noEntriesReason } from "../report/diagnostics.ts";

export interface RenderSummary {
	file: string;
	sessionId: string | null;
	leafId: string | null;
	atEntryId: string;
	/** How the request names that entry: `#` and its path position in base 36 (ids: docs/request-format.md#blocks). */
	atOrdinal: string;
	/** The advisor call the request answers, when --at is (or follows) an advisor call without a result. */
	inFlightCallId: string | null;
	tokens: number;
	hash: string;
	messageCount: number;
	/** Credential marks in the request (docs/privacy.md): what `details.redactions` would record. */
	redactions: number;
	/**
	 * The fact audit (docs/request-format.md, "The fact audit"): the branch's facts the request
	 * carries; null unless asked for (`facts` below: it reads the whole request for every fact).
	 */
	facts: { carried: number; total: number } | null;
	/**
	 * The executor's newest horizon (`#` and its position) and, of the facts it lost there, how many
	 * the request carries; null when no compaction is on the branch, or the audit was not asked for.
	 */
	lostFacts: { horizon: string; carried: number; total: number } | null;
	/** Oldest log entries the request leaves out behind its stand-in (docs/request-format.md, "The log's size"). */
	leftOut: number;
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
	/**
	 * Run the fact audit for the summary (`render --facts`). Off by default: a render computes what it
	 * prints, and the audit costs more than the rest of a render of a long session.
	 */
	facts?: boolean;
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
	const memo = createRenderMemo();
	const request = renderRequest(state, renderOptions(inFlightCallId), memo);
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
			...(options.facts === true
				? factsOf(events.slice(0, index + 1), state, request, cwd)
				: { facts: null, lostFacts: null }),
			leftOut: logCut(state, renderOptions(inFlightCallId), memo)?.droppedItems ?? 0,
		},
		diagnostics: prepared.diagnostics,
		parsed: { stats: prepared.stats },
	};
}

/**
 * The fact audit of the request, and its split at the executor's horizon: the branch's audit at one
 * point, which reads the request once for all the facts (adapter/lab/audit/branch-audit.ts).
 */
function factsOf(
	events: readonly LedgerEvent[],
	state: LedgerState,
	request: LedgerRequest,
	cwd: string | undefined,
): Pick<RenderSummary, "facts" | "lostFacts"> {
	const since = factsSinceHorizon(undefined, state.horizon, events, 0, events.length, cwd);
	const facts = foldFacts(emptyFacts(cwd), events);
	const audit = auditBranch(
		requestUnits(request),
		request.stable.unitCount,
		facts,
		since,
		createAuditMemo(),
		"ledger",
	);
	let carried = 0;
	let total = 0;
	for (const category of FACT_CATEGORIES) {
		carried += audit.counts[category].carried;
		total += audit.counts[category].total;
	}
	return {
		facts: { carried, total },
		lostFacts:
			since === undefined || audit.lost === undefined
				? null
				: { horizon: `#${ordinalId(since.from)}`, ...audit.lost },
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
export function isAppendix(part: { type: string; text?: string } | undefined): boolean {
	return part?.type === "text" && part.text?.startsWith(`${APPENDIX_HEADER}\n`) === true;
}
