/**
 * The render memo: a block, a closed segment and the catalogue are rendered once per config and
 * never served stale to another config.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/reducers/index.ts";
import { renderBlock } from "../../src/render/blocks.ts";
import { renderCatalogue } from "../../src/render/catalogue.ts";
import { hashString } from "../../src/render/hash.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../../src/render/ledger-section.ts";
import { configKey, createRenderMemo, type RenderedSegment } from "../../src/render/render-memo.ts";
import { zeroUsage } from "../../src/render/usage.ts";
import { advice, assistant, call, resetParents, user } from "../support/events.ts";

beforeEach(() => resetParents());

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

	it("configKey tells apart every field a block's rendering reads", () => {
		const fields = [
			"tailToolCalls",
			"tailMaxChars",
			"tailResultMaxChars",
			"userMessageMaxChars",
			"customPreviewChars",
			"proseMaxChars",
		] as const;
		for (const field of fields) {
			const changed = { ...DEFAULT_LEDGER_CONFIG, [field]: DEFAULT_LEDGER_CONFIG[field] + 1 };
			expect(configKey(changed), field).not.toBe(configKey(DEFAULT_LEDGER_CONFIG));
		}
	});
});
