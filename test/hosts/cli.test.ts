/**
 * The real `pi` CLI of each host in print mode, the extension loaded with
 * `-e src/adapter/pi-advisor-ledger.ts`, both models served by a 127.0.0.1 OpenAI-compatible mock:
 * one consultation, seen from the server and from the session file.
 */

import { afterAll, beforeAll, expect, it } from "vitest";
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

describeEachHost("pi --print -e src/adapter/pi-advisor-ledger.ts", (host) => {
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
});
