/**
 * Each host's SDK (createAgentSession) in a child process under the host's own Node, the
 * extension loaded from its path by the host's loader, both models served by a 127.0.0.1 mock.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	consultationRoute,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	EXTENSION_ENTRY,
	expectOneConsultation,
	FINAL,
	PROMPT,
	type ProcessResult,
	REPO_ROOT,
	runNode,
	type Sandbox,
} from "../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../support/mock-openai.ts";

const DRIVER = join(REPO_ROOT, "test/hosts/sdk-driver.mjs");

describeEachHost("SDK createAgentSession with the extension path", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;

	beforeAll(async () => {
		server = await startMockOpenAI(consultationRoute);
		sandbox = createSandbox(server.baseUrl);
		writeFileSync(
			join(sandbox.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: "mock", defaultModel: EXECUTOR_MODEL, defaultThinkingLevel: "off" }),
		);
		result = await runNode(
			host.node,
			[DRIVER, host.sdk, EXTENSION_ENTRY, sandbox.project, sandbox.agentDir, sandbox.sessions, PROMPT],
			{ cwd: sandbox.project, env: sandbox.env },
		);
	}, 120_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("loads the extension without errors and ends on the executor's final answer", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		const out = JSON.parse(result.stdout);
		expect(out.extensionErrors).toEqual([]);
		expect(out.tools).toContain("advisor");
		expect(out.lastText).toBe(FINAL);
		expect(out.sessionFile.startsWith(sandbox.sessions)).toBe(true);
	});

	it("consults: the advisor request has the ledger's shape and the advice is the tool result", () => {
		const { sessionFile } = JSON.parse(result.stdout);
		expectOneConsultation(server.requests, sessionFile);
	});
});
