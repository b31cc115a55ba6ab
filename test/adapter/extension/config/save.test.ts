// Saving what /advisor changes: the selection (modelKey, effort) and watch.enabled, nothing else, atomically, mode 0600.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConfigLocation } from "../../../../src/adapter/extension/config/file.ts";
import { loadConfig } from "../../../../src/adapter/extension/config/load.ts";
import { saveSelection, saveWatchEnabled } from "../../../../src/adapter/extension/config/save.ts";
import { ledgerPathIn, makeHome, modeOf, readJson, rpivPathIn, writeJson } from "./support.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

let home: string;
let opts: ConfigLocation;

beforeEach(() => {
	({ home, opts } = makeHome());
});

afterEach(() => {
	rmSync(home, { recursive: true, force: true });
});

const ledgerPath = () => ledgerPathIn(home);
const rpivPath = () => rpivPathIn(home);

describe("saveSelection", () => {
	it("creates the folder and writes pretty JSON with a trailing newline, mode 0600", () => {
		const result = saveSelection(opts, { modelKey: "anthropic/claude-opus-4-1", effort: "high" });
		expect(result).toEqual({
			ok: true,
			path: ledgerPath(),
			raw: { modelKey: "anthropic/claude-opus-4-1", effort: "high" },
		});
		expect(readFileSync(ledgerPath(), "utf8")).toBe(
			'{\n  "modelKey": "anthropic/claude-opus-4-1",\n  "effort": "high"\n}\n',
		);
		expect(modeOf(ledgerPath())).toBe(0o600);
	});

	it("preserves every hand-edited key, its value and its position", () => {
		const hand = {
			$comment: "mine",
			budget: { sessionUsd: 12.5, onExceed: "skip", extra: [1, { deep: null }] },
			modelKey: "old/model",
			effort: "low",
			tools: { denyPatterns: ["*.secret"] },
			unknown: "kept",
		};
		writeJson(ledgerPath(), hand);
		const result = saveSelection(opts, { modelKey: "new/model", effort: "xhigh" });
		expect(result.ok).toBe(true);
		const saved = readJson(ledgerPath());
		expect(saved).toEqual({ ...hand, modelKey: "new/model", effort: "xhigh" });
		expect(Object.keys(saved)).toEqual(Object.keys(hand));
	});

	it("re-reads the file, so edits made after loading survive", () => {
		writeJson(ledgerPath(), { modelKey: "a/b" });
		loadConfig(opts);
		writeJson(ledgerPath(), { modelKey: "a/b", review: { enabled: true } });
		saveSelection(opts, { modelKey: "c/d" });
		expect(readJson(ledgerPath())).toEqual({ modelKey: "c/d", review: { enabled: true } });
	});

	it("new selection keys go first, ahead of hand-edited ones", () => {
		writeJson(ledgerPath(), { budget: { sessionUsd: 1 } });
		saveSelection(opts, { modelKey: "a/b", effort: "medium" });
		expect(Object.keys(readJson(ledgerPath()))).toEqual(["modelKey", "effort", "budget"]);
	});

	it("tightens an existing file to 0600", () => {
		writeJson(ledgerPath(), { modelKey: "a/b" });
		chmodSync(ledgerPath(), 0o644);
		expect(saveSelection(opts, { modelKey: "a/b" }).ok).toBe(true);
		expect(modeOf(ledgerPath())).toBe(0o600);
	});

	it("No advisor removes modelKey and effort and keeps the rest", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", effort: "high", review: { enabled: true } });
		expect(saveSelection(opts, {})).toMatchObject({ ok: true, raw: { review: { enabled: true } } });
		expect(readJson(ledgerPath())).toEqual({ review: { enabled: true } });
	});

	it("No advisor drops an effort passed along with it", () => {
		saveSelection(opts, { effort: "high" });
		expect(readJson(ledgerPath())).toEqual({});
	});

	it("effort off (or none) removes effort", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", effort: "high" });
		saveSelection(opts, { modelKey: "a/b", effort: "off" });
		expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b" });
		writeJson(ledgerPath(), { modelKey: "a/b", effort: "high" });
		saveSelection(opts, { modelKey: "a/b" });
		expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b" });
	});

	it("writes the canonical provider/modelId form", () => {
		saveSelection(opts, { modelKey: "openrouter:anthropic/claude-sonnet-4" });
		expect(readJson(ledgerPath()).modelKey).toBe("openrouter/anthropic/claude-sonnet-4");
	});

	it("round-trips through loadConfig", () => {
		saveSelection(opts, { modelKey: "a/b", effort: "minimal" });
		expect(loadConfig(opts)).toMatchObject({ source: "ledger", config: { modelKey: "a/b", effort: "minimal" } });
	});

	it("carries rpiv-advisor's keys over when ours does not exist yet, leaving theirs untouched", () => {
		const rpiv = { modelKey: "openai:gpt-5", budget: { sessionUsd: 3 }, disabledForModels: ["x/y"] };
		writeJson(rpivPath(), rpiv);
		const before = readFileSync(rpivPath(), "utf8");
		expect(saveSelection(opts, { modelKey: "anthropic/claude-opus-4-1" }).ok).toBe(true);
		expect(readJson(ledgerPath())).toEqual({ ...rpiv, modelKey: "anthropic/claude-opus-4-1" });
		expect(readFileSync(rpivPath(), "utf8")).toBe(before);
		expect(loadConfig(opts).source).toBe("ledger");
	});

	it("writes through a symlinked advisor.json instead of replacing the link", () => {
		const real = join(home, "dotfiles", "advisor.json");
		writeJson(real, { budget: { sessionUsd: 2 } });
		mkdirSync(dirname(ledgerPath()), { recursive: true });
		symlinkSync(real, ledgerPath());
		expect(saveSelection(opts, { modelKey: "a/b" }).ok).toBe(true);
		expect(lstatSync(ledgerPath()).isSymbolicLink()).toBe(true);
		expect(readJson(real)).toEqual({ modelKey: "a/b", budget: { sessionUsd: 2 } });
		expect(modeOf(real)).toBe(0o600);
	});

	it("refuses to overwrite a malformed file (it would lose the hand edits)", () => {
		writeJson(ledgerPath(), '{"budget": {"sessionUsd": 2},');
		const result = saveSelection(opts, { modelKey: "a/b" });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.message).toContain("not valid JSON");
		expect(readFileSync(ledgerPath(), "utf8")).toBe('{"budget": {"sessionUsd": 2},');
	});

	it("returns an error for an unparseable model key", () => {
		const result = saveSelection(opts, { modelKey: "no-separator" });
		expect(result).toMatchObject({ ok: false, path: ledgerPath() });
		expect(existsSync(ledgerPath())).toBe(false);
	});

	it("returns an error (does not throw) when the folder cannot be created", () => {
		writeJson(join(home, ".config", "pi-advisor-ledger"), "a file, not a folder");
		const result = saveSelection(opts, { modelKey: "a/b" });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.message).toMatch(/EEXIST|ENOTDIR|not a directory/);
	});

	it("returns an error (does not throw) for a read-only folder, file unchanged", (ctx) => {
		ctx.skip(process.getuid?.() === 0, "run as root, which ignores folder permissions (the next test drops it)");
		writeJson(ledgerPath(), { modelKey: "a/b" });
		const folder = dirname(ledgerPath());
		chmodSync(folder, 0o500);
		try {
			const result = saveSelection(opts, { modelKey: "c/d" });
			expect(result.ok).toBe(false);
			if (!result.ok) expect(result.message).toMatch(/EACCES|EPERM/);
			expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b" });
		} finally {
			chmodSync(folder, 0o700);
		}
	});

	// Root ignores folder permissions, so under root the same check runs as `nobody` in a child process.
	const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((p) => existsSync(p));
	it("returns an error for a read-only folder when run as an unprivileged user", (ctx) => {
		ctx.skip(process.getuid?.() !== 0, "not run as root: the test above checks it as this user");
		ctx.skip(RUNUSER === undefined, "run as root without runuser to drop it");
		const script = `
				import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
				import { tmpdir } from "node:os";
				import { join } from "node:path";
				import { saveSelection } from "./src/adapter/extension/config/save.ts";
				const home = mkdtempSync(join(tmpdir(), "advisor-ro-"));
				const dir = join(home, ".config", "pi-advisor-ledger");
				mkdirSync(dir, { recursive: true });
				writeFileSync(join(dir, "advisor.json"), '{"modelKey":"a/b"}');
				chmodSync(dir, 0o500);
				const result = saveSelection({ env: {}, home }, { modelKey: "c/d" });
				const after = readFileSync(join(dir, "advisor.json"), "utf8");
				chmodSync(dir, 0o700);
				rmSync(home, { recursive: true, force: true });
				console.log(JSON.stringify({ uid: process.getuid(), result, after }));
			`;
		const out = execFileSync(
			RUNUSER!,
			["-u", "nobody", "--", process.execPath, "--import", "tsx", "--input-type=module", "-e", script],
			{ cwd: REPO_ROOT, encoding: "utf8" },
		);
		const { uid, result, after } = JSON.parse(out.trim().split("\n").at(-1)!);
		expect(uid).not.toBe(0);
		expect(result.ok).toBe(false);
		expect(result.message).toMatch(/EACCES|EPERM/);
		expect(after).toBe('{"modelKey":"a/b"}');
	});

	it("property: hand-edited keys survive any selection byte-for-byte in value", () => {
		const handKey = fc.string({ minLength: 1 }).filter((k) => k !== "modelKey" && k !== "effort");
		fc.assert(
			fc.property(
				fc.dictionary(handKey, fc.jsonValue()),
				fc.option(fc.constantFrom("a/b", "openrouter:x/y:free")),
				fc.option(fc.constantFrom("minimal", "low", "medium", "high", "xhigh", "off" as const)),
				(hand, modelKey, effort) => {
					writeJson(ledgerPath(), JSON.stringify(hand));
					const result = saveSelection(opts, { modelKey: modelKey ?? undefined, effort: effort ?? undefined });
					expect(result.ok).toBe(true);
					const { modelKey: savedKey, effort: savedEffort, ...rest } = readJson(ledgerPath());
					expect(rest).toEqual(JSON.parse(JSON.stringify(hand)));
					expect(savedKey).toBe(modelKey === null ? undefined : modelKey.replace(":", "/"));
					expect(savedEffort).toBe(modelKey === null || effort === "off" ? undefined : (effort ?? undefined));
				},
			),
			{ numRuns: 100 },
		);
	});
});

describe("saveWatchEnabled", () => {
	it("sets watch.enabled in place: the section keeps its other keys and its place, every other key survives", () => {
		const hand = {
			modelKey: "a/b",
			watch: { failureStreak: 4, enabled: false, maxShare: 0.2 },
			budget: { sessionUsd: 3 },
			unknown: ["kept"],
		};
		writeJson(ledgerPath(), hand);
		expect(saveWatchEnabled(opts, true)).toMatchObject({ ok: true, path: ledgerPath() });
		const saved = readJson(ledgerPath());
		expect(saved).toEqual({ ...hand, watch: { failureStreak: 4, enabled: true, maxShare: 0.2 } });
		expect(Object.keys(saved)).toEqual(Object.keys(hand));
		expect(Object.keys(saved.watch as object)).toEqual(["failureStreak", "enabled", "maxShare"]);
		expect(modeOf(ledgerPath())).toBe(0o600);
		expect(loadConfig(opts).config.watch).toMatchObject({ enabled: true, failureStreak: 4, maxShare: 0.2 });
	});

	it("adds the key after the section's others, or the section at the end, and turns it off again", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", watch: { cooldownRounds: 2 } });
		saveWatchEnabled(opts, true);
		expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b", watch: { cooldownRounds: 2, enabled: true } });
		writeJson(ledgerPath(), { modelKey: "a/b" });
		saveWatchEnabled(opts, true);
		expect(Object.keys(readJson(ledgerPath()))).toEqual(["modelKey", "watch"]);
		saveWatchEnabled(opts, false);
		expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b", watch: { enabled: false } });
	});

	it("re-reads the file first, carries rpiv-advisor's keys over once, and writes through a symlink", () => {
		writeJson(rpivPath(), { modelKey: "openai:gpt-5", budget: { sessionUsd: 3 } });
		expect(saveWatchEnabled(opts, true).ok).toBe(true);
		expect(readJson(ledgerPath())).toEqual({
			modelKey: "openai:gpt-5",
			budget: { sessionUsd: 3 },
			watch: { enabled: true },
		});
		rmSync(ledgerPath());
		const real = join(home, "dotfiles", "advisor.json");
		writeJson(real, { review: { enabled: true } });
		symlinkSync(real, ledgerPath());
		expect(saveWatchEnabled(opts, true).ok).toBe(true);
		expect(lstatSync(ledgerPath()).isSymbolicLink()).toBe(true);
		expect(readJson(real)).toEqual({ review: { enabled: true }, watch: { enabled: true } });
	});

	it("refuses a malformed file and a `watch` that is not an object, leaving the file byte for byte", () => {
		writeJson(ledgerPath(), '{"watch": {"enabled": true},');
		expect(saveWatchEnabled(opts, false)).toMatchObject({ ok: false });
		expect(readFileSync(ledgerPath(), "utf8")).toBe('{"watch": {"enabled": true},');
		for (const bad of ['{"watch": "on"}', '{"watch": [true]}', '{"watch": null}']) {
			writeJson(ledgerPath(), bad);
			const result = saveWatchEnabled(opts, true);
			expect(result.ok, bad).toBe(false);
			if (!result.ok) expect(result.message).toContain("watch is not an object");
			expect(readFileSync(ledgerPath(), "utf8")).toBe(bad);
		}
	});

	it("property: every key but watch.enabled survives, in value and order", () => {
		const handKey = fc.string({ minLength: 1 }).filter((k) => k !== "watch");
		fc.assert(
			fc.property(
				fc.dictionary(handKey, fc.jsonValue()),
				fc.option(fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue())),
				fc.boolean(),
				(hand, watch, enabled) => {
					const before = watch === null ? hand : { ...hand, watch };
					writeJson(ledgerPath(), JSON.stringify(before));
					expect(saveWatchEnabled(opts, enabled).ok).toBe(true);
					const saved = readJson(ledgerPath());
					const { watch: savedWatch, ...rest } = saved;
					expect(rest).toEqual(JSON.parse(JSON.stringify(hand)));
					const { enabled: savedEnabled, ...others } = savedWatch as Record<string, unknown>;
					expect(savedEnabled).toBe(enabled);
					const { enabled: _was, ...othersBefore } = JSON.parse(JSON.stringify(watch ?? {}));
					expect(others).toEqual(othersBefore);
					expect(Object.keys(saved).filter((k) => k !== "watch")).toEqual(
						Object.keys(JSON.parse(JSON.stringify(hand))),
					);
				},
			),
			{ numRuns: 100 },
		);
	});
});
