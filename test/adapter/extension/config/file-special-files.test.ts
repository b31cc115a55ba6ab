// advisor.json is read when Pi starts: a config "file" that is a FIFO, a link to /dev/zero or huge
// must give a warning and the defaults at once, never block the start or fill the memory. Each
// case loads the config in a child process, so a blocking read fails the test (the child is
// killed after a generous bound) instead of hanging the test runner.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIG_FILE, CONFIG_FOLDER, MAX_CONFIG_BYTES } from "../../../../src/adapter/extension/config/file.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const HANG_MS = 60_000;

let work: string;
let script: string;

beforeAll(() => {
	work = mkdtempSync(path.join(tmpdir(), "advisor-config-files-"));
	script = path.join(work, "load.mts");
	writeFileSync(
		script,
		`import { loadConfig } from ${JSON.stringify(path.join(repoRoot, "src/adapter/extension/config/load.ts"))};
const loaded = loadConfig({ home: process.argv[2], env: {} });
process.stdout.write(JSON.stringify({ source: loaded.source, warnings: loaded.warnings, config: loaded.config }));
`,
	);
});

afterAll(() => {
	if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

interface Loaded {
	source: string;
	warnings: string[];
	config: unknown;
}

/** loadConfig in a child; resolves undefined when it had to be killed. */
function loadInChild(home: string): Promise<Loaded | undefined> {
	return new Promise((resolve) => {
		let killed = false;
		const child = execFile(
			process.execPath,
			["--import", "tsx", script, home],
			{ cwd: repoRoot, encoding: "utf8", maxBuffer: 16 << 20 },
			(error, stdout) => {
				clearTimeout(guard);
				resolve(killed || error !== null ? undefined : (JSON.parse(stdout) as Loaded));
			},
		);
		const guard = setTimeout(() => {
			killed = true;
			child.kill("SIGKILL");
		}, HANG_MS);
	});
}

function configPath(home: string): string {
	const file = path.join(home, ".config", CONFIG_FOLDER, CONFIG_FILE);
	mkdirSync(path.dirname(file), { recursive: true });
	return file;
}

const cases: [string, (file: string) => void, RegExp][] = [
	[
		"a FIFO",
		(file) => execFileSync("mkfifo", [file]),
		/\(is a FIFO \(named pipe\), not a regular file\) — using defaults$/,
	],
	["a link to /dev/zero", (file) => symlinkSync("/dev/zero", file), /\(is a character device, not a regular file\)/],
	[
		"larger than the cap (sparse)",
		(file) => {
			writeFileSync(file, "");
			truncateSync(file, MAX_CONFIG_BYTES + 1);
		},
		new RegExp(`\\(is ${MAX_CONFIG_BYTES + 1} bytes, larger than the ${MAX_CONFIG_BYTES}-byte limit\\)`),
	],
	["a folder", (file) => mkdirSync(file), /\(is a folder, not a regular file\)/],
];

describe("an advisor.json that is not a regular file, or too large", () => {
	it.each(cases)(
		"%s: one warning naming the file and why, the defaults, and the load returns",
		async (_, make, reason) => {
			const home = path.join(work, `home-${Math.random().toString(36).slice(2)}`);
			const file = configPath(home);
			make(file);
			const defaults = await loadInChild(path.join(work, "no-such-home"));
			const loaded = await loadInChild(home);
			expect(loaded).toBeDefined();
			expect(loaded!.source).toBe("default");
			expect(loaded!.config).toEqual(defaults!.config);
			expect(loaded!.warnings).toHaveLength(1);
			expect(loaded!.warnings[0]).toContain(`advisor.json: cannot use ${file} (`);
			expect(loaded!.warnings[0]).toMatch(reason);
		},
		3 * HANG_MS,
	);

	it(
		"a regular file just under the cap is still read",
		async () => {
			const home = path.join(work, "home-under-cap");
			const json = JSON.stringify({ modelKey: "a/b", padding: "x".repeat(MAX_CONFIG_BYTES - 100) });
			writeFileSync(configPath(home), json);
			const loaded = await loadInChild(home);
			expect(loaded).toMatchObject({
				source: "ledger",
				warnings: [`advisor.json: unknown key "padding" (in ${configPath(home)}, ignored)`],
				config: { modelKey: "a/b" },
			});
		},
		2 * HANG_MS,
	);
});
