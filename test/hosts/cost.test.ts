/**
 * What a consultation costs, on the real `pi` CLI of each host, against a 127.0.0.1 mock that counts
 * tokens from what it is sent (chars / 4) and prices them as models.json says ($3 in, $15 out per
 * million, no cache). Three print-mode runs on one session; in each, the executor consults once and the
 * advisor investigates three rounds before it answers (four requests). Every consultation's bill stays
 * within the "at most" it was held to; the first is estimated from the documented prior, the third —
 * with two consultations of three rounds on record — within 25% of what it bills.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	ADVISOR_MODEL,
	API_KEY,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	EXTENSION_ENTRY,
	printArgs,
	readJsonl,
	runPi,
	type Sandbox,
} from "../support/hosts.ts";
import { type MockReply, type MockServer, startMockOpenAI } from "../support/mock-openai.ts";

const PRICES = { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 };
const ROUNDS = 3;
const PROMPTS = [
	"Add a CONTRIBUTING file, please.",
	"Now add a short section on running the tests.",
	"Finally, mention the licence in it.",
];

let call = 0;
/** The executor consults once per prompt, then answers; the advisor lists the project three times, then advises. */
function route(body: any): MockReply {
	const tools = (body.messages as any[]).filter((m) => m.role === "tool").length;
	if (body.model === ADVISOR_MODEL) {
		if (tools < ROUNDS) return { kind: "toolCall", id: `ls_${++call}`, name: "ls", arguments: "{}" };
		return { kind: "text", text: `Severity: nit\nLooked ${tools} times; ${"the plan holds. ".repeat(20)}` };
	}
	const last = body.messages.at(-1);
	if (last.role === "tool") return { kind: "text", text: "Done." };
	return { kind: "toolCall", text: "Is this plan right?", id: `adv_${++call}`, name: "advisor", arguments: "{}" };
}

describeEachHost("what a consultation costs — pi --print", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let results: any[] = [];

	beforeAll(async () => {
		server = await startMockOpenAI(route, { usage: "measured" });
		sandbox = createSandbox(server.baseUrl);
		writeFileSync(
			join(sandbox.agentDir, "models.json"),
			JSON.stringify({
				providers: {
					mock: {
						baseUrl: server.baseUrl,
						api: "openai-completions",
						apiKey: API_KEY,
						compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
						models: [
							{ id: EXECUTOR_MODEL, name: "Mock Executor", contextWindow: 64000, maxTokens: 1024 },
							{ id: ADVISOR_MODEL, name: "Mock Advisor", contextWindow: 64000, maxTokens: 1024, cost: PRICES },
						],
					},
				},
			}),
		);
		for (const [i, prompt] of PROMPTS.entries()) {
			const extra = ["-e", EXTENSION_ENTRY, ...(i === 0 ? [] : ["--continue"])];
			const run = await runPi(host, printArgs(sandbox, prompt, extra), sandbox);
			expect(run.stderr).toBe("");
			expect(run.code).toBe(0);
		}
		const [file] = sandbox.sessionFiles();
		results = readJsonl(file!)
			.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "advisor")
			.map((e) => e.message.details);
	}, 240_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("three consultations, each of three investigation rounds and an answer: four requests", () => {
		expect(results).toHaveLength(3);
		for (const details of results) {
			expect(details.severity).toBe("nit");
			expect(details.attempts).toHaveLength(ROUNDS + 1);
			expect(details.toolCalls).toEqual({ count: ROUNDS, names: ["ls", "ls", "ls"] });
		}
	});

	it("no consultation bills more than the at most it was held to", () => {
		for (const details of results) {
			const billed = details.usage.cost.total;
			expect(billed).toBeGreaterThan(0);
			expect(details.estimate.limitUsd).toBe(details.estimate.atMostUsd);
			expect(billed).toBeLessThanOrEqual(details.estimate.limitUsd);
		}
	});

	it("the first is estimated from the prior; with two on record the third is estimated within 25% of its bill", () => {
		expect(results.map((d) => d.estimate.basis)).toEqual(["prior", "history", "history"]);
		const third = results[2]!;
		const billed = third.usage.cost.total as number;
		const estimated = third.estimate.consultationUsd as number;
		expect(third.estimate.expectedRounds).toBe(ROUNDS);
		expect(Math.abs(estimated - billed) / billed).toBeLessThanOrEqual(0.25);
		const first = results[0]!;
		console.log(
			`[cost] ${host.label}: consultation 1 estimated $${first.estimate.consultationUsd.toFixed(6)} (prior), billed $${first.usage.cost.total.toFixed(6)}, at most $${first.estimate.atMostUsd.toFixed(6)}; consultation 3 estimated $${estimated.toFixed(6)} (history), billed $${billed.toFixed(6)} (${((100 * (estimated - billed)) / billed).toFixed(1)}%), at most $${third.estimate.atMostUsd.toFixed(6)}`,
		);
	});
});
