/**
 * Which consultation points an eval sends (docs/eval.md). Points are found as `replay` finds them
 * (replay/points.ts): every real advisor() call on a session's leaf path, and in a session without
 * one a simulated point every DEFAULT_EVERY tool rounds and at the last entry. They are then put in
 * one draw order, from the seed: real calls first, then simulated points; within each, sessions
 * take turns (in a shuffled order) and each session's points come spread over its length. The run
 * takes points from the front of that order until it has enough that fit the advisor's window.
 */

import {
	type EntryRecord,
	type LedgerEvent,
	migrateEntries,
	normalizeBranch,
	parseSessionText,
	selectBranch,
} from "../../../events/index.ts";
import { DEFAULT_EVERY } from "../cli/help.ts";
import { type ConsultationPoint, pointsOfScan, scanPoints } from "../replay/points.ts";
import { type Random, seededRandom, shuffled, spreadOrder } from "./random.ts";

export interface EvalSession {
	/** As reports name it. */
	file: string;
	text: string;
	sessionId: string | null;
	/** The session header's cwd (the folder the tools were described for). */
	cwd: string | undefined;
	entries: EntryRecord[];
	/** Root → leaf: the branch the points are on. */
	path: EntryRecord[];
	events: LedgerEvent[];
	points: ConsultationPoint[];
}

export interface DrawnPoint {
	session: EvalSession;
	point: ConsultationPoint;
	/** The entry the consultation is dispatched after (what `render --at` takes). */
	atEntryId: string;
	/** Stable name of the point across runs of the same inputs: the file and the entry. */
	key: string;
}

/** A session file's leaf branch and its consultation points. Never throws on content. */
export function loadSession(file: string, text: string): EvalSession {
	const parsed = parseSessionText(text);
	const entries = migrateEntries(parsed);
	const branch = selectBranch(entries, undefined);
	const events = normalizeBranch(branch.path, entries);
	return {
		file,
		text,
		sessionId: parsed.header?.id ?? null,
		cwd: parsed.header?.cwd,
		entries,
		path: branch.path,
		events,
		points: pointsOfScan(scanPoints(events), DEFAULT_EVERY),
	};
}

function drawn(session: EvalSession, point: ConsultationPoint): DrawnPoint {
	const atEntryId = session.events[point.upTo - 1]!.id;
	return { session, point, atEntryId, key: `${session.file}#${atEntryId}` };
}

/** Sessions take turns, in shuffled order; each one's points spread over its length. */
function interleave(sessions: readonly EvalSession[], random: Random): DrawnPoint[] {
	const queues = shuffled(sessions, random).map((session) =>
		spreadOrder(session.points.length, random).map((i) => drawn(session, session.points[i]!)),
	);
	const out: DrawnPoint[] = [];
	for (let round = 0; queues.some((queue) => round < queue.length); round++) {
		for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
	}
	return out;
}

/** Every point of every session, in the order the run draws them. */
export function drawOrder(sessions: readonly EvalSession[], seed: string): DrawnPoint[] {
	const random = seededRandom(seed, "points");
	const real = sessions.filter((s) => s.points.some((p) => p.kind === "advisor"));
	const simulated = sessions.filter((s) => s.points.length > 0 && !real.includes(s));
	return [...interleave(real, random), ...interleave(simulated, random)];
}
