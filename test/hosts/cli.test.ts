/**
 * The real `pi` CLI of each host in print mode, the extension loaded with
 * `-e src/adapter/extension/pi-advisor-ledger.ts`, both models served by a 127.0.0.1 OpenAI-compatible mock:
 * one consultation, seen from the server and from the session file; then `pi -p "/advisor stats"`
 * on the same session prints what the advisor cost, as the CLI reads it from the file.
 */

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { statsLines } from "../../src/adapter/extension/stats/stats-text.ts";
import { statsOfText } from "../../src/adapter/lab/stats-command.ts";
import {
	consultationRoute,
	createSandbox,
	describeEachHost,
	EXTENSION_ENTRY,
	expectOneConsultation,
	FINAL,
	PROMPT,
	type ProcessResult,
	printArgs,
	runPi,
	type Sandbox,
} from "../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../support/mock-openai.ts";

describeEachHost("pi --print -e src/adapter/extension/pi-advisor-ledger.ts", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;

	beforeAll(async () => {
		server = await startMockOpenAI(consultationRoute);
		sandbox = createSandbox(server.baseUrl);
		result = await runPi(host, printArgs(sandbox, PROMPT, ["-e", EXTENSION_ENTRY]), sandbox);
	}, 120_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("exits 0 with the executor's final answer and nothing on stderr", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(FINAL);
	});

	it("consults: the advisor request has the ledger's shape and the advice is the tool result", () => {
		const files = sandbox.sessionFiles();
		expect(files).toHaveLength(1);
		expectOneConsultation(server.requests, files[0]!);
	});

	it("`/advisor stats` prints the session's figures as plain text (stderr: Pi keeps stdout for answers), sends nothing, changes nothing", async () => {
		const file = sandbox.sessionFiles()[0]!;
		const before = readFileSync(file, "utf8");
		const requests = server.requests.length;
		const stats = await runPi(
			host,
			printArgs(sandbox, "/advisor stats", ["-e", EXTENSION_ENTRY, "--continue"]),
			sandbox,
		);
		// Print mode prints the session's last answer, as after any prompt; nothing new was asked.
		expect(stats.stdout.trim()).toBe(FINAL);
		expect(stats.code).toBe(0);
		expect(server.requests).toHaveLength(requests);
		const expected = statsOfText(before);
		if (typeof expected === "string") throw new Error(expected);
		expect(stats.stderr).toBe(`${statsLines(expected.stats).join("\n")}\n`);
		expect(stats.stderr).toContain("1 consultation, 0 reviews, 0 warming refreshes");
		expect(
			readFileSync(file, "utf8")
				.split("\n")
				.filter((l) => l.includes('"message"')),
		).toEqual(before.split("\n").filter((l) => l.includes('"message"')));
	});
});
