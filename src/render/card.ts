/**
 * The card: one line per tool round, `#id tool argument[ · size][ · withheld: deny list][ · ✗ error
 * line | · no result | · running]`. The log shows every round as one, a compaction or trim re-states open failures as
 * cards, and the in-flight call is one. What the argument says per tool is card-argument.ts.
 */

import { assertNever } from "../events/index.ts";
import type { Round, RoundStatus } from "../reducers/index.ts";
import { failureLine, partsText, SUMMARY_MAX, shellCommand, testSummary } from "../reducers/index.ts";
import { cardArgument, cardPath } from "./card-argument.ts";
import { SAME_PATH, WITHHELD_CARD } from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { displayId } from "./ordinal.ts";
import { clip, compactSize, oneLine } from "./text-shape.ts";

/** The error line a card (or a failed shell run's header) shows, at most. */
export const ERROR_LINE_MAX = 100;
/** A test run's summary line on a card or a carried list, at most. */
export const SUMMARY_LINE_MAX = SUMMARY_MAX;
/** A tool or custom type name in a header, at most. */
export const TOOL_NAME_MAX = 40;

/** A tool name as a header shows it: one line, neutralised, clipped; `?` when nothing is left. */
export function toolName(name: string): string {
	return clip(oneLine(neutralise(name)), TOOL_NAME_MAX) || "?";
}

/** What a card says about the outcome; "running" for a call still waiting for its result. */
export type CardStatus = RoundStatus | "running";

/**
 * `#id tool argument[ · size][ · test summary][ · ✗ error line | · no result | · running]` — one line, always.
 * An ok call says nothing about its status; a failed one shows the line that says what went wrong.
 * `previous` is the round of the card right above: when both lead with the same path, this card
 * shows SAME_PATH in its place (runs of edits to one file are common and paths are long).
 */
export function cardLine(id: string, round: Round, status: CardStatus = round.status, previous?: Round): string {
	const text = partsText(round.resultParts);
	const images = round.resultParts.filter((p) => p.type === "image").length;
	const command = shellCommand(round.call);
	const sameAs = previous === undefined ? undefined : shellCommand(previous.call);
	const argument = cardArgument(round.call, round.cwd, command === undefined ? undefined : sameAs);
	let shown = argument.text;
	if (previous !== undefined) {
		const path = cardPath(round.call, round.cwd);
		// A path as short as the mark (`.`, `a.c`) is clearer said again.
		if (
			path !== undefined &&
			path.length > 3 &&
			shown.startsWith(path) &&
			cardPath(previous.call, previous.cwd) === path
		)
			shown = SAME_PATH + shown.slice(path.length);
	}
	let line = `#${displayId(id)} ${toolName(round.call.name)}`;
	if (shown.length > 0) line += ` ${shown}`;
	const finished = status === "ok" || status === "error";
	const failure = status === "error" ? oneLine(neutralise(failureLine(text))) : "";
	const error = clip(failure, ERROR_LINE_MAX);
	// A failure whose whole result is the one line shown (`Command exited with code 1`) has no size
	// worth saying: there is nothing more behind the card.
	const wholeResultShown =
		status === "error" && images === 0 && !text.trim().includes("\n") && failure.length <= ERROR_LINE_MAX;
	const withheld = round.withheld;
	if (withheld !== undefined) line += ` · ${compactSize(withheld.chars)} · ${WITHHELD_CARD}`;
	else if (finished && !wholeResultShown && (argument.resultSize || images > 0)) {
		let size = argument.resultSize ? compactSize(text.length) : "";
		if (images > 0) size += `${size.length > 0 ? " + " : ""}${images} image${images === 1 ? "" : "s"}`;
		line += ` · ${size}`;
	}
	// A test run says how it went: its summary line, unless the error line already is that line.
	if (finished && command !== undefined) {
		const summary = testSummary(command, text);
		const said = summary === undefined ? "" : clip(oneLine(neutralise(summary)), SUMMARY_LINE_MAX);
		if (said.length > 0 && said !== error) line += ` · ${said}`;
	}
	switch (status) {
		case "ok":
			break;
		case "error":
			line += error.length > 0 ? ` · ✗ ${error}` : " · ✗";
			break;
		case "no-result":
			line += " · no result";
			break;
		case "running":
			line += " · running";
			break;
		default:
			return assertNever(status, "card status");
	}
	return `${line}\n`;
}
