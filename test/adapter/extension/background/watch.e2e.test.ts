/**
 * The watch on the real host (an SDK session of Pi 0.73, faux models; docs/configuration.md#the-watch):
 * what wakes it and what does not, what a finding skipped by its guards leaves, what a settled
 * review becomes (queued, a turn, kept, stale), one background review at a time with the completion
 * review (which counts a watch review that saw its last tool call), the session changing under a
 * review in flight, and a headless session that waits for it. The print-mode runs of both hosts
 * are in test/adapter/extension/extension-print-watch.e2e.test.ts.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	type AssistantMessage,
	type Context,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
} from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { ReviewTrace } from "../../../../src/adapter/extension/background/completion-review.ts";
import type { WatchTrace } from "../../../../src/adapter/extension/background/watch.ts";
import { CUSTOM_TYPES } from "../../../../src/events/index.ts";
import { WATCH_INSTRUCTION, WATCH_PROMPT_GUIDELINE } from "../../../../src/render/index.ts";
import { gate } from "../../../support/mock-llm.ts";
import { ADVISOR_MODEL, ADVISOR_PROVIDER, type Host, startHost, waitFor } from "../../../support/pi-host.ts";
import { answer, recording, settle, testExtension, textOf, untilAborted } from "../../../support/review-host.ts";

let host: Host | undefined;
afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

const WATCH = { enabled: true, failureStreak: 3, cooldownRounds: 5, maxNotesPerPrompt: 2, maxShare: 0 };
const CONFIG = { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, tools: { enabled: false }, watch: WATCH };
const CONCERN = "Severity: concern\nThe file is not there: stop reading it and create it.";

/** A read of a file that is not there: the same failing run each time. */
const failing = (id: string): FauxResponseStep =>
	fauxAssistantMessage([fauxText("Reading."), fauxToolCall("read", { path: "notes.md" }, { id })], {
		stopReason: "toolUse",
	});
const failures = (n: number, from = 1) => Array.from({ length: n }, (_, i) => failing(`f${from + i}`));
/** An executor step that waits for `until` before it answers `step`. */
const after =
	(until: () => Promise<unknown>, step: FauxResponseStep): FauxResponseStep =>
	async (context, options, state, model) => {
		await until();
		return typeof step === "function" ? step(context, options, state, model) : step;
	};

async function start(options: Partial<Parameters<typeof startHost>[0]> & { executor: FauxResponseStep[] }) {
	const traces: WatchTrace[] = [];
	const reviews: ReviewTrace[] = [];
	host = await startHost({
		advisorConfig: CONFIG,
		...options,
		extension: testExtension({
			watch: { onTrace: (t) => traces.push(t) },
			review: { onTrace: (t) => reviews.push(t) },
		}),
	});
	return { host, traces, reviews };
}

const usageOf = (h: Host, kind: string) =>
	h
		.entries()
		.filter((e: any) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage && e.data?.kind === kind)
		.map((e: any) => e.data);
const notes = (h: Host) =>
	h.entries().filter((e: any) => e.type === "custom_message" && e.customType === CUSTOM_TYPES.watch) as any[];
const waitForRecords = (h: Host, count: number) =>
	waitFor(() => (usageOf(h, "watch").length >= count ? usageOf(h, "watch") : undefined), `${count} watch record(s)`);
const reasons = (traces: WatchTrace[]) =>
	traces.flatMap((t) => (t.type === "decided" && !t.decision.review ? [t.decision.reason] : []));

describe("what wakes the watch", () => {
	it("off (the default): three failures make no advisor call and leave nothing", async () => {
		const { host: h, traces } = await start({
			advisorConfig: { ...CONFIG, watch: { enabled: false } },
			executor: [...failures(3), answer("Giving up.")],
		});
		await h.runtime.session.prompt("Read the notes.");
		await settle();
		expect(traces).toEqual([]);
		expect(h.advisorCalls).toHaveLength(0);
		expect(usageOf(h, "watch")).toEqual([]);
	});

	it("no advisor selected: nothing, not even a decision", async () => {
		const { host: h, traces } = await start({
			advisorConfig: { watch: WATCH },
			executor: [...failures(3), answer("Giving up.")],
		});
		await h.runtime.session.prompt("Read the notes.");
		await settle();
		expect(traces).toEqual([]);
		expect(h.advisorCalls).toHaveLength(0);
	});

	it("quiet turns decide without a model call; the third failure starts one review, in watch mode", async () => {
		const held = gate();
		const { host: h, traces } = await start({
			executor: [...failures(3), answer("Giving up.")],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage("Severity: none\nFine.");
				},
			],
		});
		await h.runtime.session.prompt("Read the notes.");
		// prompt() is back while the review waits: the executor was not held up.
		await waitFor(() => h.advisorCalls.length === 1, "the watch request");
		expect(usageOf(h, "watch")).toEqual([]);
		held.release();
		const [record] = await waitForRecords(h, 1);
		// Two quiet turns, the review, and the answer's turn (no tools: the completion review's).
		expect(reasons(traces)).toEqual(["quiet", "quiet", "no-new-round"]);
		const request = h.advisorCalls[0]!.context;
		const parts = (request.messages.at(-1)!.content as { text: string }[]).map((p) => p.text);
		expect(parts.at(-1)).toBe(WATCH_INSTRUCTION);
		expect(parts.join("")).toContain("`read notes.md` failed 3 times with no pass between");
		expect(h.advisorCalls[0]!.sessionId).toBe(`advisor:${h.sessionId()}`);
		const results = h.entries().filter((e: any) => e.type === "message" && e.message.role === "toolResult");
		expect(record).toMatchObject({
			kind: "watch",
			model: `${ADVISOR_PROVIDER}:${ADVISOR_MODEL}`,
			signal: "failure-streak",
			atEntryId: results[2]!.id,
			outcome: "advice",
			severity: "none",
			delivery: "none",
			request: { messageCount: request.messages.length },
		});
		expect(record.usage.input).toBeGreaterThan(0);
		expect(notes(h)).toEqual([]);
	});
});

describe("a finding the guards skip is recorded, so it is not tried again", () => {
	it("cooldown: the sixth failure, two rounds after the review, is skipped and recorded; the watch asks once", async () => {
		const { host: h, traces } = await start({
			advisorConfig: { ...CONFIG, watch: { ...WATCH, cooldownRounds: 10 } },
			executor: [...failures(6), answer("Giving up.")],
			advisor: [fauxAssistantMessage("Severity: none\nFine.")],
		});
		const reviewed = waitForRecords(h, 1);
		// The review answers before the executor's fourth request is sent (faux: no network).
		await h.runtime.session.prompt("Read the notes.");
		await reviewed;
		const records = await waitForRecords(h, 2);
		expect(records).toMatchObject([
			{ outcome: "advice", delivery: "none" },
			{ outcome: "skipped", delivery: "not-reviewed", errorMessage: "cooldown", signal: "failure-streak" },
		]);
		expect(records[1].usage.input).toBe(0);
		expect(h.advisorCalls).toHaveLength(1);
		expect(reasons(traces)).toContain("cooldown");
	});

	it("prompt-cap and over-share: skipped before any request, each recorded with its reason", async () => {
		const capped = await start({
			advisorConfig: { ...CONFIG, watch: { ...WATCH, maxNotesPerPrompt: 0 } },
			executor: [...failures(3), answer("Giving up.")],
		});
		await capped.host.runtime.session.prompt("Read the notes.");
		expect(await waitForRecords(capped.host, 1)).toMatchObject([
			{ model: `${ADVISOR_PROVIDER}:${ADVISOR_MODEL}`, outcome: "skipped", errorMessage: "prompt-cap" },
		]);
		expect(capped.host.advisorCalls).toHaveLength(0);
		await capped.host.dispose();
		host = undefined;

		// A priced advisor and a free executor: any review is over any share of $0.
		const shared = await start({
			advisorConfig: { ...CONFIG, watch: { ...WATCH, maxShare: 0.1 } },
			advisorProvider: {
				provider: ADVISOR_PROVIDER,
				models: [
					{
						id: ADVISOR_MODEL,
						name: "Advisor One",
						cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6 },
					},
				],
			},
			executor: [...failures(3), answer("Giving up.")],
		});
		await shared.host.runtime.session.prompt("Read the notes.");
		const [record] = await waitForRecords(shared.host, 1);
		expect(record).toMatchObject({ outcome: "skipped", delivery: "not-reviewed", errorMessage: "over-share" });
		expect(shared.host.advisorCalls).toHaveLength(0);
	});
});

describe("what a review becomes when it settles after the run", () => {
	it("a concern is queued for the next prompt, and reaches its first request", async () => {
		const held = gate();
		const seen: Context[] = [];
		const { host: h } = await start({
			executor: [...failures(3), answer("Giving up."), recording(seen, "Creating it now.")],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage(CONCERN);
				},
			],
		});
		await h.runtime.session.prompt("Read the notes.");
		held.release();
		const [record] = await waitForRecords(h, 1);
		expect(record).toMatchObject({ severity: "concern", delivery: "queued" });
		// Queued, not yet in the session: it comes with the next prompt.
		expect(notes(h)).toEqual([]);
		await h.runtime.session.prompt("Go on.");
		expect(notes(h)).toHaveLength(1);
		expect(notes(h)[0].details).toMatchObject({ severity: "concern", triggerTurn: false, advice: CONCERN });
		const texts = seen[0]!.messages.map((m) => textOf(m as never));
		expect(texts.some((t) => t.startsWith("Advisor note (it watches your run") && t.includes(CONCERN))).toBe(true);
	});

	it("a blocker starts one executor turn, whose answer wakes nothing", async () => {
		const held = gate();
		const seen: Context[] = [];
		const BLOCKER = "Severity: blocker\nnotes.md does not exist; ask the user where the notes are.";
		const { host: h, traces } = await start({
			executor: [...failures(3), answer("Giving up."), recording(seen, "Asking the user.")],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage(BLOCKER);
				},
			],
		});
		await h.runtime.session.prompt("Read the notes.");
		held.release();
		await waitFor(() => seen.length === 1, "the blocker's turn");
		const [record] = usageOf(h, "watch");
		expect(record).toMatchObject({ severity: "blocker", delivery: "turn" });
		expect(notes(h)).toHaveLength(1);
		expect(notes(h)[0].details).toMatchObject({ triggerTurn: true });
		expect(textOf(seen[0]!.messages.at(-1) as never)).toContain(BLOCKER);
		await settle();
		expect(h.advisorCalls).toHaveLength(1);
		expect(traces.filter((t) => t.type === "started")).toHaveLength(1);
	});

	it("a nit is kept in its record, never injected; a review whose streak passed meanwhile is stale", async () => {
		const nit = gate();
		const kept = await start({
			executor: [...failures(3), answer("Giving up.")],
			advisor: [
				async () => {
					await nit.promise;
					return fauxAssistantMessage("Severity: nit\nMention the path you tried.");
				},
			],
		});
		await kept.host.runtime.session.prompt("Read the notes.");
		nit.release();
		expect(await waitForRecords(kept.host, 1)).toMatchObject([
			{ severity: "nit", delivery: "kept", advice: "Severity: nit\nMention the path you tried." },
		]);
		await settle();
		expect(notes(kept.host)).toEqual([]);
		await kept.host.dispose();
		host = undefined;

		const stale = gate();
		const fixed = await start({
			executor: [
				...failures(3),
				// The fourth read finds the file (the user wrote it meanwhile): the streak has passed.
				after(
					async () => writeFileSync(join(host!.cwd, "notes.md"), "# notes\n"),
					fauxAssistantMessage([fauxToolCall("read", { path: "notes.md" }, { id: "ok1" })], {
						stopReason: "toolUse",
					}),
				),
				answer("Read them."),
			],
			advisor: [
				async () => {
					await stale.promise;
					return fauxAssistantMessage(CONCERN);
				},
			],
		});
		await fixed.host.runtime.session.prompt("Read the notes.");
		stale.release();
		expect(await waitForRecords(fixed.host, 1)).toMatchObject([
			{ severity: "concern", delivery: "stale", advice: CONCERN },
		]);
		await settle();
		expect(notes(fixed.host)).toEqual([]);
	});
});

describe("one background review at a time, with the completion review", () => {
	const BOTH = { ...CONFIG, review: { enabled: true, minToolCalls: 1 } };

	it("the answer that ends while the watch reviews waits; a watch review that saw the last tool call counts", async () => {
		const held = gate();
		const { host: h, reviews } = await start({
			advisorConfig: BOTH,
			executor: [...failures(3), answer("Giving up.")],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage(CONCERN);
				},
			],
		});
		await h.runtime.session.prompt("Read the notes.");
		await waitFor(() => reviews.length === 1, "the completion review's decision");
		expect(reviews).toMatchObject([{ type: "not-started", reason: "in-flight" }]);
		held.release();
		await waitForRecords(h, 1);
		await waitFor(() => reviews.length === 2, "the completion review's second decision");
		expect(reviews[1]).toMatchObject({ type: "not-started", reason: "consulted-after-last-tool-call" });
		expect(h.advisorCalls).toHaveLength(1);
	});

	it("new work after the watch's point: the completion review runs once the watch is done", async () => {
		const held = gate();
		const { host: h, reviews } = await start({
			advisorConfig: BOTH,
			executor: [
				...failures(3),
				fauxAssistantMessage([fauxToolCall("read", { path: "README.md" }, { id: "ok1" })], {
					stopReason: "toolUse",
				}),
				answer("Read the README instead."),
			],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage("Severity: none\nFine.");
				},
				fauxAssistantMessage("Severity: none\nThe README answer is fine."),
			],
		});
		await h.runtime.session.prompt("Read the notes.");
		await waitFor(() => reviews.length === 1, "the completion review's decision");
		expect(reviews[0]).toMatchObject({ type: "not-started", reason: "in-flight" });
		held.release();
		const records = await waitFor(
			() => (usageOf(h, "review").length === 1 ? usageOf(h, "review") : undefined),
			"the completion review",
		);
		expect(records[0]).toMatchObject({ outcome: "advice", severity: "none" });
		expect(h.advisorCalls).toHaveLength(2);
		// One after the other: the review's request came after the watch's record.
		const order = h.entries().filter((e: any) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage);
		expect(order.map((e: any) => e.data.kind)).toEqual(["watch", "review"]);
	});
});

describe("the session changes under a watch review in flight", () => {
	it.each([
		["compaction", "session_before_compact"],
		["tree navigation", "session_before_tree"],
		["a session switch", "session_before_switch"],
		["a fork", "session_before_fork"],
		["shutdown", "session_shutdown"],
	] as const)("%s cancels it; its usage is recorded in its session, nothing shown", async (_, reason) => {
		let asked = false;
		const { host: h, traces } = await start({
			executor: [...failures(3), answer("Giving up.")],
			advisor: [untilAborted(() => (asked = true))],
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		await h.runtime.session.prompt("Read the notes.");
		await waitFor(() => asked, "the watch request");
		const sm = h.runtime.session.sessionManager;
		const file = h.runtime.session.sessionFile!;
		const user = h.entries().find((e: any) => e.type === "message" && e.message.role === "user")!;
		if (reason === "session_before_compact") {
			h.executor.appendResponses([fauxAssistantMessage("## Goal\nRead the notes.")]);
			await h.runtime.session.compact();
		} else if (reason === "session_before_tree") await h.runtime.session.navigateTree(user.id, { summarize: false });
		else if (reason === "session_before_switch") await h.runtime.newSession();
		else if (reason === "session_before_fork") await h.runtime.fork(user.id, { position: "at" });
		else await h.runtime.dispose();
		const records = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l))
			.filter((e) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage);
		expect(records.map((e) => e.data)).toMatchObject([{ kind: "watch", outcome: "cancelled", delivery: "none" }]);
		expect(traces.at(-1)).toMatchObject({ type: "settled", outcome: "cancelled", cancelledBy: reason });
		expect(sm.getEntries().some((e: any) => e.customType === CUSTOM_TYPES.watch)).toBe(false);
	});
});

describe("without a UI", () => {
	it("a session quitting while a review is in flight waits for it: recorded with its answer, not cancelled", async () => {
		const held = gate();
		const { host: h } = await start({
			ui: false,
			executor: [...failures(3), answer("Giving up.")],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage(CONCERN) as AssistantMessage;
				},
			],
		});
		await h.runtime.session.prompt("Read the notes.");
		await waitFor(() => h.advisorCalls.length === 1, "the watch request");
		const file = h.runtime.session.sessionFile!;
		setTimeout(() => held.release(), 50);
		await h.runtime.dispose();
		const entries = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		const records = entries.filter((e) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage);
		expect(records.map((e) => e.data)).toMatchObject([{ kind: "watch", outcome: "advice", delivery: "queued" }]);
		// Stored once the run is over, where a later reader of the session finds it.
		expect(entries.filter((e) => e.type === "custom_message" && e.customType === CUSTOM_TYPES.watch)).toHaveLength(1);
	});
});

describe("/advisor watch in a session", () => {
	it("turns it on for the next request: the executor's guidelines say what a note is; off takes it out again", async () => {
		const seen: Context[] = [];
		const { host: h } = await start({
			advisorConfig: { ...CONFIG, watch: { ...WATCH, enabled: false } },
			executor: [recording(seen, "One."), recording(seen, "Two."), recording(seen, "Three.")],
		});
		await h.runtime.session.prompt("Hello.");
		await h.runtime.session.prompt("/advisor watch");
		expect(JSON.parse(readFileSync(h.configFile, "utf8")).watch.enabled).toBe(true);
		expect(h.notifications.at(-1)?.message).toMatch(/^Advisor watch on: /);
		await h.runtime.session.prompt("Again.");
		await h.runtime.session.prompt("/advisor watch off");
		await h.runtime.session.prompt("Once more.");
		expect(seen.map((c) => c.systemPrompt?.includes(WATCH_PROMPT_GUIDELINE))).toEqual([false, true, false]);
		// The advisor tool stays in the executor's set throughout.
		expect(h.runtime.session.getActiveToolNames()).toContain("advisor");
	});
});
