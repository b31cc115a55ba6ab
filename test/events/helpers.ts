/**
 * Builders and fast-check generators for session files, shared by the events tests.
 */

import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";

/** ≥ 200 runs by default; FC_RUNS raises it for a deeper local run. */
export const FC_RUNS = (() => {
	const fromEnv = Number(process.env.FC_RUNS);
	return Number.isFinite(fromEnv) && fromEnv > 0 ? Math.floor(fromEnv) : 200;
})();

/** Per-test timeout for properties, so a deep FC_RUNS run is not cut by the 60 s default. */
export const PROPERTY_TIMEOUT = Math.max(60_000, FC_RUNS * 100);

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const sharedSessionsDir = path.resolve(repoRoot, "../shared/sessions");
export const sharedSessionFiles: string[] = existsSync(sharedSessionsDir)
	? readdirSync(sharedSessionsDir)
			.filter((name) => name.endsWith(".jsonl"))
			.sort()
			.map((name) => path.join(sharedSessionsDir, name))
	: [];

export type Json = Record<string, unknown>;

export const jsonl = (lines: readonly unknown[]): string => lines.map((line) => JSON.stringify(line)).join("\n") + "\n";

const TS = "2025-01-01T00:00:00.000Z";

export const header = (over: Json = {}): Json => ({
	type: "session",
	version: 3,
	id: "sess-1",
	timestamp: TS,
	cwd: "/w",
	...over,
});
export const v1Header = (over: Json = {}): Json => ({
	type: "session",
	id: "sess-v1",
	timestamp: TS,
	cwd: "/w",
	provider: "anthropic",
	modelId: "claude",
	thinkingLevel: "off",
	...over,
});

/** A v3 entry: `e("message", "a", null, { message })`. */
export const e = (type: string, id: string, parentId: string | null, body: Json = {}): Json => ({
	type,
	id,
	parentId,
	timestamp: TS,
	...body,
});

export const user = (content: unknown): Json => ({ role: "user", content, timestamp: 1 });
export const assistant = (content: unknown[], over: Json = {}): Json => ({
	role: "assistant",
	content,
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude",
	usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
	stopReason: "stop",
	timestamp: 2,
	...over,
});
export const toolResult = (toolCallId: string, content: unknown, over: Json = {}): Json => ({
	role: "toolResult",
	toolCallId,
	toolName: "read",
	content,
	isError: false,
	timestamp: 3,
	...over,
});

export const msg = (id: string, parentId: string | null, message: Json): Json =>
	e("message", id, parentId, { message });

/** A linear v3 chain: ids a1, a2, … each the child of the previous one. */
export function chain(bodies: readonly Json[]): Json[] {
	return bodies.map((body, i) => ({ id: `a${i + 1}`, parentId: i === 0 ? null : `a${i}`, timestamp: TS, ...body }));
}

// ---------------------------------------------------------------------------------------------
// fast-check generators
// ---------------------------------------------------------------------------------------------

const str = fc.oneof(
	{ weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
	{ weight: 1, arbitrary: fc.constantFrom("</executor_log>", "\r\n", "\u2028", '"}\n{"type":"session"', "🙂") },
);
const textPart = fc.record({ type: fc.constant("text"), text: str });
const imagePart = fc.record({
	type: fc.constant("image"),
	data: fc.base64String({ maxLength: 16 }),
	mimeType: fc.constantFrom("image/png", "image/jpeg"),
});
const thinkingPart = fc.record(
	{ type: fc.constant("thinking"), thinking: str, thinkingSignature: str, redacted: fc.boolean() },
	{ requiredKeys: ["type", "thinking"] },
);
const toolCallPart = fc.record({
	type: fc.constant("toolCall"),
	id: fc.string({ minLength: 1, maxLength: 8 }),
	name: fc.constantFrom("read", "bash", "edit", "advisor"),
	arguments: fc.oneof(
		{
			weight: 5,
			arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
		},
		{ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
	),
});
const userContent = fc.oneof(str, fc.array(fc.oneof(textPart, imagePart), { maxLength: 3 }));

const usage = fc.record({
	input: fc.nat(),
	output: fc.nat(),
	cacheRead: fc.nat(),
	cacheWrite: fc.nat(),
	cost: fc.record({ input: fc.nat(), output: fc.nat(), cacheRead: fc.nat(), cacheWrite: fc.nat(), total: fc.nat() }),
});

const messageTs = fc.nat({ max: 2_000_000_000_000 });

function messageArb(version: 1 | 2 | 3): fc.Arbitrary<Json> {
	return fc.oneof(
		{ weight: 4, arbitrary: fc.record({ role: fc.constant("user"), content: userContent, timestamp: messageTs }) },
		{
			weight: 4,
			arbitrary: fc.record(
				{
					role: fc.constant("assistant"),
					content: fc.array(fc.oneof(textPart, thinkingPart, toolCallPart), { maxLength: 4 }),
					api: fc.constant("anthropic-messages"),
					provider: fc.constantFrom("anthropic", "openai"),
					model: fc.constantFrom("claude", "gpt"),
					usage,
					stopReason: fc.constantFrom("stop", "toolUse", "error", "aborted", "length"),
					errorMessage: str,
					timestamp: messageTs,
				},
				{ requiredKeys: ["role", "content", "api", "provider", "model", "stopReason", "timestamp"] },
			),
		},
		{
			weight: 4,
			arbitrary: fc.record(
				{
					role: fc.constant("toolResult"),
					toolCallId: fc.string({ minLength: 1, maxLength: 8 }),
					toolName: fc.constantFrom("read", "bash", "advisor"),
					content: fc.array(fc.oneof(textPart, imagePart), { maxLength: 3 }),
					details: fc.jsonValue({ maxDepth: 2 }),
					isError: fc.boolean(),
					timestamp: messageTs,
				},
				{ requiredKeys: ["role", "toolCallId", "toolName", "content", "isError", "timestamp"] },
			),
		},
		{
			weight: 1,
			arbitrary: fc.record(
				{
					role: fc.constant("bashExecution"),
					command: str,
					output: str,
					exitCode: fc.integer({ min: 0, max: 255 }),
					cancelled: fc.boolean(),
					truncated: fc.boolean(),
					excludeFromContext: fc.boolean(),
					timestamp: messageTs,
				},
				{ requiredKeys: ["role", "command", "output", "cancelled", "truncated", "timestamp"] },
			),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				role: fc.constant(version === 2 ? "hookMessage" : "custom"),
				customType: fc.constantFrom("ext-a", "advisor-review"),
				content: userContent,
				display: fc.boolean(),
				details: fc.jsonValue({ maxDepth: 1 }),
				timestamp: messageTs,
			}),
		},
	);
}

const isoTimestamp = fc
	.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })
	.map((ms) => new Date(ms).toISOString());

/** Entry bodies without links; compaction targets are filled in by the session generators. */
function bodyArb(version: 1 | 2 | 3): fc.Arbitrary<Json> {
	const common: fc.Arbitrary<Json>[] = [
		messageArb(version).map((message) => ({ type: "message", message })),
		messageArb(version).map((message) => ({ type: "message", message })),
		messageArb(version).map((message) => ({ type: "message", message })),
		fc.record({ type: fc.constant("model_change"), provider: fc.constantFrom("anthropic", "openai"), modelId: str }),
		fc.record({ type: fc.constant("thinking_level_change"), thinkingLevel: fc.constantFrom("off", "low", "high") }),
		fc.record({ type: fc.constant("compaction"), summary: str, tokensBefore: fc.nat() }),
	];
	if (version === 1) return fc.oneof(...common);
	return fc.oneof(
		...common,
		fc.record({ type: fc.constant("custom"), customType: str, data: fc.jsonValue({ maxDepth: 2 }) }),
		fc.record({
			type: fc.constant("custom_message"),
			customType: str,
			content: userContent,
			display: fc.boolean(),
			details: fc.jsonValue({ maxDepth: 1 }),
		}),
		fc.record({ type: fc.constant("branch_summary"), summary: str }),
		fc.record({ type: fc.constant("label"), label: str }),
		fc.record({ type: fc.constant("session_info"), name: str }),
	);
}

export interface GeneratedSession {
	version: 1 | 2 | 3;
	lines: Json[];
	text: string;
}

/** A v1 file: no ids, linear, compactions point anywhere by index (header, forward, out of range). */
export const v1SessionArb: fc.Arbitrary<GeneratedSession> = fc
	.tuple(
		fc.array(fc.tuple(bodyArb(1), isoTimestamp, fc.integer({ min: 0, max: 40 })), { maxLength: 30 }),
		fc.uuid(),
		fc.boolean(),
	)
	.map(([bodies, id, withModel]) => {
		const entries = bodies.map(([body, timestamp, target]) =>
			body.type === "compaction" ? { ...body, timestamp, firstKeptEntryIndex: target } : { ...body, timestamp },
		);
		const head = withModel ? v1Header({ id }) : { type: "session", id, timestamp: TS, cwd: "/w" };
		const lines = [head, ...entries];
		return { version: 1 as const, lines, text: jsonl(lines) };
	});

/** A v2/v3 tree: random parents among earlier entries (mostly the previous one), compactions name earlier ids. */
export function treeSessionArb(version: 2 | 3): fc.Arbitrary<GeneratedSession> {
	return fc
		.tuple(
			fc.array(fc.tuple(bodyArb(version), isoTimestamp, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 9 })), {
				maxLength: 30,
			}),
			fc.uuid(),
		)
		.chain(([bodies, sessionId]) =>
			fc
				.uniqueArray(fc.stringMatching(/^[0-9a-f]{8}$/), { minLength: bodies.length, maxLength: bodies.length })
				.map((ids) => {
					const entries = bodies.map(([body, timestamp, parentPick, targetPick, jump], i) => {
						const previous = i === 0 ? null : ids[i - 1]!;
						// Mostly linear, sometimes a branch off an earlier entry, rarely a new root.
						const parentId = i === 0 || jump === 0 ? null : jump === 1 ? ids[parentPick % i]! : previous;
						const links = { id: ids[i]!, parentId, timestamp };
						switch (body.type) {
							case "compaction":
								return { ...body, ...links, firstKeptEntryId: i === 0 ? ids[0]! : ids[targetPick % i]! };
							case "branch_summary":
								return { ...body, ...links, fromId: i === 0 ? "root" : ids[targetPick % i]! };
							case "label":
								return { ...body, ...links, targetId: ids[targetPick % (i + 1)]! };
							default:
								return { ...body, ...links };
						}
					});
					const lines = [header({ id: sessionId, version }), ...entries];
					return { version, lines, text: jsonl(lines) };
				}),
		);
}

export const anySessionArb = fc.oneof(v1SessionArb, treeSessionArb(2), treeSessionArb(3));

/** Line-level damage a real file can suffer: lost, repeated, reordered, cut, replaced or stray lines. */
export const mutationArb = fc.oneof(
	fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
	fc.record({ op: fc.constant("duplicate" as const), at: fc.nat() }),
	fc.record({ op: fc.constant("swap" as const), at: fc.nat(), with: fc.nat() }),
	fc.record({ op: fc.constant("truncate" as const), at: fc.nat(), keep: fc.nat() }),
	fc.record({ op: fc.constant("replace" as const), at: fc.nat(), line: fc.string({ unit: "binary" }) }),
	fc.record({ op: fc.constant("insertJson" as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 3 }) }),
	fc.record({ op: fc.constant("crlf" as const), at: fc.nat() }),
	fc.record({ op: fc.constant("retype" as const), at: fc.nat(), type: fc.string({ maxLength: 10 }) }),
	fc.record({ op: fc.constant("reparent" as const), at: fc.nat(), to: fc.nat() }),
);
export type Mutation = typeof mutationArb extends fc.Arbitrary<infer M> ? M : never;

export function applyMutations(text: string, mutations: readonly Mutation[], dropFinalNewline: boolean): string {
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	for (const m of mutations) {
		if (lines.length === 0) break;
		const i = m.at % lines.length;
		const line = lines[i]!;
		switch (m.op) {
			case "delete":
				lines.splice(i, 1);
				break;
			case "duplicate":
				lines.splice(i, 0, line);
				break;
			case "swap": {
				const j = m.with % lines.length;
				lines[i] = lines[j]!;
				lines[j] = line;
				break;
			}
			case "truncate":
				lines[i] = line.slice(0, m.keep % (line.length + 1));
				break;
			case "replace":
				lines[i] = m.line;
				break;
			case "insertJson":
				lines.splice(i, 0, JSON.stringify(m.value) ?? "null");
				break;
			case "crlf":
				lines[i] = `${line}\r`;
				break;
			case "retype":
			case "reparent": {
				let value: unknown;
				try {
					value = JSON.parse(line);
				} catch {
					break;
				}
				if (typeof value !== "object" || value === null || Array.isArray(value)) break;
				const object = value as Json;
				if (m.op === "retype") object.type = m.type;
				else {
					const target = lines[m.to % lines.length]!;
					const id = /"id":"([^"]*)"/.exec(target)?.[1];
					object.parentId = id ?? null;
				}
				lines[i] = JSON.stringify(object);
				break;
			}
		}
	}
	return lines.join("\n") + (dropFinalNewline ? "" : "\n");
}
