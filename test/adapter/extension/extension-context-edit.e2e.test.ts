/**
 * The real `pi` CLI with the extension and a context editor (test/support/context-editor.ts): what
 * the editor took out of the executor's context stays out of the advisor's request, as the mock
 * server received it. Context edits are Pi 1.x: on 0.73 the test is a visible skip.
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { CONTEXT_OMITTED } from "../../../src/render/model-text.ts";
import { CE_FINAL, CE_QUESTION, contextEditRoute, runContextEditSession } from "../../support/context-edit-scenario.ts";
import { PRUNED_CONFIG } from "../../support/context-editor.ts";
import {
	ADVISOR_MODEL,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	type ProcessResult,
	readJsonl,
	type Sandbox,
} from "../../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

const ORIGINALS = ["ORIGINAL_CONFIG_MARKER", "ORIGINAL_NOTES_MARKER", "the migration runs"];

describeEachHost("context edits stay out of the advisor's request", (host) => {
	if (host.id !== "pi-1.6.0") {
		it(`SKIPPED: ${host.label}`, (ctx) => ctx.skip(`${host.label} writes no context_edit entries (Pi 1.x)`));
		return;
	}
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;

	beforeAll(async () => {
		server = await startMockOpenAI(contextEditRoute());
		// Two verbatim rounds: the pruned result shows in the appendix (the default is one).
		sandbox = createSandbox(server.baseUrl, { ledger: { tailToolCalls: 2 } });
		result = await runContextEditSession(host, sandbox);
	}, 120_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("the session ran through: the edits are in the file, the executor answered", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(CE_FINAL);
		const entries = readJsonl(sandbox.sessionFiles()[0]!);
		expect(entries.filter((entry) => entry.type === "context_edit")).toHaveLength(3);
	});

	it("the executor's own context no longer held the originals when it asked (Pi applied the edits)", () => {
		const asking = server.requests.filter((r) => r.body.model === EXECUTOR_MODEL)[2]!;
		for (const original of ORIGINALS) expect(JSON.stringify(asking.body)).not.toContain(original);
	});

	it("the advisor request bytes: the replacement and the omission, no original", () => {
		const advisor = server.requests.filter((r) => r.body.model === ADVISOR_MODEL);
		expect(advisor).toHaveLength(1);
		const bytes = JSON.stringify(advisor[0]!.body);
		for (const original of ORIGINALS) expect(bytes).not.toContain(original);
		expect(bytes).toContain(JSON.stringify(`result:\n${PRUNED_CONFIG}\n`).slice(1, -1));
		expect(bytes).toContain(JSON.stringify(CONTEXT_OMITTED).slice(1, -1));
		expect(bytes).toContain(CE_QUESTION);
	});
});
