/**
 * Completion review in print and JSON mode, with the real `pi` CLI of each host against a 127.0.0.1
 * mock: the run waits for the review instead of cancelling it at shutdown, a blocker gets its one
 * executor turn, and the wait is bounded by budget.timeoutSec.
 *
 * Pi 1.x awaits agent_end handlers before the run settles, so the corrected answer is what
 * `pi -p` prints. Pi 0.73's print mode prints the answer as soon as the agent stops and only then
 * disposes the session; the review, its message and the extra turn still happen (session_shutdown
 * waits for them) and land in the session file, after the earlier answer was printed.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_MESSAGE } from "../../../src/render/index.ts";
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
import { startMockLlm } from "../../support/mock-llm.ts";
import { type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

const PROMPT = "Write the release notes.";
const ANSWER = "Done: release notes written.";
const FIXED = "Fixed after review: the notes now cover the breaking change.";
const BLOCKER = "Severity: blocker\nThe breaking change to the config format is missing from the notes.";
const NIT = "Severity: nit\nMention the new flag.";

const REVIEW_CONFIG = { review: { enabled: true, minToolCalls: 1 }, tools: { enabled: false } };

function textOf(message: any): string {
	if (typeof message.content === "string") return message.content;
	return (message.content ?? []).map((p: any) => p.text ?? "").join("");
}

/** One bash call, then ANSWER; after a review message, FIXED. The advisor answers `review`. */
function route(review: string) {
	return (body: any) => {
		if (body.model === "advisor-1") return { kind: "text" as const, text: review };
		const last = body.messages.at(-1);
		if (last.role === "tool") return { kind: "text" as const, text: ANSWER };
		if (textOf(last).startsWith(REVIEW_MESSAGE(""))) return { kind: "text" as const, text: FIXED };
		return { kind: "toolCall" as const, id: "call_1", name: "bash", arguments: '{"command":"echo notes"}' };
	};
}

interface Run {
	server: MockServer;
	sandbox: Sandbox;
	result: ProcessResult;
	entries: any[];
}

async function runReview(host: PiHost, review: string, extra: string[] = []): Promise<Run> {
	const server = await startMockOpenAI(route(review));
	const sandbox = createSandbox(server.baseUrl, REVIEW_CONFIG);
	const result = await runPi(host, printArgs(sandbox, PROMPT, ["-e", EXTENSION_ENTRY, ...extra]), sandbox);
	const files = sandbox.sessionFiles();
	expect(files).toHaveLength(1);
	return { server, sandbox, result, entries: readJsonl(files[0]!) };
}

async function close(run: Run | undefined): Promise<void> {
	await run?.server.close();
	run?.sandbox.dispose();
}

const usageRecords = (entries: any[]) =>
	entries.filter((e) => e.type === "custom" && e.customType === "advisor-usage").map((e) => e.data);
const reviewMessages = (entries: any[]) =>
	entries.filter((e) => e.type === "custom_message" && e.customType === "advisor-review");
const assistantTexts = (entries: any[]) =>
	entries.filter((e) => e.type === "message" && e.message.role === "assistant").map((e) => textOf(e.message));
const executorRequests = (server: MockServer) => server.requests.filter((r) => r.body.model === "exec-1");
const advisorRequests = (server: MockServer) => server.requests.filter((r) => r.body.model === "advisor-1");

describeEachHost("pi -p with completion review on", (host) => {
	describe("a blocker", () => {
		let run: Run;
		beforeAll(async () => {
			run = await runReview(host, BLOCKER);
		}, 120_000);
		afterAll(() => close(run));

		it("exits 0 without stderr", () => {
			expect(run.result.stderr).toBe("");
			expect(run.result.code).toBe(0);
		});

		it("the review request reaches the server, in review mode, after the answer", () => {
			const advisor = advisorRequests(run.server);
			expect(advisor).toHaveLength(1);
			const log = advisor[0]!.body.messages.map(textOf).join("\n");
			expect(log).toContain(ANSWER);
			expect(log).toContain("The executor has just delivered its final answer.");
		});

		it("its usage record is the advice, billed, not a cancellation", () => {
			const records = usageRecords(run.entries);
			expect(records).toHaveLength(1);
			expect(records[0]).toMatchObject({ kind: "review", model: "mock:advisor-1", outcome: "advice" });
			expect(records[0].severity).toBe("blocker");
			expect(records[0].usage.input).toBe(100);
		});

		it("the blocker gets exactly one executor turn, then the run ends", () => {
			expect(reviewMessages(run.entries)).toHaveLength(1);
			const executor = executorRequests(run.server);
			expect(executor).toHaveLength(3);
			expect(textOf(executor[2]!.body.messages.at(-1))).toBe(REVIEW_MESSAGE(BLOCKER));
			expect(assistantTexts(run.entries).slice(-2)).toEqual([ANSWER, FIXED]);
			// The fixed answer is not reviewed again.
			expect(advisorRequests(run.server)).toHaveLength(1);
		});

		it("prints the answer the host has when it prints (Pi 1.x: the corrected one)", () => {
			expect(run.result.stdout.trim()).toBe(host.id === "pi-1.6.0" ? FIXED : ANSWER);
		});
	});

	describe("a nit", () => {
		let run: Run;
		beforeAll(async () => {
			run = await runReview(host, NIT);
		}, 120_000);
		afterAll(() => close(run));

		it("is recorded, starts no executor turn, and leaves the printed answer alone", () => {
			expect(run.result.code).toBe(0);
			expect(usageRecords(run.entries)).toMatchObject([{ kind: "review", outcome: "advice", severity: "nit" }]);
			expect(executorRequests(run.server)).toHaveLength(2);
			expect(run.result.stdout.trim()).toBe(ANSWER);
		});

		it("its message is stored after the printed answer (Pi 0.73) or queued for a next prompt (Pi 1.x)", () => {
			// Appended inside a Pi 1.x run, it would be the run's last message, and print mode prints
			// only an executor message: the answer would vanish from stdout.
			expect(reviewMessages(run.entries)).toHaveLength(host.id === "pi-1.6.0" ? 0 : 1);
		});
	});
});

describeEachHost("pi --mode json with completion review on", (host) => {
	let run: Run;
	let events: any[];
	beforeAll(async () => {
		const server = await startMockOpenAI(route(BLOCKER));
		const sandbox = createSandbox(server.baseUrl, REVIEW_CONFIG);
		const args = printArgs(sandbox, PROMPT, ["-e", EXTENSION_ENTRY, "--mode", "json"]).filter((a) => a !== "--print");
		const result = await runPi(host, args, sandbox);
		run = { server, sandbox, result, entries: readJsonl(sandbox.sessionFiles()[0]!) };
		events = result.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
	}, 120_000);
	afterAll(() => close(run));

	it("waits for the review: billed advice, one blocker turn", () => {
		expect(run.result.code).toBe(0);
		expect(advisorRequests(run.server)).toHaveLength(1);
		expect(usageRecords(run.entries)).toMatchObject([{ kind: "review", outcome: "advice", severity: "blocker" }]);
		expect(executorRequests(run.server)).toHaveLength(3);
		expect(assistantTexts(run.entries).at(-1)).toBe(FIXED);
	});

	it("the event stream stays JSON lines (Pi 1.x streams the extra turn too)", () => {
		const ends = events.filter((e) => e.type === "agent_end");
		expect(ends.length).toBeGreaterThanOrEqual(1);
		const streamed = events
			.filter((e) => e.type === "message_end" && e.message?.role === "assistant")
			.map((e) => textOf(e.message));
		expect(streamed).toContain(ANSWER);
		if (host.id === "pi-1.6.0") expect(streamed.at(-1)).toBe(FIXED);
	});
});

describeEachHost("pi -p: the wait for a review is bounded by budget.timeoutSec", (host) => {
	let result: ProcessResult;
	let entries: any[];
	let aborted: boolean[];
	beforeAll(async () => {
		// The advisor never answers; the executor answers at once (minToolCalls 0 makes it reviewable).
		const server = await startMockLlm((_api, body) =>
			body.model === "advisor-1" ? { text: "never sent", hold: new Promise(() => {}) } : { text: ANSWER },
		);
		const sandbox = createSandbox(server.baseUrl, {
			review: { enabled: true, minToolCalls: 0 },
			tools: { enabled: false },
			budget: { timeoutSec: 2 },
		});
		try {
			result = await runPi(host, printArgs(sandbox, PROMPT, ["-e", EXTENSION_ENTRY]), sandbox);
			entries = readJsonl(sandbox.sessionFiles()[0]!);
			aborted = server.requests.filter((r) => r.body.model === "advisor-1").map((r) => r.aborted);
		} finally {
			await server.close();
			sandbox.dispose();
		}
	}, 120_000);

	it("exits with the answer; the review is recorded as timed out, and nothing is delivered", () => {
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(ANSWER);
		expect(aborted).toEqual([true]);
		expect(usageRecords(entries)).toMatchObject([{ kind: "review", outcome: "timeout", errorMessage: "timeout" }]);
		expect(reviewMessages(entries)).toHaveLength(0);
	});
});
