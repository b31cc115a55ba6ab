/**
 * A completion review in flight is cancelled by compaction, tree navigation, a session
 * switch, a fork and shutdown — on the real host, through AgentSessionRuntime where Pi only emits
 * the event there. Each time the review's request is aborted and its usage recorded
 * in the session it belonged to BEFORE the session changes, and nothing is shown.
 */

import { readFileSync } from "node:fs";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { ReviewTrace } from "../../../../src/adapter/extension/background/completion-review.ts";
import { CUSTOM_TYPES } from "../../../../src/events/index.ts";
import { type Host, startHost, waitFor } from "../../../support/pi-host.ts";
import { REVIEW_CONFIG, reviewableRun, testExtension, untilAborted } from "../../../support/review-host.ts";

let host: Host | undefined;
afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

function fileEntries(file: string): any[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((e) => e.type !== "session");
}

/** A session whose last answer is being reviewed right now (the advisor answers only when aborted). */
async function reviewInFlight(extra: Parameters<typeof startHost>[0] extends infer O ? Partial<O> : never = {}) {
	const traces: ReviewTrace[] = [];
	let asked = false;
	host = await startHost({
		advisorConfig: REVIEW_CONFIG,
		executor: reviewableRun("r1"),
		advisor: [untilAborted(() => (asked = true))],
		...extra,
		extension: testExtension({ review: { onTrace: (t) => traces.push(t) } }),
	});
	const h = host;
	await h.runtime.session.prompt("Check the README.");
	await waitFor(() => asked, "the review request");
	const file = h.runtime.session.sessionFile!;
	const answerId = (h.runtime.session.sessionManager.getLeafEntry() as any).id as string;
	return { host: h, traces, file, answerId };
}

function cancelledRecord(entries: any[]) {
	const records = entries.filter((e) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage);
	expect(records).toHaveLength(1);
	expect(records[0].data).toMatchObject({ kind: "review", outcome: "cancelled" });
	expect(entries.some((e) => e.type === "custom_message" && e.customType === CUSTOM_TYPES.review)).toBe(false);
	return records[0];
}

describe("a review in flight is cancelled, its usage recorded first", () => {
	it("by compaction (session_before_compact): the record precedes the compaction entry", async () => {
		const {
			host: h,
			traces,
			file,
			answerId,
		} = await reviewInFlight({
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		h.executor.appendResponses([fauxAssistantMessage("## Goal\nCheck the README.")]);
		await h.runtime.session.compact();
		const entries = fileEntries(file);
		const record = cancelledRecord(entries);
		expect(record.data.answerEntryId).toBe(answerId);
		expect(record.parentId).toBe(answerId);
		const compactionAt = entries.findIndex((e) => e.type === "compaction");
		expect(compactionAt).toBeGreaterThan(entries.indexOf(record));
		expect(traces.at(-1)).toMatchObject({
			type: "settled",
			outcome: "cancelled",
			cancelledBy: "session_before_compact",
		});
	});

	it("by tree navigation (session_before_tree): the record stays on the branch it was made on", async () => {
		const { host: h, traces, file, answerId } = await reviewInFlight();
		const user = h.entries().find((e: any) => e.type === "message" && e.message.role === "user")!;
		await h.runtime.session.navigateTree(user.id, { summarize: false });
		const record = cancelledRecord(fileEntries(file));
		expect(record.parentId).toBe(answerId);
		const branch = h.runtime.session.sessionManager.getBranch().map((e) => e.id);
		expect(branch).not.toContain(record.id);
		expect(traces.at(-1)).toMatchObject({ type: "settled", cancelledBy: "session_before_tree" });
	});

	it("by a session switch (session_before_switch): recorded in the old session's file", async () => {
		const { host: h, traces, file } = await reviewInFlight();
		await h.runtime.newSession();
		expect(h.runtime.session.sessionFile).not.toBe(file);
		cancelledRecord(fileEntries(file));
		expect(traces.at(-1)).toMatchObject({ type: "settled", cancelledBy: "session_before_switch" });
	});

	it("by a fork (session_before_fork): recorded in the session it was forked from", async () => {
		const { host: h, traces, file, answerId } = await reviewInFlight();
		await h.runtime.fork(answerId, { position: "at" });
		expect(h.runtime.session.sessionFile).not.toBe(file);
		cancelledRecord(fileEntries(file));
		expect(traces.at(-1)).toMatchObject({ type: "settled", cancelledBy: "session_before_fork" });
	});

	it("by shutdown (session_shutdown from AgentSessionRuntime.dispose)", async () => {
		const { host: h, traces, file } = await reviewInFlight();
		await h.runtime.dispose();
		cancelledRecord(fileEntries(file));
		expect(traces.at(-1)).toMatchObject({ type: "settled", cancelledBy: "session_shutdown" });
	});
});
