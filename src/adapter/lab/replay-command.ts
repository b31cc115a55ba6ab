/** `advisor-ledger replay`: collect inputs, replay each file, print the report, write the chart. */

import { writeFileSync } from "node:fs";
import type { ParsedSession } from "../../events/index.ts";
import { type AdvisorConfig, DEFAULT_ADVISOR_CONFIG } from "../extension/config/load.ts";
import { errnoReason } from "../extension/pi/regular-file.ts";
import { EXIT, errorPrefix, type ReplayArgs } from "./cli/args.ts";
import { cliConfig, privacyOf } from "./cli/cli-config.ts";
import { defaultReplayInputs } from "./cli/default-inputs.ts";
import { visibleLine, visibleStrings } from "./cli/escape.ts";
import type { UnreadableInput } from "./cli/inputs.ts";
import { collectInputs, displayPath, isBundledSample, readParsedInput } from "./cli/inputs.ts";
import type { Io } from "./cli/io.ts";
import { forceOverrides, refusalLine, svgOutputRefusal } from "./cli/output-guard.ts";
import { replayParsed } from "./replay/engine.ts";
import { createWarmUp } from "./replay/timing-samples.ts";
import { WATCH_OUTPUT_TOKENS } from "./replay/watch-cost.ts";
import { noEntriesReason, SHOWN_DIAGNOSTICS } from "./report/diagnostics.ts";
import { writeJson } from "./report/json-stream.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel, resolveRegistryModel } from "./report/price-lookup.ts";
import { type FileDiagnostics, REPORT_LAYOUT, type ReplayReport, type SessionReport } from "./report/replay-report.ts";
import { buildReport } from "./report/report-totals.ts";
import { renderSvg } from "./report/svg.ts";
import { renderTextReport } from "./report/text-report.ts";
import { watchTotals } from "./report/watch-report.ts";

export interface ReplayRun {
	report: ReplayReport;
	exitCode: number;
	/** Every input that gave nothing got its own line on stderr (unreadable, empty, not a session). */
	allExplained: boolean;
}

const PREFIX = errorPrefix("replay");

function unreadableLine(path: string, error: string): string {
	return `${PREFIX}cannot read ${visibleLine(path)}: ${visibleLine(error)}\n`;
}

/** A file that was read but holds no session entry: said once, in the reader's words. */
function noEntriesLine(path: string, parsed: ParsedSession): string {
	return `${PREFIX}${visibleLine(path)}: ${noEntriesReason(parsed)}\n`;
}

/** What a replay reads: the paths named (or the defaults, said once on stderr) and the files under them. */
export interface ReplayInputs {
	paths: string[];
	collected: ReturnType<typeof collectInputs>;
}

export function replayInputs(args: ReplayArgs, io: Io): ReplayInputs {
	const defaults = args.paths.length > 0 ? undefined : defaultReplayInputs(io.env, io.cwd);
	if (defaults?.note !== undefined) io.stderr(`${PREFIX}${defaults.note}\n`);
	const paths = defaults?.paths ?? args.paths;
	return { paths, collected: collectInputs(paths) };
}

/** Replays and reports; `progress` is called before each file. */
export function replayPaths(
	args: ReplayArgs,
	io: Io,
	progress?: (index: number, total: number, file: string) => void,
	inputs: ReplayInputs = replayInputs(args, io),
	config: AdvisorConfig = DEFAULT_ADVISOR_CONFIG,
): ReplayRun {
	const { paths, collected } = inputs;
	const unreadable: UnreadableInput[] = collected.unreadable.map((u) => ({ ...u, path: displayPath(u.path, io.cwd) }));
	for (const u of unreadable) io.stderr(unreadableLine(u.path, u.error));
	const sessions: SessionReport[] = [];
	const files: FileDiagnostics[] = [];
	let withoutEntries = 0;
	const priceKey = args.price ?? DEFAULT_PRICE_MODEL;
	// Checked by runReplay: an unknown --price never gets here.
	const price = resolveRegistryModel(priceKey) ?? resolveRegistryModel(DEFAULT_PRICE_MODEL)!;
	// The first file's first fold + render runs cold: warmed up once for the whole run, untimed.
	const warmUp = createWarmUp();
	collected.files.forEach((file, index) => {
		const shown = displayPath(file, io.cwd);
		progress?.(index, collected.files.length, shown);
		const read = readParsedInput(file);
		if (!read.ok) {
			unreadable.push({ path: shown, error: read.error });
			io.stderr(unreadableLine(shown, read.error));
			return;
		}
		let replayed: ReturnType<typeof replayParsed>;
		try {
			replayed = replayParsed(shown, read.parsed, {
				every: args.every,
				allLeaves: args.allLeaves,
				now: io.now,
				warmUp,
				config: config.ledger,
				privacy: privacyOf(config),
				tools: config.tools,
				cost: { price, config },
				...(args.watch ? { watch: config.watch } : {}),
			});
		} catch (error) {
			// The reader never throws on content; anything else is reported like an unreadable file.
			const message = `replay failed: ${error instanceof Error ? error.message : String(error)}`;
			unreadable.push({ path: shown, error: message });
			io.stderr(unreadableLine(shown, message));
			return;
		}
		if (replayed.sessions.every((session) => session.pathEntries === 0)) {
			withoutEntries++;
			io.stderr(noEntriesLine(shown, read.parsed));
		}
		sessions.push(...replayed.sessions);
		files.push(replayed.diagnostics);
	});
	const report = buildReport(
		sessions,
		files,
		unreadable,
		{ every: args.every, allLeaves: args.allLeaves, inputs: paths.map((p) => displayPath(p, io.cwd)) },
		resolvePriceModel(priceKey),
	);
	if (args.watch)
		report.watch = watchTotals(
			sessions.flatMap((s) => (s.watch === undefined ? [] : [s.watch])),
			{ ...config.watch, enabled: true },
			WATCH_OUTPUT_TOKENS,
		);
	let exitCode: number = EXIT.ok;
	if (unreadable.length > 0) exitCode = EXIT.unreadable;
	else if (report.points === 0) exitCode = EXIT.nothingToReplay;
	const given = collected.files.length + collected.unreadable.length;
	return { report, exitCode, allExplained: given > 0 && unreadable.length + withoutEntries === given };
}

export function runReplay(args: ReplayArgs, io: Io): number {
	if (args.price !== undefined && resolvePriceModel(args.price) === undefined) {
		io.stderr(
			`${PREFIX}--price: no model ${JSON.stringify(args.price)} in pi-ai's registry (e.g. ${DEFAULT_PRICE_MODEL})\n`,
		);
		return EXIT.usage;
	}
	const loaded = cliConfig("replay", args.config, io);
	if (!loaded.ok) {
		io.stderr(`${PREFIX}${visibleLine(loaded.line)}\n`);
		return EXIT.usage;
	}
	const inputs = replayInputs(args, io);
	// Checked before anything is replayed: a refused output costs the user nothing but the line.
	if (args.svg !== undefined) {
		const why = svgOutputRefusal(args.svg, inputs.collected.files, io.cwd);
		if (why !== undefined && !(args.force && forceOverrides(why))) {
			io.stderr(`${PREFIX}${visibleLine(refusalLine("--svg", args.svg, why))}\n`);
			return EXIT.usage;
		}
	}
	const showProgress = io.stderrIsTTY;
	let shown = false;
	const progress = (index: number, total: number, file: string) => {
		if (!showProgress || total < 2) return;
		shown = true;
		const line = `[${index + 1}/${total}] ${visibleLine(file)}`;
		io.stderr(`\r\u001b[K${line.length > 100 ? `${line.slice(0, 99)}…` : line}`);
	};
	const { report, exitCode, allExplained } = replayPaths(args, io, progress, inputs, loaded.config);
	if (shown) io.stderr("\r\u001b[K");
	const named = report.options.inputs.map(visibleLine).join(", ");
	if (report.points === 0) {
		// Nothing replayed: no all-zero table or empty chart, only what went wrong (the JSON
		// report still says which files were read and what their reader found, if any was read).
		const read = report.diagnostics.files;
		if (args.json && read > 0) writeReport(report, io);
		// One line per error: when every input already got its own line, there is nothing to add.
		if (!allExplained) {
			let why = "no session file could be read";
			if (read > 0) why = "no session file with a consultation point";
			else if (report.diagnostics.unreadable.length === 0) why = "no *.jsonl session file found";
			io.stderr(`${PREFIX}nothing to replay in ${named} (${why})\n`);
			// Already escaped when counted.
			for (const message of report.diagnostics.messages.slice(0, SHOWN_DIAGNOSTICS)) io.stderr(`  ${message}\n`);
		}
		return exitCode === EXIT.ok ? EXIT.nothingToReplay : exitCode;
	}
	if (args.svg !== undefined) {
		try {
			writeFileSync(args.svg, renderSvg(visibleStrings(report)));
		} catch (error) {
			io.stderr(`${PREFIX}cannot write ${visibleLine(args.svg)}: ${visibleLine(errnoReason(error))}\n`);
			return EXIT.usage;
		}
	}
	if (args.json) writeReport(report, io);
	// What the chart and the text report print of the report comes from files: escaped (the JSON is escaped by JSON).
	else
		io.stdout(renderTextReport(visibleStrings(report), io.style, { wide: args.wide, bundled: bundled(inputs, io) }));
	return exitCode;
}

/** The bundled samples among the files read, as the report names them. */
function bundled(inputs: ReplayInputs, io: Io): Set<string> {
	return new Set(
		inputs.collected.files
			.filter((file) => isBundledSample(file))
			.map((file) => visibleLine(displayPath(file, io.cwd))),
	);
}

/**
 * The JSON report, written as it is made: a report of tens of thousands of points as one string
 * ran out of memory, or past V8's longest string (docs/cli.md, "replay --json").
 */
function writeReport(report: ReplayReport, io: Io): void {
	writeJson(report, io.stdout, REPORT_LAYOUT);
	io.stdout("\n");
}
