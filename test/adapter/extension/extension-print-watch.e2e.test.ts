/**
 * The watch with the real `pi` CLI of each host in print mode, against a 127.0.0.1 mock
 * (docs/configuration.md#the-watch): an executor that runs the same failing test three times gets
 * exactly one watch review; the advisor's `concern` reaches the executor's next request in the same
 * run, and the turn it causes wakes no second review; a `none` injects nothing, and a review still
 * in flight when the run ends is waited for; every review leaves its usage record and `/advisor
 * stats` counts it; a calm run makes no advisor request at all.
 *
 * Timing: the review starts at the third failure's turn_end and runs beside the executor, which
 * never waits for it. So that the note has something to reach within the run, the mock holds the
 * executor's fourth answer until the review's usage record is in the session file — the record is
 * written, and the note steered, in the same tick — instead of guessing a delay. For the wait at
 * the end it is the other way round: the advisor's answer is held until the executor's last answer
 * has been sent.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WATCH_INSTRUCTION } from "../../../src/render/index.ts";
import {
	createSandbox,
	describeEachHost,
	EXTENSION_ENTRY,
	type PiHost,
	type ProcessResult,
	printArgs,
	readJsonl,
	runPi,
	type Sandbox,
} from "../../support/hosts.ts";
import { type MockReply, type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

const PROMPT = "Make the sum test pass.";
const FAILING = "node test/sum.test.mjs";
const CONCERN =
	"Severity: concern\nStop re-running it: the test asserts 1 + 1 === 3. Fix the expectation in test/sum.test.mjs.";
const NONE = "Severity: none\nThe failure is what the task is about; carry on.";
const GIVE_UP = "The test expects 1 + 1 to be 3; I stop here.";
const NOTE_START = "Advisor note (it watches your run, and stepped in because";
const WATCH_CONFIG = { watch: { enabled: true }, tools: { enabled: false } };

function textOf(message: any): string {
	if (typeof message.content === "string") return message.content;
	return (message.content ?? []).map((p: any) => p.text ?? "").join("");
}

const bash = (id: string, command: string) => ({ id, name: "bash", arguments: JSON.stringify({ command }) });
const results = (body: any) => body.messages.filter((m: any) => m.role === "tool").length;
const sawNote = (body: any) => body.messages.some((m: any) => m.role === "user" && textOf(m).startsWith(NOTE_START));

/** The watch's usage records of a session file, as soon as there is one. */
function watchRecords(sandbox: Sandbox): any[] {
	const file = sandbox.sessionFiles()[0];
	if (file === undefined) return [];
	const lines = readFileSync(file, "utf8").trim().split("\n");
	return lines
		.map((line) => {
			try {
				return JSON.parse(line);
			} catch {
				return undefined;
			}
		})
		.filter((e) => e?.type === "custom" && e.customType === "advisor-usage" && e.data?.kind === "watch");
}

/** Resolves once the session file holds a watch usage record (polled; bounded by the test's timeout). */
async function recorded(sandbox: () => Sandbox): Promise<void> {
	while (watchRecords(sandbox()).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * The failing test three times (one a turn); the fourth answer held until the review is recorded,
 * then two more failures at once; the next turn, which sees the note, fails once more (the sixth
 * failure: a streak the watch would look at again, but this is the note's turn); then it gives up.
 */
function failingRoute(advisor: string, sandbox: () => Sandbox, afterReview: "more" | "stop") {
	let lastAnswerSent = () => {};
	const ended = new Promise<void>((resolve) => {
		lastAnswerSent = resolve;
	});
	return (body: any): MockReply => {
		if (body.model === "advisor-1") {
			// "stop": the run ends first, with the review in flight.
			const hold = afterReview === "stop" ? ended.then(() => new Promise((r) => setTimeout(r, 300))) : undefined;
			return { kind: "text", text: advisor, ...(hold !== undefined ? { hold } : {}) };
		}
		const n = results(body);
		if (n < 3) return { kind: "toolCall", ...bash(`call_f${n + 1}`, FAILING) };
		if (n === 3) {
			if (afterReview === "stop") {
				setTimeout(lastAnswerSent, 0);
				return { kind: "text", text: GIVE_UP };
			}
			const hold = recorded(sandbox);
			return { kind: "toolCalls", calls: [bash("call_f4", FAILING), bash("call_f5", FAILING)], hold };
		}
		if (n === 5) return { kind: "toolCall", ...bash("call_f6", FAILING) };
		return { kind: "text", text: GIVE_UP };
	};
}

interface Run {
	server: MockServer;
	sandbox: Sandbox;
	result: ProcessResult;
	entries: any[];
}

async function runWatch(
	host: PiHost,
	route: (sandbox: () => Sandbox) => (body: any) => MockReply,
	prompts: string[],
): Promise<Run> {
	let sandbox: Sandbox | undefined;
	const server = await startMockOpenAI(route(() => sandbox!));
	sandbox = createSandbox(server.baseUrl, WATCH_CONFIG);
	mkdirSync(join(sandbox.project, "test"));
	writeFileSync(
		join(sandbox.project, "test/sum.test.mjs"),
		'import assert from "node:assert/strict";\nassert.equal(1 + 1, 3, "sum(1, 1) should be 3");\n',
	);
	const [first, ...rest] = prompts;
	const args = [...printArgs(sandbox, first!, ["-e", EXTENSION_ENTRY]), ...rest];
	const started = Date.now();
	const result = await runPi(host, args, sandbox);
	process.stderr.write(`[watch e2e] ${host.label}: ${Date.now() - started} ms\n`);
	const files = sandbox.sessionFiles();
	expect(files).toHaveLength(1);
	return { server, sandbox, result, entries: readJsonl(files[0]!) };
}

async function close(run: Run | undefined): Promise<void> {
	await run?.server.close();
	run?.sandbox.dispose();
}

const executorRequests = (server: MockServer) => server.requests.filter((r) => r.body.model === "exec-1");
const advisorRequests = (server: MockServer) => server.requests.filter((r) => r.body.model === "advisor-1");
const usageRecords = (entries: any[]) =>
	entries.filter((e) => e.type === "custom" && e.customType === "advisor-usage").map((e) => e.data);
const watchNotes = (entries: any[]) =>
	entries.filter((e) => e.type === "custom_message" && e.customType === "advisor-watch");
const toolResultIds = (entries: any[]) =>
	entries.filter((e) => e.type === "message" && e.message.role === "toolResult").map((e) => e.id);

describeEachHost("pi -p with the watch on", (host) => {
	describe("the same failing test three times, the advisor concerned", () => {
		let run: Run;
		beforeAll(async () => {
			run = await runWatch(host, (sandbox) => failingRoute(CONCERN, sandbox, "more"), [PROMPT, "/advisor stats"]);
		}, 120_000);
		afterAll(() => close(run));

		it("exits 0; the run went on to its end", () => {
			expect(run.result.code).toBe(0);
			expect(executorRequests(run.server)).toHaveLength(6);
		});

		it("one watch review, in watch mode, naming the three failures", () => {
			const advisor = advisorRequests(run.server);
			expect(advisor).toHaveLength(1);
			const last = advisor[0]!.body.messages.at(-1);
			expect(last.role).toBe("user");
			const text = textOf(last);
			expect(text.endsWith(WATCH_INSTRUCTION)).toBe(true);
			// The run's streak and its error line's both reach three at this turn: one review, named by the run.
			expect(text).toMatch(
				/<advisor_watch>\n`test test\/sum\.test\.mjs` failed 3 times with no pass between \(#\w+, #\w+, #\w+\); newest error: AssertionError \[ERR_ASSERTION\]: sum\(1, 1\) should be 3\n<\/advisor_watch>/,
			);
		});

		it("its usage record is written, the concern steered, at the third failure's turn", () => {
			const records = usageRecords(run.entries);
			expect(records).toHaveLength(1);
			expect(records[0]).toMatchObject({
				kind: "watch",
				model: "mock:advisor-1",
				signal: "failure-streak",
				outcome: "advice",
				severity: "concern",
				delivery: "steered",
				atEntryId: toolResultIds(run.entries)[2],
			});
			expect(records[0].usage.input).toBe(100);
			const notes = watchNotes(run.entries);
			expect(notes).toHaveLength(1);
			expect(notes[0].details).toMatchObject({ advice: CONCERN, severity: "concern", triggerTurn: false });
			expect(notes[0].content).toMatch(
				/^Advisor note \(it watches your run, and stepped in because `test test\/sum\.test\.mjs` failed 3 times/,
			);
		});

		it("the note reaches the executor's next request in the same run, not the one already held", () => {
			const executor = executorRequests(run.server);
			expect(executor.slice(0, 4).some((r) => sawNote(r.body))).toBe(false);
			const fifth = executor[4]!.body.messages;
			expect(fifth.filter((m: any) => textOf(m).startsWith(NOTE_START))).toHaveLength(1);
			expect(textOf(fifth.find((m: any) => textOf(m).startsWith(NOTE_START)))).toContain(CONCERN);
		});

		it("the turn the note caused (a sixth failure) wakes no second review, and leaves no record", () => {
			expect(results(executorRequests(run.server)[5]!.body)).toBe(6);
			expect(advisorRequests(run.server)).toHaveLength(1);
			expect(usageRecords(run.entries)).toHaveLength(1);
		});

		it("/advisor stats counts it", () => {
			const stderr = run.result.stderr;
			expect(stderr).toContain("Advisor on this branch");
			expect(stderr).toContain(
				"  watch: 1 review (failure-streak 1), $0.000 (the executor's turns recorded no cost)",
			);
			expect(stderr).toContain("    answers: concern 1 — steered 1");
		});
	});

	describe("the same failing test three times, the run over before the advisor answers nothing wrong", () => {
		let run: Run;
		beforeAll(async () => {
			run = await runWatch(host, (sandbox) => failingRoute(NONE, sandbox, "stop"), [PROMPT]);
		}, 120_000);
		afterAll(() => close(run));

		it("the run waits for the review: recorded with its verdict, not cancelled; nothing is injected", () => {
			expect(run.result.code).toBe(0);
			expect(advisorRequests(run.server)).toHaveLength(1);
			expect(usageRecords(run.entries)).toMatchObject([
				{ kind: "watch", outcome: "advice", severity: "none", delivery: "none" },
			]);
			expect(watchNotes(run.entries)).toHaveLength(0);
			// Settled after the run's last answer, and still recorded: the run waited for it.
			const answerAt = run.entries.findIndex((e) => e.type === "message" && textOf(e.message) === GIVE_UP);
			const recordAt = run.entries.findIndex((e) => e.type === "custom" && e.customType === "advisor-usage");
			expect(answerAt).toBeGreaterThan(-1);
			expect(recordAt).toBeGreaterThan(answerAt);
			const executor = executorRequests(run.server);
			expect(executor).toHaveLength(4);
			expect(executor.some((r) => sawNote(r.body))).toBe(false);
			expect(run.result.stdout.trim()).toBe(GIVE_UP);
		});
	});

	describe("a calm run", () => {
		let run: Run;
		beforeAll(async () => {
			let calls = 0;
			const calm =
				() =>
				(body: any): MockReply => {
					if (results(body) < 3) return { kind: "toolCall", ...bash(`call_ok${++calls}`, "node --version") };
					return { kind: "text", text: "All good." };
				};
			run = await runWatch(host, calm, [PROMPT]);
		}, 120_000);
		afterAll(() => close(run));

		it("a few passing tool calls make no advisor request and leave no record", () => {
			expect(run.result.code).toBe(0);
			expect(toolResultIds(run.entries)).toHaveLength(3);
			expect(advisorRequests(run.server)).toHaveLength(0);
			expect(usageRecords(run.entries)).toHaveLength(0);
			expect(run.result.stdout.trim()).toBe("All good.");
		});
	});
});
