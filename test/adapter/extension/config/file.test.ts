// Where advisor.json is looked up: XDG_CONFIG_HOME when absolute, else ~/.config.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configPaths } from "../../../../src/adapter/extension/config/file.ts";
import { loadConfig } from "../../../../src/adapter/extension/config/load.ts";
import { ledgerPathIn, makeHome, writeJson } from "./support.ts";

let home: string;

beforeEach(() => {
	({ home } = makeHome());
});

afterEach(() => {
	rmSync(home, { recursive: true, force: true });
});

const ledgerPath = () => ledgerPathIn(home);

describe("location", () => {
	it("defaults to ~/.config when XDG_CONFIG_HOME is unset", () => {
		expect(configPaths({ env: {}, home: "/h" })).toEqual({
			ledger: "/h/.config/pi-advisor-ledger/advisor.json",
			rpiv: "/h/.config/rpiv-advisor/advisor.json",
		});
	});

	it("uses an absolute XDG_CONFIG_HOME", () => {
		expect(configPaths({ env: { XDG_CONFIG_HOME: "/xdg" }, home: "/h" })).toEqual({
			ledger: "/xdg/pi-advisor-ledger/advisor.json",
			rpiv: "/xdg/rpiv-advisor/advisor.json",
		});
	});

	it.each(["relative/xdg", "./xdg", "~/xdg", ""])("ignores XDG_CONFIG_HOME=%j (not absolute)", (xdg) => {
		expect(configPaths({ env: { XDG_CONFIG_HOME: xdg }, home: "/h" }).ledger).toBe(
			"/h/.config/pi-advisor-ledger/advisor.json",
		);
	});

	it("reads from an absolute XDG_CONFIG_HOME", () => {
		const xdg = join(home, "xdg");
		writeJson(join(xdg, "pi-advisor-ledger", "advisor.json"), { modelKey: "a/b" });
		const loaded = loadConfig({ env: { XDG_CONFIG_HOME: xdg }, home });
		expect(loaded.source).toBe("ledger");
		expect(loaded.config.modelKey).toBe("a/b");
	});

	it("does not read a relative XDG_CONFIG_HOME even when a file sits there", () => {
		const cwdRelative = "rel-xdg-never-used";
		const loaded = loadConfig({ env: { XDG_CONFIG_HOME: cwdRelative }, home });
		expect(loaded.path).toBe(ledgerPath());
		expect(loaded.source).toBe("default");
	});
});
