/**
 * What the extension says without a UI, with the real `pi` CLI of each host in print mode: Pi's
 * ctx.ui.notify is a no-op there, so /advisor's sentence and config warnings go to stderr, one
 * line each, once per read of advisor.json.
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { REQUIRES_INTERACTIVE } from "../../src/adapter/pi/notices.ts";
import {
	createSandbox,
	describeEachHost,
	EXTENSION_ENTRY,
	type ProcessResult,
	printArgs,
	runPi,
	type Sandbox,
} from "../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../support/mock-openai.ts";

describeEachHost("pi -p /advisor", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;
	beforeAll(async () => {
		server = await startMockOpenAI(() => ({ kind: "text", text: "unused" }));
		sandbox = createSandbox(server.baseUrl);
		result = await runPi(host, printArgs(sandbox, "/advisor", ["-e", EXTENSION_ENTRY]), sandbox);
	}, 120_000);
	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("says on stderr that it needs interactive mode, and nothing else happens", () => {
		expect(result.stderr).toBe(`${REQUIRES_INTERACTIVE}\n`);
		expect(REQUIRES_INTERACTIVE).toBe("/advisor requires interactive mode");
		expect(result.stdout).toBe("");
		expect(result.code).toBe(0);
		expect(server.requests).toHaveLength(0);
	});
});

describeEachHost("pi -p with a broken advisor.json key", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;
	beforeAll(async () => {
		server = await startMockOpenAI(() => ({ kind: "text", text: "Hello." }));
		sandbox = createSandbox(server.baseUrl, { ledger: { tailToolCalls: -1 } });
		result = await runPi(host, printArgs(sandbox, "hi", ["-e", EXTENSION_ENTRY]), sandbox);
	}, 120_000);
	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("prints the warning once on stderr and answers as usual", () => {
		const file = `${sandbox.home}/.config/pi-advisor-ledger/advisor.json`;
		expect(result.stderr).toBe(
			`advisor.json: invalid value for ledger.tailToolCalls in ${file} — using the defaults for that key\n`,
		);
		expect(result.stdout.trim()).toBe("Hello.");
		expect(result.code).toBe(0);
	});
});
