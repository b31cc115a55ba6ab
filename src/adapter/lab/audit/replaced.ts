/**
 * The facts a later event replaces or resolves (facts.ts `replacedFacts`: the open failures, the
 * test summaries, the newest prose, the standing instructions), as the audit along a branch counts
 * them from one point to the next (branch-audit.ts): what went and what came since the state it
 * read last. The open failures grow with the branch — a session whose every round fails on a new
 * file leaves thousands open — so they are read from their change log, never compared whole at
 * every point; the others are few, and compared whole when their source changed.
 */

import type { ChunkedList } from "../../../reducers/index.ts";
import { type Fact, type FactState, type FailureChange, otherReplacedFacts, otherReplacedSources } from "./facts.ts";

/** The replaced facts as last read. */
export interface ReplacedRead {
	/** The open failures' change log, as far as read. */
	failureLog: ChunkedList<FailureChange>;
	/** The open failures, by run key. */
	failures: Map<string, Fact>;
	/** What the other replaced facts were made from (`otherReplacedSources`). */
	sources: readonly unknown[];
	others: Set<Fact>;
	/** All of them. */
	all: Set<Fact>;
}

export function readReplaced(state: FactState): ReplacedRead {
	const failures = new Map(state.failures.entries());
	const others = new Set(otherReplacedFacts(state));
	return {
		failureLog: state.failureLog,
		failures,
		sources: otherReplacedSources(state),
		others,
		all: new Set([...failures.values(), ...others]),
	};
}

/** What changed since `read` (which it brings up to `state`): the facts gone, and the fresh ones. */
export function replacedSince(read: ReplacedRead, state: FactState): { gone: Fact[]; fresh: Fact[] } {
	const gone: Fact[] = [];
	const fresh: Fact[] = [];
	const change = (before: Fact | undefined, now: Fact | undefined) => {
		if (before === now) return;
		if (before !== undefined) gone.push(before);
		if (now !== undefined) fresh.push(now);
	};
	const log = state.failureLog;
	const shared = read.failureLog.sharedPrefix(log);
	if (shared === read.failureLog.length) {
		// Each run key's failure before the changes, then as they leave it.
		const before = new Map<string, Fact | undefined>();
		for (let i = shared; i < log.length; i++) {
			const { key, fact } = log.at(i)!;
			if (!before.has(key)) before.set(key, read.failures.get(key));
			if (fact === undefined) read.failures.delete(key);
			else read.failures.set(key, fact);
		}
		for (const [key, was] of before) change(was, read.failures.get(key));
	} else {
		// Another branch's state (a branch resumed where it parts from the one before): compared whole.
		const now = new Map(state.failures.entries());
		for (const [key, was] of read.failures) change(was, now.get(key));
		for (const [key, fact] of now) if (!read.failures.has(key)) change(undefined, fact);
		read.failures = now;
	}
	read.failureLog = log;
	const sources = otherReplacedSources(state);
	if (sources.some((source, i) => source !== read.sources[i])) {
		const now = new Set(otherReplacedFacts(state));
		for (const fact of read.others) if (!now.has(fact)) gone.push(fact);
		for (const fact of now) if (!read.others.has(fact)) fresh.push(fact);
		read.others = now;
		read.sources = sources;
	}
	for (const fact of gone) read.all.delete(fact);
	for (const fact of fresh) read.all.add(fact);
	return { gone, fresh };
}
