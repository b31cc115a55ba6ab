/**
 * The render memo: a block, a closed segment and the catalogue are rendered once per config and
 * never served stale to another config.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { type LedgerState, ledgerOf } from "../../src/reducers/index.ts";
import { renderBlock } from "../../src/render/blocks.ts";
import { renderCatalogue } from "../../src/render/catalogue.ts";
import { hashString } from "../../src/render/hash.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig, LedgerSchema } from "../../src/render/ledger-section.ts";
import { CONFIG_KEY_FIELDS, configKey, createRenderMemo, type RenderedSegment } from "../../src/render/render-memo.ts";
import { renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext } from "../../src/render/request-units.ts";
import { zeroUsage } from "../../src/render/usage.ts";
import { advice, assistant, bash, call, custom, resetParents, result, user } from "../support/events.ts";

beforeEach(() => resetParents());

const FIELDS = Object.keys(CONFIG_KEY_FIELDS) as (keyof LedgerConfig)[];

const longProse = "word ".repeat(200);
const assistantTurn = {
	role: "assistant" as const,
	api: "advisor-ledger",
	provider: "advisor-ledger",
	model: "past-advice",
	usage: zeroUsage(),
	stopReason: "stop" as const,
	timestamp: 0,
};
const state = () =>
	ledgerOf([
		user("u1", "Go."),
		assistant("a1", { text: longProse, calls: [call("adv", "advisor")] }),
		advice("r1", "adv", "Severity: nit\nFine."),
		assistant("a2", { text: longProse }),
	]);

describe("createRenderMemo", () => {
	it("a block renders as renderBlock does, for each config its own", () => {
		const memo = createRenderMemo();
		const block = state().open.at(0)!;
		const tight: LedgerConfig = { ...DEFAULT_LEDGER_CONFIG, proseMaxChars: 20 };
		expect(memo.block(block, DEFAULT_LEDGER_CONFIG)).toBe(renderBlock(block, DEFAULT_LEDGER_CONFIG));
		expect(memo.block(block, tight)).toBe(renderBlock(block, tight));
		expect(memo.block(block, tight)).not.toBe(memo.block(block, DEFAULT_LEDGER_CONFIG));
	});

	it("a closed segment is built once per config", () => {
		const memo = createRenderMemo();
		const segment = state().closed[0]!;
		let builds = 0;
		const build = (): RenderedSegment => {
			builds++;
			const advice = { ...assistantTurn, content: [{ type: "text" as const, text: "Fine." }] };
			return { log: { role: "user", content: [], timestamp: 0 }, logParts: [], advice, adviceParts: ["Fine."] };
		};
		const once = memo.segment(segment, DEFAULT_LEDGER_CONFIG, build);
		expect(memo.segment(segment, DEFAULT_LEDGER_CONFIG, build)).toBe(once);
		expect(builds).toBe(1);
		memo.segment(segment, { ...DEFAULT_LEDGER_CONFIG, tailMaxChars: 100 }, build);
		expect(builds).toBe(2);
	});

	it("the catalogue follows its entries, a part's hash is its text's", () => {
		const memo = createRenderMemo();
		const entries = [{ name: "read", description: "Read a file." }];
		expect(memo.catalogue(entries)).toBe(renderCatalogue(entries));
		const other = [{ name: "bash", description: "Run a command." }];
		expect(memo.catalogue(other)).toBe(renderCatalogue(other));
		expect(memo.catalogue([...entries])).toBe(renderCatalogue(entries));
		expect(memo.partHash("some part")).toBe(hashString("some part"));
	});

	it("configKey tells apart every field CONFIG_KEY_FIELDS marks", () => {
		const keyed = FIELDS.filter((field) => CONFIG_KEY_FIELDS[field]);
		expect(keyed.length).toBeGreaterThan(5);
		for (const field of keyed) {
			const changed = { ...DEFAULT_LEDGER_CONFIG, [field]: DEFAULT_LEDGER_CONFIG[field] + 1 };
			expect(configKey(changed), field).not.toBe(configKey(DEFAULT_LEDGER_CONFIG));
		}
		for (const field of FIELDS.filter((f) => !CONFIG_KEY_FIELDS[f])) {
			const changed = { ...DEFAULT_LEDGER_CONFIG, [field]: DEFAULT_LEDGER_CONFIG[field] + 1 };
			expect(configKey(changed), field).toBe(configKey(DEFAULT_LEDGER_CONFIG));
		}
	});
});

describe("CONFIG_KEY_FIELDS: every field of the ledger config is placed, and the memo is never stale", () => {
	it("names every field of LedgerConfig (a new one must be marked keyed or not)", () => {
		expect([...FIELDS].sort()).toEqual(Object.keys(LedgerSchema.properties).sort());
		expect([...FIELDS].sort()).toEqual(Object.keys(DEFAULT_LEDGER_CONFIG).sort());
	});

	// A branch that shows every field at work: long user words, prose, notes, `!` output, advice and
	// results, standing instructions, and a log long enough to cut.
	const branch = () => {
		const long = (word: string) => `${word} `.repeat(400);
		const events = [];
		for (let i = 0; i < 12; i++) {
			events.push(
				user(`u${i}`, long(`ask${i}`)),
				assistant(`a${i}`, { text: long(`prose${i}`), calls: [call(`c${i}`, "read", { path: `src/f${i}.ts` })] }),
				result(`r${i}`, `c${i}`, "read", long(`line${i}`)),
				custom(`n${i}`, "note", long(`note${i}`), true),
				bash(`b${i}`, `make t${i}`, long(`out${i}`)),
			);
			if (i % 4 === 3)
				events.push(
					assistant(`q${i}`, { text: long(`question${i}`), calls: [call(`adv${i}`, "advisor")] }),
					advice(`v${i}`, `adv${i}`, `Severity: nit\n${long(`advice${i}`)}`),
				);
		}
		events.push(assistant("last", { text: "Next?", calls: [call("c-last", "read"), call("c-last2", "read")] }));
		events.push(
			result("r-last", "c-last", "read", long("final")),
			result("r-last2", "c-last2", "read", long("final2")),
		);
		return ledgerOf(events);
	};
	const base: LedgerConfig = { ...DEFAULT_LEDGER_CONFIG, logTargetTokens: 3000 };
	/** A value of each field that changes the request of `branch` under `base`. */
	const CHANGED: Record<keyof LedgerConfig, number> = {
		tailToolCalls: 3,
		tailMaxChars: 200,
		tailResultMaxChars: 50,
		userMessageMaxChars: 100,
		customPreviewChars: 20,
		proseMaxChars: 20,
		instructionsMaxChars: 50,
		logTargetTokens: 1500,
	};
	const bytes = (state: LedgerState, config: LedgerConfig, memo = createRenderMemo()) =>
		JSON.stringify(
			buildContext(
				renderRequest(
					state,
					{
						config,
						catalogue: [{ name: "read", description: "Read a file." }],
						tools: [],
						toolsMode: "repo",
						mode: "consult",
						instructions: [{ source: "AGENTS.md", text: "rule ".repeat(100) }],
					},
					memo,
				),
			),
		);

	it.each(FIELDS)("a memo that rendered one config renders %s changed as a fresh memo does", (field) => {
		const state = branch();
		const changed = { ...base, [field]: CHANGED[field] };
		const fresh = bytes(state, changed);
		// The change shows in the request, so a stale part would.
		expect(fresh).not.toBe(bytes(state, base));
		const memo = createRenderMemo();
		bytes(state, base, memo);
		expect(bytes(state, changed, memo)).toBe(fresh);
	});
});
