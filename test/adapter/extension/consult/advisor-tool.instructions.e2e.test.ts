/**
 * The user's standing instructions reach the advisor, on both hosts (docs/request-format.md#standing-instructions):
 * with an AGENTS.md in the project and context files on, the advisor request's head carries it —
 * read from the session's system message on Pi 1.x, from the host's system prompt on Pi 0.73.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	ADVISOR_MODEL,
	consultationRoute,
	createSandbox,
	describeEachHost,
	EXTENSION_ENTRY,
	type ProcessResult,
	printArgs,
	runPi,
	type Sandbox,
} from "../../../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../../../support/mock-openai.ts";

const AGENTS = "# House rules\n\n- Run `npm test` before every commit.\n- Never touch `src/generated/`.\n";

function partsOf(message: any): string[] {
	if (typeof message.content === "string") return [message.content];
	return message.content.filter((p: any) => p.type === "text").map((p: any) => p.text);
}

describeEachHost("standing instructions in the advisor's request", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;
	beforeAll(async () => {
		server = await startMockOpenAI(consultationRoute);
		sandbox = createSandbox(server.baseUrl);
		writeFileSync(join(sandbox.project, "AGENTS.md"), AGENTS);
		// Context files on: the flag that keeps them out is dropped.
		const args = printArgs(sandbox, "Add a CONTRIBUTING file, please.", ["-e", EXTENSION_ENTRY]).filter(
			(a) => a !== "--no-context-files",
		);
		result = await runPi(host, args, sandbox);
	}, 120_000);
	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("the head carries AGENTS.md, named by its path, after the catalogue", () => {
		expect(result.code, result.stderr).toBe(0);
		const advisor = server.requests.filter((r) => r.body.model === ADVISOR_MODEL);
		expect(advisor).toHaveLength(1);
		const head = partsOf(advisor[0]!.body.messages[1]);
		expect(head).toHaveLength(2);
		expect(head[0]!.startsWith("<tool_catalogue>\n")).toBe(true);
		expect(head[1]!.startsWith("<standing_instructions>\n")).toBe(true);
		expect(head[1]).toMatch(/\n\[instructions(?: #\w+)? · AGENTS\.md\]\n# House rules\n/);
		expect(head[1]).toContain("- Never touch `src/generated/`.");
	});
});
