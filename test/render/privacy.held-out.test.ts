/**
 * The held-out check of docs/privacy.md: a session that puts 13 kinds of credential in front of the
 * executor the ways a real one does — a read of `.env`, `printenv` output, a private key file, a
 * JSON config, the executor repeating a token in its prose and its reasoning, the user pasting one,
 * a bearer token in a `curl` command, an `edit` that writes a key, a compaction summary quoting
 * one, a `!` run, an extension message, past advice — consulted at 8 points. At every point the
 * request and every advisor_expand answer are searched for every credential: 0 of 13 × 8 may leak,
 * and every look-alike in the session comes through as written. Events → reducers → render.
 */

import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import { foldLedger, ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/ledger-section.ts";
import { renderRequest } from "../../src/render/request-assembly.ts";
import { flatten } from "../../src/render/request-units.ts";
import { PLANTS, privateKeyVariants } from "../events/redact/credentials.ts";
import { LOOKALIKES } from "../events/redact/lookalikes.ts";

const plant = (rule: string, seed: number) => PLANTS[rule]!(seed);

/** The 13 credentials, by what they are; `secret` is what must never leave. */
const C = {
	openai: plant("openai-api-key", 1),
	dbPassword: plant("secret-assignment", 2),
	awsId: plant("aws-access-key-id", 3),
	awsSecret: plant("aws-secret-access-key", 4),
	github: plant("github-classic", 5),
	privateKey: privateKeyVariants(6)[0]!,
	stripe: plant("stripe-key", 7),
	slackWebhook: plant("slack-incoming-webhook", 8),
	npm: plant("npm-access-token", 9),
	jwt: plant("jwt", 10),
	anthropic: plant("anthropic-api-key", 11),
	dbUrl: plant("url-password", 12),
	google: plant("google-api-key", 13),
};
const CREDENTIALS = Object.entries(C).map(([name, p]) => ({ name, secrets: p.secrets }));

/** Read as written (no redaction, no deny list): (credential × point) pairs in the requests, and within reach of advisor_expand. */
const OPEN_IN_REQUESTS = 32;
const OPEN_ANYWHERE = 82;

const USAGE = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } };
const LOCKFILE = LOOKALIKES.join("\n");

/** The session, entry by entry; `point` marks where a consultation is dispatched (8 of them). */
function session(): { jsonl: string; points: number[] } {
	const lines: unknown[] = [{ type: "session", version: 3, id: "held-out", timestamp: "t", cwd: "/home/dev/shop" }];
	const points: number[] = [];
	let n = 0;
	let parent: string | null = null;
	const add = (body: Record<string, unknown>) => {
		const id = `e${(++n).toString().padStart(3, "0")}`;
		lines.push({ id, parentId: parent, timestamp: "t", ...body });
		parent = id;
		return id;
	};
	const message = (m: Record<string, unknown>) => add({ type: "message", message: { timestamp: 0, ...m } });
	let call = 0;
	const turn = (opts: {
		text?: string;
		thinking?: string;
		tool?: [string, Record<string, unknown>];
		result?: string;
	}) => {
		const content: unknown[] = [];
		if (opts.thinking) content.push({ type: "thinking", thinking: opts.thinking });
		if (opts.text) content.push({ type: "text", text: opts.text });
		const id = `call_${++call}`;
		if (opts.tool) content.push({ type: "toolCall", id, name: opts.tool[0], arguments: opts.tool[1] });
		message({
			role: "assistant",
			content,
			provider: "p",
			model: "m",
			usage: USAGE,
			stopReason: opts.tool ? "toolUse" : "stop",
		});
		if (opts.tool && opts.result !== undefined)
			message({
				role: "toolResult",
				toolCallId: id,
				toolName: opts.tool[0],
				content: [{ type: "text", text: opts.result }],
				isError: false,
			});
	};
	const point = () => points.push(n);

	message({ role: "user", content: `Deploy the shop. My npm token for the private registry is ${C.npm.text}.` });
	turn({
		tool: ["read", { path: ".env" }],
		result: `OPENAI_API_KEY=${C.openai.text}\n${C.dbPassword.text}\nPORT=3000\n`,
	});
	point();
	turn({
		tool: ["bash", { command: "printenv | grep -E 'AWS|GITHUB'" }],
		result: `AWS_ACCESS_KEY_ID=${C.awsId.text}\nAWS_${C.awsSecret.text.replace("aws_secret_access_key = ", "SECRET_ACCESS_KEY=")}\nGITHUB_TOKEN=${C.github.text}\nNODE_ENV=production\n`,
	});
	turn({ tool: ["read", { path: "deploy/id_ed25519" }], result: C.privateKey.text });
	point();
	turn({
		tool: ["read", { path: "config/settings.json" }],
		result: JSON.stringify({ stripeSecretKey: C.stripe.text, alerts: C.slackWebhook.text, port: 3000 }, null, 2),
	});
	turn({ tool: ["read", { path: "package-lock.json" }], result: LOCKFILE });
	point();
	turn({
		text: `I'll authenticate with the GitHub token ${C.github.text} from the environment.`,
		thinking: `The Google key ${C.google.text} is only for maps.`,
		tool: ["bash", { command: `curl -H "Authorization: Bearer ${C.jwt.text}" https://api.shop.internal/health` }],
		result: '{"ok":true}',
	});
	point();
	turn({
		tool: [
			"edit",
			{
				path: ".env.example",
				edits: [{ oldText: "ANTHROPIC_API_KEY=", newText: `ANTHROPIC_API_KEY=${C.anthropic.text}` }],
			},
		],
		result: "Successfully replaced 1 block(s) in .env.example.",
	});
	add({
		type: "compaction",
		summary: `Deployed; the database is ${C.dbUrl.text}.`,
		firstKeptEntryId: `e${n.toString().padStart(3, "0")}`,
		tokensBefore: 9000,
	});
	point();
	message({
		role: "bashExecution",
		command: "cat ~/.npmrc",
		output: `//registry.npmjs.org/:_authToken=${C.npm.secrets[0]}\n`,
		exitCode: 0,
	});
	add({
		type: "custom_message",
		customType: "deploy-bot",
		content: `Deploy key rotated; the old one was ${C.stripe.text}.`,
		display: true,
	});
	point();
	const adv = `call_${++call}`;
	message({
		role: "assistant",
		content: [
			{ type: "text", text: `Should I rotate ${C.openai.text} now?` },
			{ type: "toolCall", id: adv, name: "advisor", arguments: {} },
		],
		provider: "p",
		model: "m",
		usage: USAGE,
		stopReason: "toolUse",
	});
	point();
	message({
		role: "toolResult",
		toolCallId: adv,
		toolName: "advisor",
		content: [{ type: "text", text: `Severity: concern\nRotate ${C.openai.text} and ${C.google.text}.` }],
		details: { advisorModel: "a:b", stopReason: "stop" },
		isError: false,
	});
	message({ role: "user", content: `Here is the new one: ${C.anthropic.text}` });
	point();
	return { jsonl: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`, points };
}

/** (credential × point) pairs that reach the request or an advisor_expand answer at that point. */
function leaks(jsonl: string, points: readonly number[], privacy?: Parameters<typeof readSession>[1]) {
	const read = readSession(jsonl, privacy);
	let state = ledgerOf([], read.header?.cwd);
	let folded = 0;
	/** Pairs in the request itself, and pairs anywhere (the request or an advisor_expand answer). */
	const found: string[] = [];
	const inRequest: string[] = [];
	for (const point of points) {
		state = foldLedger(state, read.events.slice(folded, point));
		folded = point;
		const inFlight = state.pendingConsultations.at(-1)?.callId;
		const request = flatten(
			renderRequest(state, {
				config: DEFAULT_LEDGER_CONFIG,
				catalogue: [],
				tools: [],
				toolsMode: "repo",
				mode: "consult",
				...(inFlight !== undefined ? { inFlightCallId: inFlight } : {}),
			}),
		);
		const answers = state.events
			.toArray()
			.map((e) => expandEntry(state, e.id))
			.flatMap((a) => (a.kind === "ok" ? [a.text] : []));
		for (const credential of CREDENTIALS) {
			const pair = `${credential.name} at point ${point}`;
			const carries = (text: string) => credential.secrets.some((s) => text.includes(s));
			if (carries(request)) inRequest.push(pair);
			if (carries(request) || answers.some(carries)) found.push(pair);
		}
	}
	return { found, inRequest, state, read };
}

describe("the held-out credential session", () => {
	const { jsonl, points } = session();

	it("is what it says: 13 kinds at 8 points, and read as written it shows them", () => {
		expect(CREDENTIALS).toHaveLength(13);
		expect(points).toHaveLength(8);
		const open = leaks(jsonl, points, { privacy: { redact: false, patterns: [], allow: [] }, denyPatterns: [] });
		// Without redaction and the deny list (the figures docs/privacy.md quotes): this many pairs in the
		// requests themselves, and this many within reach of advisor_expand.
		expect(open.inRequest.length).toBe(OPEN_IN_REQUESTS);
		expect(open.found.length).toBe(OPEN_ANYWHERE);
	});

	it("leaks 0 of 104 (credential × point), in the request and in every advisor_expand answer", () => {
		const redacted = leaks(jsonl, points);
		expect(redacted.inRequest).toEqual([]);
		expect(redacted.found).toEqual([]);
	});

	it("keeps every look-alike as written: in the events, and through advisor_expand of the read that held them", () => {
		const { state, read } = leaks(jsonl, points);
		const lock = read.events.find((e) => e.kind === "toolResult" && JSON.stringify(e.parts).includes("integrity"))!;
		const answer = expandEntry(state, lock.id);
		expect(answer.kind).toBe("ok");
		for (const lookalike of LOOKALIKES) expect(answer.kind === "ok" && answer.text, lookalike).toContain(lookalike);
	});
});
