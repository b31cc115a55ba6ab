/**
 * What the extension says without a UI, with the real `pi` CLI of each host in print mode: Pi's
 * ctx.ui.notify is a no-op there, so /advisor's sentence and config warnings go to stderr, one
 * line each, once per read of advisor.json.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REQUIRES_INTERACTIVE } from "../../../src/adapter/extension/pi/notices.ts";
import { DEFAULT_PROMPT_SNIPPET } from "../../../src/render/index.ts";
import {
	createSandbox,
	describeEachHost,
	EXTENSION_ENTRY,
	type ProcessResult,
	printArgs,
	runPi,
	type Sandbox,
} from "../../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

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
			`advisor.json: invalid value for ledger.tailToolCalls (a whole number ≥ 0) in ${file} — using the defaults for that key\n`,
		);
		expect(result.stdout.trim()).toBe("Hello.");
		expect(result.code).toBe(0);
	});
});

/**
 * A saved modelKey Pi cannot use (docs/configuration.md): one warning naming the key, the file and
 * why; the advisor off for the run (not offered to the executor, nothing in its system prompt);
 * advisor.json left byte for byte, so a typo fixed or a key set later needs nothing typed again.
 */
function describeUnusableKey(title: string, fileText: string, warning: (file: string) => string): void {
	describeEachHost(title, (host) => {
		let server: MockServer;
		let sandbox: Sandbox;
		let result: ProcessResult;
		let file: string;
		beforeAll(async () => {
			server = await startMockOpenAI(() => ({ kind: "text", text: "Hello." }));
			sandbox = createSandbox(server.baseUrl);
			file = join(sandbox.home, ".config/pi-advisor-ledger/advisor.json");
			writeFileSync(file, fileText);
			result = await runPi(host, printArgs(sandbox, "hi", ["-e", EXTENSION_ENTRY]), sandbox);
		}, 120_000);
		afterAll(async () => {
			await server?.close();
			sandbox?.dispose();
		});

		it("prints one warning naming the key, the file and why, and answers as usual", () => {
			expect(result.stderr).toBe(`${warning(file)}\n`);
			expect(result.stdout.trim()).toBe("Hello.");
			expect(result.code).toBe(0);
		});

		it("the executor is not offered advisor(), and its system prompt does not mention it", () => {
			expect(server.requests).toHaveLength(1);
			const body = server.requests[0]!.body;
			expect((body.tools ?? []).map((t: any) => t.function.name)).not.toContain("advisor");
			expect(JSON.stringify(body.messages)).not.toContain(DEFAULT_PROMPT_SNIPPET);
		});

		it("leaves advisor.json byte for byte", () => {
			expect(readFileSync(file, "utf8")).toBe(fileText);
		});
	});
}

describeUnusableKey(
	"pi -p with a mistyped modelKey",
	// Hand-written: its own spacing and key order, no final newline.
	'{ "effort": "high",\n\t"modelKey":"mock/adv-2", "ledger": {"tailToolCalls": 3} }',
	(file) =>
		`advisor.json: modelKey "mock/adv-2" in ${file} names no model in Pi's registry (a typo, or a provider that was removed) — advisor off for this session; the file is left as it is`,
);

describeUnusableKey(
	"pi -p with a modelKey whose provider has no key",
	'{"modelKey":"openai/gpt-5"}',
	(file) =>
		`advisor.json: modelKey "openai/gpt-5" in ${file} has no credentials: Pi has no API key or login for provider openai — advisor off for this session; the file is left as it is`,
);
