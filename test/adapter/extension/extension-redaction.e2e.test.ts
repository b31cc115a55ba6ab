/**
 * Secrets stay home, end to end on the real `pi` CLI of each host with the mock OpenAI server: the
 * executor reads `.env` (`API_TOKEN=sk-live-…`), then `config.json` holding the same key, then asks
 * the advisor with the token in its question. The bytes the server received for the advisor
 * request carry no credential: the `.env` read is withheld by the deny list, the rest are typed marks.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WITHHELD_READ_TEXT } from "../../../src/events/index.ts";
import { ALNUM, randomText } from "../../events/redact/credentials.ts";
import {
	ADVISOR_MODEL,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	EXTENSION_ENTRY,
	type ProcessResult,
	printArgs,
	readJsonl,
	runPi,
	type Sandbox,
} from "../../support/hosts.ts";
import type { MockReply } from "../../support/mock-openai.ts";
import { type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

const TOKEN = `sk-live-${randomText(97, 32, ALNUM)}`;
const QUESTION = `Is API_TOKEN=${TOKEN} from .env the same key config.json uses?`;
const FINAL = "Both files hold the same key.";

function route(): (body: any) => MockReply {
	let turn = 0;
	return (body) => {
		if (body.model === ADVISOR_MODEL) return { kind: "text", text: "Severity: nit\nRotate it after the check." };
		switch (++turn) {
			case 1:
				return { kind: "toolCall", id: "call_env", name: "read", arguments: '{"path":".env"}' };
			case 2:
				return { kind: "toolCall", id: "call_cfg", name: "read", arguments: '{"path":"config.json"}' };
			case 3:
				return { kind: "toolCall", text: QUESTION, id: "call_adv", name: "advisor", arguments: "{}" };
			default:
				return { kind: "text", text: FINAL };
		}
	};
}

describeEachHost("credentials the executor saw never reach the advisor's provider", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;

	beforeAll(async () => {
		server = await startMockOpenAI(route());
		// Two verbatim rounds: the withheld read is in the appendix beside the read of config.json.
		sandbox = createSandbox(server.baseUrl, { ledger: { tailToolCalls: 2 } });
		writeFileSync(join(sandbox.project, ".env"), `API_TOKEN=${TOKEN}\nPORT=3000\n`);
		writeFileSync(join(sandbox.project, "config.json"), `{\n  "apiKey": "${TOKEN}",\n  "port": 3000\n}\n`);
		result = await runPi(host, printArgs(sandbox, "Check the API keys.", ["-e", EXTENSION_ENTRY]), sandbox);
	}, 120_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("the session ran: the executor read both files with the token in them and answered", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(FINAL);
		const asking = server.requests.filter((r) => r.body.model === EXECUTOR_MODEL)[2]!;
		expect(JSON.stringify(asking.body)).toContain(TOKEN);
	});

	it("the advisor request's bytes: no credential, the typed marks and the withheld read in its place", () => {
		const advisor = server.requests.filter((r) => r.body.model === ADVISOR_MODEL);
		expect(advisor).toHaveLength(1);
		const bytes = JSON.stringify(advisor[0]!.body);
		expect(bytes).not.toContain(TOKEN);
		expect(bytes).not.toContain(TOKEN.slice(8, 24));
		expect(bytes).toContain("API_TOKEN=[redacted: api-key] from .env");
		expect(bytes).toContain('\\"apiKey\\": \\"[redacted: api-key]\\"');
		expect(bytes).toContain(WITHHELD_READ_TEXT);
		expect(bytes).toMatch(/read \.env · \d+ · withheld: deny list/);
	});

	it("the session records how many marks the request carried", () => {
		const entries = readJsonl(sandbox.sessionFiles()[0]!);
		const advice = entries.find((e) => e.type === "message" && e.message.toolName === "advisor");
		// At least the question's mark and config.json's; exactly the marks the server received.
		expect(advice.message.details.redactions).toBeGreaterThanOrEqual(2);
		const bytes = JSON.stringify(server.requests.find((r) => r.body.model === ADVISOR_MODEL)!.body);
		expect(advice.message.details.redactions).toBe(bytes.split("[redacted: ").length - 1);
	});
});
